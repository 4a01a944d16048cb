// Operations that return a tuple whose first element is a spread
// (torch::var_mean, torch::std_mean), read through a structured binding or
// std::get<0>: the variance or standard deviation is 0 for a constant input.
// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Positive ------------------------------------------------------------------

torch::Tensor layer_norm_binding(const torch::Tensor &x) {
  auto [var, mean] = torch::var_mean(x, {1}, false, true);
  return (x - mean) / torch::sqrt(var);
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: sqrt of a value that nothing keeps away from 0 has an infinite gradient at 0; add an epsilon to the argument [torch-missing-epsilon]
  // CHECK-FIXES: {{^}}  return (x - mean) / torch::sqrt(var + 1e-8);{{$}}
}

torch::Tensor standardise_get(const torch::Tensor &x) {
  return (x - x.mean()) / std::get<0>(torch::std_mean(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: division by a standard deviation that can be 0 gives inf or NaN; add an epsilon to the denominator or clamp it [torch-missing-epsilon]
  // CHECK-FIXES: {{^}}  return (x - x.mean()) / (std::get<0>(torch::std_mean(x)) + 1e-8);{{$}}
}

torch::Tensor standardise_tuple_local(const torch::Tensor &x) {
  auto stats = torch::std_mean(x, {0});
  auto sd = std::get<0>(stats);
  return (x - std::get<1>(stats)) / sd;
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: division by a standard deviation that can be 0 gives inf or NaN; add an epsilon to the denominator or clamp it [torch-missing-epsilon]
  // CHECK-MESSAGES: :[[@LINE-3]]:13: note: 'sd' gets its value here
  // CHECK-FIXES: {{^}}  return (x - std::get<1>(stats)) / (sd + 1e-8);{{$}}
}

// --- Negative twins ---------------------------------------------------------------

torch::Tensor layer_norm_eps(const torch::Tensor &x) {
  auto [var, mean] = torch::var_mean(x, {1}, false, true);
  return (x - mean) / torch::sqrt(var + 1e-5);
}

torch::Tensor standardise_clamped(const torch::Tensor &x) {
  auto stats = torch::std_mean(x, {0});
  auto sd = std::get<0>(stats).clamp_min(1e-6);
  return (x - std::get<1>(stats)) / sd;
}

// The mean element scales, it does not divide.
torch::Tensor centre(const torch::Tensor &x) {
  auto [sd, mean] = torch::std_mean(x);
  return (x - mean) * 2.0;
}

// The first element is replaced before the division: its value is not known.
torch::Tensor standardise_written(const torch::Tensor &x) {
  auto stats = torch::std_mean(x, {0});
  std::get<0>(stats) = std::get<0>(stats) + 1e-6;
  return (x - std::get<1>(stats)) / std::get<0>(stats);
}
