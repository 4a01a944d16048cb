// sqrt, fractional pow, acos and asin are infinite only in their gradient at
// the boundary: of a value without autograd history (made only of fresh
// tensors, ranges, constants and detached values, no factory asking for
// requires_grad) no gradient flows, and nothing is reported. log, rsqrt and
// divisions are infinite in their value and are still reported.
// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Negative: no gradient can flow ----------------------------------------------

// A radial distance grid for a positional encoding.
torch::Tensor radial_grid(int64_t h, int64_t w) {
  auto ys = torch::arange(h, torch::kFloat) - h / 2.0;
  auto xs = torch::arange(w, torch::kFloat) - w / 2.0;
  auto grids = torch::meshgrid({ys, xs});
  auto yy = grids[0];
  auto xx = grids[1];
  return torch::sqrt(xx * xx + yy * yy);
}

torch::Tensor radial_linspace(int64_t n) {
  auto xs = torch::linspace(-1, 1, n);
  auto r = xs.unsqueeze(0).pow(2) + xs.unsqueeze(1).pow(2);
  return r.sqrt() + torch::pow(r, 0.5);
}

// Angles of random unit directions, a detached target.
torch::Tensor sampled(const torch::Tensor &target) {
  auto v = torch::randn({16, 3});
  auto n = torch::sqrt(v.pow(2).sum(1));
  auto t = target.detach();
  return n + torch::sqrt((t - t.mean()).pow(2).sum());
}

// --- Positive: history from a leaf, a parameter, a factory asking for grad -------

torch::Tensor grid_of_leaf(int64_t n) {
  auto xs = torch::arange(n, torch::requires_grad());
  return torch::sqrt(xs * xs + xs.pow(2));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return torch::sqrt(xs * xs + xs.pow(2) + 1e-8);{{$}}
}

torch::Tensor grid_made_leaf(int64_t n) {
  auto xs = torch::arange(n, torch::kFloat);
  xs.requires_grad_();
  auto ys = xs - 1.0;
  return torch::sqrt(xs * xs + ys * ys);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return torch::sqrt(xs * xs + ys * ys + 1e-8);{{$}}
}

torch::Tensor grid_plus_data(int64_t n, const torch::Tensor &offset) {
  auto xs = torch::arange(n, torch::kFloat) - offset;
  return torch::sqrt(xs * xs + xs.pow(2));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return torch::sqrt(xs * xs + xs.pow(2) + 1e-8);{{$}}
}

// The value itself is infinite: still reported without history.
torch::Tensor log_of_grid(int64_t w) {
  auto xs = torch::arange(w, torch::kFloat) - w / 2.0;
  return torch::log(torch::relu(xs));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return torch::log(torch::relu(xs) + 1e-8);{{$}}
}
