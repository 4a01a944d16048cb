// Hang found while reviewing the checks for the crash hunt: locals assigned
// from each other many times made the boundary analysis follow every
// definition of every variable, (2 * 25)^5 paths: torch-tidy ran for minutes on
// this 150-line function. Each query now has a step budget; past it nothing is
// known, and the next query starts afresh. A use now reads only the last
// write before it (a5 = a4 * a4, ..., a1 = a0 * a0), so the walk is linear and
// finds that a5 is a power of a sum of squares.
// RUN: timeout 60 %torch_tidy --checks=-*,torch-missing-epsilon --quiet %s -- -std=c++17 -isystem %mock_torch
// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

#include <torch/torch.h>

torch::Tensor many_writes(const torch::Tensor &x, const torch::Tensor &y) {
  auto a0 = (x - y).pow(2).sum(1);
  auto a1 = a0 + a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  a1 = a0 * a0;
  auto a2 = a1 + a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  a2 = a1 * a1;
  auto a3 = a2 + a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  a3 = a2 * a2;
  auto a4 = a3 + a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  a4 = a3 * a3;
  auto a5 = a4 + a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  a5 = a4 * a4;
  return torch::sqrt(a5);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
}

// Still diagnosed: the budget is per query.
torch::Tensor few_writes(const torch::Tensor &x, const torch::Tensor &y) {
  auto a0 = (x - y).pow(2).sum(1);
  auto a1 = a0 + a0;
  a1 = a0 * a0;
  return torch::sqrt(a1);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0 has an infinite gradient at 0; add an epsilon to the argument [torch-missing-epsilon]
  // CHECK-FIXES: {{^}}  return torch::sqrt(a1 + 1e-8);{{$}}
}
