// The same patterns against Debian's real LibTorch headers, so the mock cannot
// drift from the real API; every fix-it form is applied and the fixed file
// must compile against the real headers.
// Runs against LibTorch 1.13 (Debian) and 2.x (lit --param libtorch=2): lines with the
// suffix LIBTORCH1 hold on 1.x only.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed --check-suffixes=,LIBTORCH%libtorch_major %s torch-missing-epsilon %t -- -- %libtorch_flags

#include <torch/torch.h>

namespace F = torch::nn::functional;

torch::Tensor fix_its(const torch::Tensor &a, const torch::Tensor &b, double p) {
  auto d = torch::sqrt((a - b).pow(2).sum(1));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto d = torch::sqrt((a - b).pow(2).sum(1) + 1e-8);{{$}}
  auto n = a.pow(2).sum(1, true).sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto n = (a.pow(2).sum(1, true) + 1e-8).sqrt();{{$}}
  auto var = (a - a.mean()).pow(2).mean();
  auto r = torch::rsqrt(var);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: rsqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto r = torch::rsqrt(var + 1e-8);{{$}}
  auto q = torch::pow(a.abs().pow(p).sum(), 1.0 / p) + a.var().pow(0.5);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: pow with a reciprocal exponent
  // CHECK-MESSAGES: :[[@LINE-2]]:64: warning: pow with a fractional exponent
  // CHECK-FIXES: {{^}}  auto q = torch::pow(a.abs().pow(p).sum() + 1e-8, 1.0 / p) + (a.var() + 1e-8).pow(0.5);{{$}}
  auto l = torch::log(torch::softmax(a, 1)) + a.softmax(1).log();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log of a softmax is -inf
  // CHECK-MESSAGES: :[[@LINE-2]]:60: warning: log of a softmax is -inf
  // CHECK-FIXES: {{^}}  auto l = torch::log_softmax(a, 1) + a.log_softmax(1);{{$}}
  auto m = torch::log10(F::mse_loss(a, b)) + torch::log2((a - b).abs());
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log10 of a value
  // CHECK-MESSAGES: :[[@LINE-2]]:46: warning: log2 of a value
  // CHECK-FIXES: {{^}}  auto m = torch::log10(F::mse_loss(a, b) + 1e-8) + torch::log2((a - b).abs() + 1e-8);{{$}}
  auto c = F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(1));
  auto angle = torch::acos(c) + c.asin();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: acos of a value that nothing keeps inside (-1, 1)
  // CHECK-MESSAGES: :[[@LINE-2]]:35: warning: asin of a value that nothing keeps inside (-1, 1)
  // CHECK-FIXES: {{^}}  auto angle = torch::acos(c.clamp(-1 + 1e-6, 1 - 1e-6)) + c.clamp(-1 + 1e-6, 1 - 1e-6).asin();{{$}}
  auto sine = torch::sqrt(1 - c * c);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto sine = torch::sqrt(1 - c * c + 1e-8);{{$}}
  auto u = a / a.norm(2, 1, true) + b.div(torch::linalg_vector_norm(b, 2, 1, true, c10::nullopt));
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: division by a norm that can be 0
  // CHECK-MESSAGES: :[[@LINE-2]]:39: warning: division by a norm that can be 0
  // CHECK-FIXES: {{^}}  auto u = a / (a.norm(2, 1, true) + 1e-8) + b.div(torch::linalg_vector_norm(b, 2, 1, true, c10::nullopt) + 1e-8);{{$}}
#if TORCH_VERSION_MAJOR < 2
  // The C++ API's torch::linalg namespace (torch/linalg.h): gone from LibTorch 2.x's
  // headers (2.13 has no torch/linalg.h); there the ATen op above is the spelling.
  u = u + b.div(torch::linalg::vector_norm(b, 2, 1, true, c10::nullopt));
  // CHECK-MESSAGES-LIBTORCH1: :[[@LINE-1]]:13: warning: division by a norm that can be 0
  // CHECK-FIXES-LIBTORCH1: {{^}}  u = u + b.div(torch::linalg::vector_norm(b, 2, 1, true, c10::nullopt) + 1e-8);{{$}}
#endif
  auto z = (a - a.mean()) / a.std();
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: division by a standard deviation that can be 0
  // CHECK-FIXES: {{^}}  auto z = (a - a.mean()) / (a.std() + 1e-8);{{$}}
  z /= a.relu().sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: division by a sum that can be 0
  return d + n + r + q + l + m + angle + sine + u + z;
}

// Not flagged with the real overloads: scalar denominators, integer powers,
// guards.
torch::Tensor quiet(const torch::Tensor &x, int64_t n, double eps) {
  auto r = x / 255.0 + x / x.size(0) + x / static_cast<double>(n) + x.pow(2);
  r = r + torch::sqrt(x.pow(2).sum() + eps) + torch::log(F::softplus(x));
  r = r + x / x.norm(2, 1, true).clamp_min(1e-12) + torch::log_softmax(x, 1);
  r = r + x / torch::max(x.norm(), torch::tensor(eps)) + x.exp().log();
  r = r + F::normalize(x, F::NormalizeFuncOptions().dim(1));
  // Path conditions with the real item<T>() and TORCH_CHECK.
  auto v = x.var();
  TORCH_CHECK(v.item<double>() != 0, "constant input");
  auto nn = x.norm();
  if (nn.item<double>() == 0.0) {
    r = r + x;
  } else {
    r = r + x / nn;
  }
  return r + x / v.sqrt();
}
