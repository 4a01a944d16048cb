// The value-range domain (utils/analysis/ValueRange.h): each rule with the
// shape real projects write it and its look-alikes that must stay silent.
// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

#include <torch/torch.h>

#include <stdexcept>

namespace F = torch::nn::functional;

// --- sums of squares of anything: a squared norm ------------------------------

// The gradient magnitude of an image: 0 on a flat image.
torch::Tensor gradient_magnitude(const torch::Tensor &img, const torch::Tensor &kx,
                                 const torch::Tensor &ky) {
  auto gx = torch::conv2d(img, kx);
  auto gy = torch::conv2d(img, ky);
  auto a = torch::sqrt(gx * gx + gy * gy);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-MESSAGES: :[[@LINE-4]]:13: note: 'gx' gets its value here
  // CHECK-FIXES: {{^}}  auto a = torch::sqrt(gx * gx + gy * gy + 1e-8);{{$}}
  auto b = (gx.pow(2) + gy.square()).sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-MESSAGES: :[[@LINE-8]]:13: note: 'gx' gets its value here
  // CHECK-FIXES: {{^}}  auto b = (gx.pow(2) + gy.square() + 1e-8).sqrt();{{$}}
  return a + b;
}

torch::Tensor gradient_magnitude_quiet(const torch::Tensor &img, const torch::Tensor &kx,
                                       const torch::Tensor &ky, double eps) {
  auto gx = torch::conv2d(img, kx);
  auto gy = torch::conv2d(img, ky);
  // Guarded, a single square of an unknown value (not a norm by its form),
  // a sum with a term of unknown sign.
  return torch::sqrt(gx * gx + gy * gy + eps) + torch::sqrt(gx * gx) +
         torch::sqrt(gx * gx + gy);
}

// --- 1 - c * c of a cosine ----------------------------------------------------

torch::Tensor angle_margin_sine(const torch::Tensor &a, const torch::Tensor &b) {
  auto c = torch::cosine_similarity(a, b, 1);
  auto s = torch::sqrt(1 - c * c);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto s = torch::sqrt(1 - c * c + 1e-8);{{$}}
  auto t = (1.0 - c.pow(2)).sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto t = (1.0 - c.pow(2) + 1e-8).sqrt();{{$}}
  return s + t;
}

torch::Tensor angle_margin_sine_quiet(const torch::Tensor &a, const torch::Tensor &b,
                                      const torch::Tensor &w) {
  auto c = torch::cosine_similarity(a, b, 1);
  // Clamped, and 1 - w * w of a value nothing bounds by 1.
  return torch::sqrt((1 - c * c).clamp_min(1e-8)) + torch::sqrt(1 - w * w) +
         torch::sqrt(1 - c.pow(3));
}

// --- acos of a cosine clamped with a margin float32 cannot represent ----------

torch::Tensor angle(const torch::Tensor &a, const torch::Tensor &b) {
  auto c = torch::cosine_similarity(a, b, 1);
  auto t = torch::acos(c.clamp(-1 + 1e-8, 1 - 1e-8));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: acos of a value that nothing keeps inside (-1, 1)
  auto u = torch::acos(c.clamp(-1 + 1e-6, 1 - 1e-6)) + torch::acos(0.999 * c);
  return t + u;
}

// --- sums of products (matmul, mm) of squared magnitudes ----------------------

// Band energies of a spectrogram: a silent frame is a row of zeros.
torch::Tensor band_energy(const torch::Tensor &spec, const torch::Tensor &fbank) {
  auto power = spec.abs().pow(2);
  auto bands = torch::matmul(power, fbank);
  auto a = torch::sqrt(bands);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-MESSAGES: :[[@LINE-3]]:16: note: 'bands' gets its value here
  // CHECK-FIXES: {{^}}  auto a = torch::sqrt(bands + 1e-8);{{$}}
  auto b = torch::log(power.mm(fbank));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log of a value that nothing keeps away from 0
  // CHECK-MESSAGES: :[[@LINE-8]]:16: note: 'power' gets its value here
  // CHECK-FIXES: {{^}}  auto b = torch::log(power.mm(fbank) + 1e-8);{{$}}
  return a + b;
}

// The local energy of an image (a box filter over squares): 0 on a black patch.
torch::Tensor local_energy(const torch::Tensor &x, const torch::Tensor &window) {
  return x / torch::sqrt(torch::conv2d(x * x, window));
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return x / torch::sqrt(torch::conv2d(x * x, window) + 1e-8);{{$}}
}

torch::Tensor local_energy_quiet(const torch::Tensor &x, const torch::Tensor &window) {
  return torch::sqrt(torch::conv2d(x, window)) +
         x / torch::sqrt(torch::conv2d(x * x, window) + 1e-6);
}

torch::Tensor band_energy_quiet(const torch::Tensor &spec, const torch::Tensor &fbank,
                                const torch::Tensor &logits) {
  auto power = spec.abs().pow(2);
  // Guarded; a product of a softmax (its rows sum to 1) and of values of
  // unknown sign; a product of positive factors.
  return torch::sqrt(torch::matmul(power, fbank) + 1e-8) +
         torch::log(torch::matmul(torch::softmax(logits, 1), fbank)) +
         torch::log(torch::matmul(spec, fbank)) +
         torch::log(torch::matmul(spec.exp(), fbank.exp()));
}

// --- division by a product of norms -------------------------------------------

torch::Tensor pairwise_cosine(const torch::Tensor &a, const torch::Tensor &b) {
  auto na = a.norm(2, 1, true);
  auto nb = b.norm(2, 1, true);
  auto dot = torch::mm(a, b.t());
  auto c = dot / torch::mm(na, nb.t());
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: division by a product of norms or reductions that can be 0
  // CHECK-MESSAGES: :[[@LINE-5]]:13: note: 'na' gets its value here
  // CHECK-FIXES: {{^}}  auto c = dot / (torch::mm(na, nb.t()) + 1e-8);{{$}}
  auto d = dot / torch::outer(a.norm(), b.norm());
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: division by a product of norms or reductions that can be 0
  // CHECK-FIXES: {{^}}  auto d = dot / (torch::outer(a.norm(), b.norm()) + 1e-8);{{$}}
  return c + d;
}

torch::Tensor pairwise_cosine_quiet(const torch::Tensor &a, const torch::Tensor &b,
                                    const torch::Tensor &w) {
  auto na = a.norm(2, 1, true);
  auto nb = b.norm(2, 1, true);
  auto dot = torch::mm(a, b.t());
  // Clamped; a product of a norm and a parameter.
  return dot / torch::mm(na, nb.t()).clamp_min(1e-8) + dot / torch::mm(na, w);
}

// --- a predicted scale that can reach 0 ----------------------------------------

torch::Tensor scale_log_likelihood(const torch::Tensor &h, const torch::Tensor &r) {
  auto scale = torch::clamp(h, 0, 10);
  auto a = torch::log(scale);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log of a value that nothing keeps away from 0
  // CHECK-MESSAGES: :[[@LINE-3]]:16: note: 'scale' gets its value here
  // CHECK-FIXES: {{^}}  auto a = torch::log(scale + 1e-8);{{$}}
  auto b = r / F::relu(h).sum(1, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: division by a sum that can be 0
  return a + b;
}

// softplus and exp are > 0 (they underflow to 0 only below about -104 in
// float32: see the docs); a clamp with a positive floor.
torch::Tensor scale_log_likelihood_quiet(const torch::Tensor &h) {
  return torch::log(F::softplus(h)) + torch::log(h.exp()) +
         torch::log(torch::clamp(h, 1e-4, 10)) + h / h.sigmoid().sum(1, true);
}

// --- path conditions -----------------------------------------------------------

torch::Tensor zero_test_else(const torch::Tensor &w, const torch::Tensor &x) {
  auto n = x.norm();
  torch::Tensor r;
  if (n.item<double>() == 0.0) {
    r = w;
  } else {
    r = w / n;
  }
  if (n.item<double>() > 0)
    r = r + w / n + torch::log(n);
  if (!(n.item<double>() == 0.0))
    r = r + w / n;
  double nv = n.item<double>();
  if (nv != 0)
    r = r + w / n;
  if (x.norm().item<double>() != 0)
    r = r + w / x.norm();
  return n.item().toDouble() == 0 ? w : w / n;
}

torch::Tensor early_exits(const torch::Tensor &w, const torch::Tensor &x,
                          double eps) {
  auto n = x.norm(2, 1, true);
  if (n.abs().min().item<float>() < eps)
    return w;
  return w / n;
}

torch::Tensor early_exit_in_a_loop(const std::vector<torch::Tensor> &xs) {
  torch::Tensor total = torch::zeros({1});
  for (const auto &x : xs) {
    auto s = x.pow(2).sum();
    if ((s == 0).any().item<bool>())
      continue;
    total = total + x / torch::sqrt(s);
  }
  return total;
}

torch::Tensor early_throw(const torch::Tensor &x) {
  auto v = x.var();
  if (v.item<double>() <= 0)
    throw std::runtime_error("constant input");
  return x / v.sqrt();
}

torch::Tensor all_positive(const torch::Tensor &w, const torch::Tensor &x) {
  auto n = x.norm(2, 1, true);
  if ((n > 0).all().item<bool>())
    return w / n;
  return w;
}

// Look-alikes: the branch where the value may be 0, a test of another value, a
// maximum (other entries can be 0), a test that does not leave.
torch::Tensor path_look_alikes(const torch::Tensor &w, const torch::Tensor &x,
                               const torch::Tensor &y) {
  torch::Tensor r = w;
  if (x.norm().item<double>() == 0.0)
    r = w / x.norm();
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: division by a norm that can be 0
  // CHECK-FIXES: {{^}}    r = w / (x.norm() + 1e-8);{{$}}
  if (y.norm().item<double>() == 0.0)
    return r;
  r = r + w / x.norm();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: division by a norm that can be 0
  // CHECK-FIXES: {{^}}  r = r + w / (x.norm() + 1e-8);{{$}}
  if (x.norm().max().item<double>() > 0)
    r = r + w / x.norm();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: division by a norm that can be 0
  // CHECK-FIXES: {{^}}    r = r + w / (x.norm() + 1e-8);{{$}}
  if (x.norm().item<double>() == 0.0) {
    r = r * 2;
  }
  return r + torch::sqrt(x.norm());
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return r + torch::sqrt(x.norm() + 1e-8);{{$}}
}

// --- rsqrt and negative powers divide by their operand --------------------------

// GCN normalisation: an isolated node has degree 0, and D^-1/2 is infinite.
torch::Tensor gcn_norm(const torch::Tensor &adj, const torch::Tensor &x) {
  auto deg = adj.sum(1);
  auto d_inv_sqrt = deg.pow(-0.5);
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: pow with a negative exponent of a sum that can be 0 is infinite at 0; add an epsilon to the argument or clamp it [torch-missing-epsilon]
  // CHECK-MESSAGES: :[[@LINE-3]]:14: note: 'deg' gets its value here
  auto inv = torch::pow(adj.sum(0), -1);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: pow with a negative exponent of a sum that can be 0 is infinite at 0
  auto r = x.norm().rsqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: rsqrt of a value that nothing keeps away from 0 is infinite at 0
  // CHECK-FIXES: {{^}}  auto r = (x.norm() + 1e-8).rsqrt();{{$}}
  return d_inv_sqrt * inv * r;
}

// Negative twins: guarded, clamped, a sum of positive values, a positive power.
torch::Tensor gcn_norm_quiet(const torch::Tensor &adj, const torch::Tensor &x,
                             double eps) {
  auto deg = adj.sum(1);
  auto a = (deg + eps).pow(-0.5);
  auto b = deg.clamp_min(1).pow(-0.5);
  auto c = x.exp().sum(1).rsqrt();
  auto d = deg.pow(2);
  auto e = torch::rsqrt(x.var() + 1e-5);
  return a + b + c + d + e;
}
