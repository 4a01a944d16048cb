// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

#include <torch/torch.h>

#include <cmath>

namespace F = torch::nn::functional;

// --- sqrt and rsqrt ------------------------------------------------------------

torch::Tensor euclidean_distance(const torch::Tensor &a, const torch::Tensor &b) {
  return torch::sqrt((a - b).pow(2).sum(1));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0 has an infinite gradient at 0; add an epsilon to the argument [torch-missing-epsilon]
  // CHECK-FIXES: {{^}}  return torch::sqrt((a - b).pow(2).sum(1) + 1e-8);{{$}}
}

torch::Tensor method_sqrt(const torch::Tensor &x) {
  return x.pow(2).sum().sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return (x.pow(2).sum() + 1e-8).sqrt();{{$}}
}

torch::Tensor through_locals(const torch::Tensor &x) {
  auto squares = x * x;
  auto total = squares.sum(1);
  return torch::sqrt(total);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-MESSAGES: :[[@LINE-3]]:16: note: 'total' gets its value here
  // CHECK-FIXES: {{^}}  return torch::sqrt(total + 1e-8);{{$}}
}

// Declared first and assigned once later, as much LibTorch code does.
torch::Tensor assigned_once(const torch::Tensor &x) {
  torch::Tensor variance, deviation;
  variance = x.var();
  deviation = variance.sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  deviation = (variance + 1e-8).sqrt();{{$}}
  return deviation;
}

torch::Tensor hand_written_layer_norm(const torch::Tensor &x) {
  auto mu = x.mean();
  auto var = (x - mu).pow(2).mean();
  return (x - mu) * torch::rsqrt(var);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: rsqrt of a value that nothing keeps away from 0 is infinite at 0; add an epsilon to the argument
  // CHECK-FIXES: {{^}}  return (x - mu) * torch::rsqrt(var + 1e-8);{{$}}
}

torch::Tensor rmse(const torch::Tensor &pred, const torch::Tensor &target) {
  return torch::sqrt(torch::mse_loss(pred, target));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return torch::sqrt(torch::mse_loss(pred, target) + 1e-8);{{$}}
}

torch::Tensor sqrt_of_a_conditional(const torch::Tensor &x, bool c) {
  return torch::sqrt(c ? x.norm() : x.std());
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return torch::sqrt((c ? x.norm() : x.std()) + 1e-8);{{$}}
}

// --- pow -----------------------------------------------------------------------

torch::Tensor fractional_power(const torch::Tensor &x) {
  return x.pow(2).sum(1).pow(0.5);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: pow with a fractional exponent of a base that nothing keeps away from 0 has an infinite gradient at 0; add an epsilon to the base
  // CHECK-FIXES: {{^}}  return (x.pow(2).sum(1) + 1e-8).pow(0.5);{{$}}
}

torch::Tensor p_norm(const torch::Tensor &x, double p) {
  return torch::pow(x.abs().pow(p).sum(), 1.0 / p);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: pow with a reciprocal exponent of a base that nothing keeps away from 0 has an infinite gradient at 0; add an epsilon to the base
  // CHECK-FIXES: {{^}}  return torch::pow(x.abs().pow(p).sum() + 1e-8, 1.0 / p);{{$}}
}

torch::Tensor inverse_norm(const torch::Tensor &x) {
  return x.norm().pow(-1);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: pow with a negative exponent of a base that nothing keeps away from 0 is infinite at 0; add an epsilon to the base or clamp it
}

// --- log -----------------------------------------------------------------------

torch::Tensor log_of_softmax(const torch::Tensor &logits) {
  auto a = torch::log(torch::softmax(logits, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log of a softmax is -inf where a probability underflows to 0; use log_softmax instead
  // CHECK-FIXES: {{^}}  auto a = torch::log_softmax(logits, 1);{{$}}
  auto b = logits.softmax(1).log();
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: log of a softmax is -inf
  // CHECK-FIXES: {{^}}  auto b = logits.log_softmax(1);{{$}}
  auto c = torch::log(logits.softmax(1));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log of a softmax is -inf
  // CHECK-FIXES: {{^}}  auto c = logits.log_softmax(1);{{$}}
  auto probs = F::softmax(logits, F::SoftmaxFuncOptions(1));
  auto d = torch::log(probs);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log of a softmax is -inf
  // CHECK-MESSAGES: :[[@LINE-3]]:16: note: 'probs' gets its value here
  return a + b + c + d;
}

torch::Tensor hand_written_bce(const torch::Tensor &z, const torch::Tensor &y) {
  auto p = torch::sigmoid(z);
  return -(y * torch::log(p) + (1 - y) * torch::log(1 - p));
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: log of a sigmoid is -inf where the sigmoid rounds to 0 (inputs below about -88 in float32); use log_sigmoid instead [torch-missing-epsilon]
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'p' gets its value here
  // CHECK-MESSAGES: :[[@LINE-3]]:42: warning: log of a value that nothing keeps away from 0 is -inf at 0; add an epsilon to the argument or clamp it
  // CHECK-FIXES: {{^}}  return -(y * torch::log(p) + (1 - y) * torch::log(1 - p + 1e-8));{{$}}
}

torch::Tensor log2_and_log10(const torch::Tensor &x, const torch::Tensor &t) {
  auto a = torch::log2((x - t).abs());
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log2 of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto a = torch::log2((x - t).abs() + 1e-8);{{$}}
  auto b = torch::log10(torch::mse_loss(x, t));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log10 of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto b = torch::log10(torch::mse_loss(x, t) + 1e-8);{{$}}
  return a + b;
}

// Under a no-grad guard log is still -inf at 0: only gradient-only operations
// are exempt.
torch::Tensor log_without_grad(const torch::Tensor &x) {
  torch::NoGradGuard no_grad;
  return torch::log(x.relu());
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return torch::log(x.relu() + 1e-8);{{$}}
}

// --- acos and asin -------------------------------------------------------------

torch::Tensor angle(const torch::Tensor &a, const torch::Tensor &b) {
  return torch::acos(torch::cosine_similarity(a, b));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: acos of a value that nothing keeps inside (-1, 1) has an infinite gradient at -1 and 1; clamp the argument to [-1 + eps, 1 - eps]
  // CHECK-FIXES: {{^}}  return torch::acos(torch::cosine_similarity(a, b).clamp(-1 + 1e-6, 1 - 1e-6));{{$}}
}

torch::Tensor hand_written_angle(const torch::Tensor &a, const torch::Tensor &b) {
  auto cosine = (a * b).sum(1) / (a.norm(2, 1) * b.norm(2, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: division by a product of norms or reductions that can be 0 gives inf or NaN; add an epsilon to the denominator or clamp it
  // CHECK-FIXES: {{^}}  auto cosine = (a * b).sum(1) / (a.norm(2, 1) * b.norm(2, 1) + 1e-8);{{$}}
  return cosine.acos();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: acos of a value that nothing keeps inside (-1, 1)
  // CHECK-FIXES: {{^}}  return cosine.clamp(-1 + 1e-6, 1 - 1e-6).acos();{{$}}
}

torch::Tensor asin_of_clamped(const torch::Tensor &a, const torch::Tensor &b) {
  auto unit_a = F::normalize(a, F::NormalizeFuncOptions().dim(1));
  auto unit_b = F::normalize(b, F::NormalizeFuncOptions().dim(1));
  auto s = torch::asin((unit_a * unit_b).sum(1));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: asin of a value that nothing keeps inside (-1, 1)
  // CHECK-FIXES: {{^}}  auto s = torch::asin((unit_a * unit_b).sum(1).clamp(-1 + 1e-6, 1 - 1e-6));{{$}}
  // Clamping onto the boundary keeps the infinite gradient; no fix-it guesses
  // the margin.
  auto t = torch::asin(F::cosine_similarity(a, b).clamp(-1, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: asin of a value that nothing keeps inside (-1, 1)
  return s + t;
}

// --- division ------------------------------------------------------------------

torch::Tensor divisions(const torch::Tensor &x, const torch::Tensor &y) {
  auto a = x / x.norm(2, 1, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: division by a norm that can be 0 gives inf or NaN; add an epsilon to the denominator or clamp it
  // CHECK-FIXES: {{^}}  auto a = x / (x.norm(2, 1, true) + 1e-8);{{$}}
  auto b = (x - x.mean()).div(x.std());
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: division by a standard deviation that can be 0
  // CHECK-FIXES: {{^}}  auto b = (x - x.mean()).div(x.std() + 1e-8);{{$}}
  auto c = x / x.relu().sum(1, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: division by a sum that can be 0
  // The sqrt is reported, not the division by it: its fix-it guards both.
  auto d = 1.0 / torch::sqrt(x.var());
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto d = 1.0 / torch::sqrt(x.var() + 1e-8);{{$}}
  // Without autograd the division is what fails.
  torch::Tensor g;
  {
    torch::NoGradGuard no_grad;
    g = x / x.var().sqrt();
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: division by a square root that can be 0
    // CHECK-FIXES: {{^}}    g = x / (x.var().sqrt() + 1e-8);{{$}}
  }
  auto n = y.norm();
  auto e = y.clone();
  e /= n;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: division by a norm that can be 0
  // CHECK-MESSAGES: :[[@LINE-4]]:12: note: 'n' gets its value here
  // CHECK-FIXES: {{^}}  e /= n + 1e-8;{{$}}
  auto f = torch::div(x, (x - y).abs().mean());
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: division by a mean that can be 0
  // A sum of values nothing is known about (a mask passed in) is reported
  // only in StrictMode; reduced from a masked-loss average (a corpus false
  // positive).
  auto masked = (x * y).sum() / y.sum() + x / x.mean();
  return a + b + c + d + e + f + g + masked;
}

// --- not flagged: guarded ------------------------------------------------------

struct Options {
  double eps() const { return 1e-5; }
};

torch::Tensor guarded(const torch::Tensor &x, const torch::Tensor &y, double eps,
                      const Options &options) {
  const double kEps = 1e-6;
  double epsilon = 1e-7;
  torch::Tensor r = torch::sqrt(x.pow(2).sum() + eps);
  r += torch::sqrt(x.pow(2).sum() + 1e-12);
  r += torch::sqrt(1 + x.pow(2).sum());
  r += torch::sqrt(x.pow(2).sum() + kEps);
  r += torch::sqrt(x.pow(2).sum() + options.eps());
  r += (x.pow(2).sum() + epsilon).sqrt();
  r += torch::sqrt(x.pow(2).sum().clamp_min(1e-12));
  r += torch::sqrt(torch::clamp(x.pow(2).sum(), kEps));
  r += torch::sqrt(x.pow(2).sum().clamp(eps));
  r += torch::sqrt(torch::max(x.pow(2).sum(), torch::tensor(eps)));
  r += torch::log(torch::exp(x)) + torch::log(torch::softplus(x));
  r += x.exp().log() + torch::log(torch::sigmoid(x) + 1e-8);
  r += torch::log_sigmoid(x) + torch::sigmoid(x).sqrt() + x / x.sigmoid();
  r += torch::log(x.softmax(1) + 1e-8);
  r += torch::log(torch::log_softmax(x, 1).exp());
  r += torch::rsqrt(x.var() + eps);
  return r;
}

torch::Tensor guarded_locals(const torch::Tensor &x, double eps) {
  auto squared = x.pow(2).sum(1);
  auto safe = squared + eps;
  torch::Tensor r = torch::sqrt(safe);
  // Modified after its definition: what reaches the use is not known.
  auto d = x.pow(2).sum(1);
  d = d + eps;
  r += torch::sqrt(d);
  auto s = x.pow(2).sum(1);
  s.clamp_min_(1e-12);
  r += torch::sqrt(s);
  return r;
}

torch::Tensor scalar_and_size_denominators(const torch::Tensor &x, int64_t n) {
  torch::Tensor r = x / 255.0;
  r += x / x.size(0);
  r += x / static_cast<double>(n);
  r += x.div(2.0);
  r += x / std::sqrt(static_cast<double>(n));
  return r;
}

torch::Tensor guarded_denominators(const torch::Tensor &x, double eps) {
  torch::Tensor r = x / (x.norm() + eps);
  r += x / x.norm(2, 1, true).clamp_min(1e-12);
  r += x / torch::max(x.norm(), torch::tensor(1e-12));
  r += x.exp() / x.exp().sum(1, true); // A softmax by hand.
  r += x / torch::sqrt(x.var() + eps);
  r += x / x.abs().max(); // Not a norm or a reduction the check knows.
  return r;
}

torch::Tensor powers(const torch::Tensor &x) {
  torch::Tensor r = x.pow(2) + x.pow(3) + torch::pow(x, 2) + x.pow(1.5);
  r += x.norm().pow(2.0) + torch::pow(2.0, x) + x.pow(0);
  return r;
}

torch::Tensor guarded_acos(const torch::Tensor &a, const torch::Tensor &b,
                           double eps) {
  auto c = torch::cosine_similarity(a, b);
  torch::Tensor r = torch::acos(c.clamp(-1 + 1e-6, 1 - 1e-6));
  r += torch::acos(c.clamp(-1 + eps, 1 - eps));
  r += torch::asin(c * (1 - eps));
  r += torch::acos(c * 0.999);
  return r;
}

// Nothing is known about a parameter, a member or a user function's result:
// not flagged unless StrictMode is set (see torch-missing-epsilon-options.cpp).
torch::Tensor user_function(const torch::Tensor &);
struct Model {
  torch::Tensor variance;
  torch::Tensor unknown_origins(const torch::Tensor &x) {
    return torch::sqrt(x) + torch::log(variance) + torch::acos(x) +
           user_function(x).rsqrt() + x.pow(0.5);
  }
};

// Only the gradient of sqrt, fractional pow, acos and asin is infinite: without
// autograd there is nothing to report.
torch::Tensor without_autograd(const torch::Tensor &x) {
  torch::Tensor r = torch::sqrt(x.pow(2).sum().detach());
  {
    torch::NoGradGuard no_grad;
    r += torch::sqrt(x.pow(2).sum());
    r += torch::acos(torch::cosine_similarity(x, x));
  }
  return r;
}

// A user type called Tensor is not LibTorch's.
namespace mine {
struct Tensor {
  Tensor sqrt() const { return *this; }
  Tensor pow(int) const { return *this; }
  Tensor sum() const { return *this; }
};
inline Tensor sqrt(const Tensor &t) { return t; }
} // namespace mine
mine::Tensor not_libtorch(const mine::Tensor &t) {
  mine::sqrt(t.pow(2).sum());
  return t.pow(2).sum().sqrt();
}

double scalars(double v) { return std::sqrt(v * v) + std::log(v * v); }

// Reduced from a diffusion sampler (a corpus false positive): a square root of
// a noise-schedule value is not a norm, and nothing says it can reach 0.
torch::Tensor predict_x0(const torch::Tensor &x_t, const torch::Tensor &alpha_bars,
                         const torch::Tensor &noise) {
  torch::Tensor alpha_bar, x_0;
  alpha_bar = alpha_bars.view({-1, 1, 1, 1});
  x_0 = (x_t - torch::sqrt(1.0 - alpha_bar) * noise) / torch::sqrt(alpha_bar);
  return x_0 / (1.0 - alpha_bar).sqrt();
}

// Reduced from Gaussian-filter code (corpus false positives): a kernel of exp
// values normalised by its own sum, updated from itself; the sum of positive
// values is positive.
torch::Tensor gaussian_kernel(const torch::Tensor &t, double sigma) {
  torch::Tensor g, g2;
  g = torch::exp(-(t * t) / (2.0 * sigma * sigma));
  g = g / g.sum();
  g2 = g.unsqueeze(1).matmul(g.unsqueeze(0));
  g2 = g2 / g2.sum();
  auto k = torch::exp(-(t * t)) / (2 * 3.14159 * sigma * sigma);
  k /= k.sum();
  k.unsqueeze_(0);
  return g2 + k;
}

// Reduced from a flow model's log-determinant (a corpus false positive): the
// magnitude of a learned scale says nothing about reaching 0.
struct ActNorm {
  torch::Tensor scale;
  torch::Tensor log_det() { return torch::log(torch::abs(scale)) + scale.square().log(); }
};

// Reduced from an SSIM window (a corpus false positive): a kernel of positive
// values from host memory normalised by its sum.
torch::Tensor ssim_window(std::vector<float> &values) {
  torch::Tensor w;
  w = torch::from_blob(values.data(), {static_cast<int64_t>(values.size())});
  w = w / w.sum();
  return w;
}

// The log of a sigmoid: log_sigmoid is its stable form (a sigmoid counts as
// > 0 everywhere else: sqrt, division).
torch::Tensor log_of_sigmoid(const torch::Tensor &x) {
  auto a = torch::log(torch::sigmoid(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log of a sigmoid is -inf where the sigmoid rounds to 0 (inputs below about -88 in float32); use log_sigmoid instead [torch-missing-epsilon]
  // CHECK-FIXES: {{^}}  auto a = torch::log_sigmoid(x);{{$}}
  auto b = torch::sigmoid(x * 2).log();
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: log of a sigmoid is -inf
  // CHECK-FIXES: {{^}}  auto b = torch::log_sigmoid(x * 2);{{$}}
  auto c = x.sigmoid().log();
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: log of a sigmoid is -inf
  return a + b + c;
}
