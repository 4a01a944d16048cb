// The value-range domain and one-sided bounds: clamp_max, clamp_min and clamp
// bound a value on the side they name; with the other side bounded by the
// operand's own range (|x| >= 0) the value is kept inside (-1, 1).
// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Negative: both sides bounded ------------------------------------------------

// |c| >= 0 and clamp_max(1 - eps): inside (-1, 1).
torch::Tensor angle_of_abs(const torch::Tensor &a, const torch::Tensor &b,
                           double eps) {
  auto c = torch::cosine_similarity(a, b, 1);
  auto t = torch::acos(torch::abs(c).clamp_max(1 - eps));
  auto u = torch::acos(torch::clamp_max(c.abs(), 1 - 1e-6));
  auto v = torch::asin(torch::clamp_max(torch::abs(c), 1 - eps));
  return t + u + v;
}

// Two-sided in one call, or in two.
torch::Tensor angle_two_sided(const torch::Tensor &a, const torch::Tensor &b) {
  const double eps = 1e-6;
  auto c = torch::cosine_similarity(a, b, 1);
  auto t = torch::acos(c.clamp(-1 + eps, 1 - eps));
  auto u = torch::asin(torch::clamp(c, -1 + eps, 1 - eps));
  auto v = torch::acos(c.clamp_min(-1 + eps).clamp_max(1 - eps));
  auto w = torch::acos(torch::clamp_max(torch::clamp_min(c, -1 + eps), 1 - eps));
  auto x = torch::acos(c.clamp_max(1 - eps).clamp_min(-1 + eps));
  return t + u + v + w + x;
}

// An upper bound keeps what the lower side had: (d + eps) stays >= eps.
torch::Tensor capped_distance(const torch::Tensor &a, const torch::Tensor &b) {
  auto d = (a - b).pow(2).sum(1);
  return torch::sqrt((d + 1e-8).clamp_max(1e4)) +
         torch::sqrt(torch::clamp_max(d.clamp_min(1e-8), 1e4));
}

// --- Positive: one side left open ------------------------------------------------

torch::Tensor angle_one_side(const torch::Tensor &a, const torch::Tensor &b) {
  auto c = torch::cosine_similarity(a, b, 1);
  // A cosine bounded above still reaches -1, bounded below still reaches 1.
  auto t = torch::acos(c.clamp_max(1 - 1e-6));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: acos of a value that nothing keeps inside (-1, 1)
  // CHECK-FIXES: {{^}}  auto t = torch::acos(c.clamp_max(1 - 1e-6).clamp(-1 + 1e-6, 1 - 1e-6));{{$}}
  auto u = torch::acos(c.clamp_min(-1 + 1e-6));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: acos of a value that nothing keeps inside (-1, 1)
  // CHECK-FIXES: {{^}}  auto u = torch::acos(c.clamp_min(-1 + 1e-6).clamp(-1 + 1e-6, 1 - 1e-6));{{$}}
  auto v = torch::acos(torch::clamp_max(c, 1 - 1e-6));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: acos of a value that nothing keeps inside (-1, 1)
  // CHECK-FIXES: {{^}}  auto v = torch::acos(torch::clamp_max(c, 1 - 1e-6).clamp(-1 + 1e-6, 1 - 1e-6));{{$}}
  // 1 - 1e-8 is 1 in float32: |c| clamped onto 1.
  auto w = torch::acos(c.abs().clamp_max(1 - 1e-8));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: acos of a value that nothing keeps inside (-1, 1)
  return t + u + v + w;
}

// An upper bound does not keep a norm away from 0.
torch::Tensor capped_norm(const torch::Tensor &a, const torch::Tensor &b) {
  auto d = (a - b).pow(2).sum(1);
  auto s = torch::sqrt(d.clamp_max(1e4));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto s = torch::sqrt(d.clamp_max(1e4) + 1e-8);{{$}}
  auto t = torch::sqrt(torch::clamp_max(d, 1e4));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto t = torch::sqrt(torch::clamp_max(d, 1e4) + 1e-8);{{$}}
  return s + t;
}
