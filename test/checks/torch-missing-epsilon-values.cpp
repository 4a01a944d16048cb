// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

// Values one statement at a time: a variable holds what its last write on the
// path gives it; sums, means and products of terms not known to be strictly
// positive can be 0; products of normalised vectors are cosines.

#include <torch/torch.h>

namespace F = torch::nn::functional;

// --- the last write on the path --------------------------------------------------

// A hand-written norm that reuses its parameter.
torch::Tensor norm_in_place(torch::Tensor x) {
  x = torch::mul(x, x);
  x = x.sum(1);
  return torch::sqrt(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return torch::sqrt(x + 1e-8);{{$}}
}

torch::Tensor norm_in_place_guarded(torch::Tensor x) {
  x = torch::mul(x, x);
  x = x.sum(1);
  x = x + 1e-8;
  return torch::sqrt(x);
}

// The declaration's value is replaced: `a` was a parameter, nothing was known.
torch::Tensor reassigned_local(const torch::Tensor &a) {
  auto x = a;
  x = x * x;
  x = x.sum(1);
  return x.sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return (x + 1e-8).sqrt();{{$}}
}

torch::Tensor parameter_never_written(torch::Tensor x) {
  auto y = x.sum(1);
  return torch::sqrt(x) + y;
}

// Updates in place: compound assignment and in-place methods.
torch::Tensor compound_guard(const torch::Tensor &a) {
  auto x = a.pow(2).sum(1);
  x += 1e-8;
  return x.sqrt();
}

torch::Tensor compound_scale(const torch::Tensor &a) {
  auto x = a.pow(2).sum(1);
  x *= 2;
  return x.sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return (x + 1e-8).sqrt();{{$}}
}

torch::Tensor in_place_guards(const torch::Tensor &a, const torch::Tensor &b) {
  auto x = a.pow(2).sum(1);
  x.add_(1e-8);
  auto y = (a - b).abs().sum(1);
  y.clamp_min_(1e-8);
  return x.sqrt() + torch::log(y);
}

torch::Tensor in_place_relu(const torch::Tensor &a) {
  auto y = a.sum(1);
  y.clamp_min_(0);
  return torch::log(y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return torch::log(y + 1e-8);{{$}}
}

// A write on one branch joins with the value before it.
torch::Tensor branch_scales(const torch::Tensor &a, bool twice) {
  auto x = (a * a).sum(1);
  if (twice)
    x = x * 2;
  return torch::sqrt(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  return torch::sqrt(x + 1e-8);{{$}}
}

torch::Tensor both_branches_guard(const torch::Tensor &a, bool wide) {
  auto x = (a * a).sum(1);
  if (wide)
    x = x + 1e-4;
  else
    x = x + 1e-8;
  return torch::sqrt(x);
}

// In a loop, the write earlier in the body is what the use reads, whatever
// the value before the loop was.
torch::Tensor loop_reassigns(const torch::Tensor &a, int steps) {
  auto x = a.pow(2).sum(1) + 1e-8;
  torch::Tensor out = a;
  for (int i = 0; i < steps; ++i) {
    x = (out * out).sum(1);
    out = out + torch::sqrt(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: sqrt of a value that nothing keeps away from 0
    // CHECK-FIXES: {{^}}    out = out + torch::sqrt(x + 1e-8);{{$}}
  }
  return out;
}

torch::Tensor loop_reassigns_guarded(const torch::Tensor &a, int steps) {
  auto x = a.pow(2).sum(1);
  torch::Tensor out = a;
  for (int i = 0; i < steps; ++i) {
    x = (out * out).sum(1) + 1e-8;
    out = out + torch::sqrt(x);
  }
  return out;
}

// A write later in the loop body reaches the next iteration: a guarded value
// before the loop and a reduction after the use join to nothing known.
torch::Tensor loop_carried_write(const torch::Tensor &a, int steps) {
  auto x = a.pow(2).sum(1) + 1e-8;
  torch::Tensor out = a;
  for (int i = 0; i < steps; ++i) {
    out = out + torch::sqrt(x);
    x = (out * out).sum(1);
  }
  return out;
}

// A guard written after the use does not reach it.
torch::Tensor guarded_too_late(const torch::Tensor &a) {
  auto x = a.pow(2).sum(1);
  auto r = x.sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto r = (x + 1e-8).sqrt();{{$}}
  x = x + 1e-8;
  return r + x.sqrt();
}

// --- sums, means and products as denominators ------------------------------------

torch::Tensor by_sum(const torch::Tensor &a, const torch::Tensor &b) {
  return a / b.sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: division by a sum that can be 0
}

torch::Tensor by_mean(const torch::Tensor &a, const torch::Tensor &w) {
  return torch::div(a, torch::mean(w));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: division by a mean that can be 0
}

torch::Tensor by_product(const torch::Tensor &x, const torch::Tensor &n) {
  auto r = x;
  r /= (n.prod());
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: division by a product that can be 0
  return r;
}

torch::Tensor by_strictly_positive_terms(const torch::Tensor &a,
                                         const torch::Tensor &b) {
  auto s = a / b.exp().sum();
  auto m = a / F::softplus(b).mean();
  auto p = a / (b.pow(2) + 1e-8).prod();
  auto c = a.div(b.abs().clamp_min(1e-6).sum(1, true));
  return s + m + p + c;
}

torch::Tensor by_guarded_or_constant(const torch::Tensor &a,
                                     const torch::Tensor &b) {
  auto e = a / (b.sum() + 1e-8);
  auto n = a / a.size(0);
  auto l = a / 255.0;
  auto t = b.sum();
  if (t.item<double>() != 0)
    l = l / t;
  return e + n + l;
}

// A masked average: the numerator is weighted by the terms of the sum.
torch::Tensor masked_average(const torch::Tensor &loss, const torch::Tensor &mask) {
  return (loss * mask).sum() / mask.sum();
}

// --- cosines ---------------------------------------------------------------------

torch::Tensor angle_of_normalised_rows(const torch::Tensor &a, const torch::Tensor &b) {
  auto cosines = torch::linear(F::normalize(a), F::normalize(b));
  return torch::acos(cosines);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: acos of a value that nothing keeps inside (-1, 1)
  // CHECK-FIXES: {{^}}  return torch::acos(cosines.clamp(-1 + 1e-6, 1 - 1e-6));{{$}}
}

torch::Tensor sine_of_normalised_rows(const torch::Tensor &a, const torch::Tensor &b) {
  auto c = torch::mm(F::normalize(a), F::normalize(b).t());
  auto s = torch::sqrt(1 - c.pow(2));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  auto s = torch::sqrt(1 - c.pow(2) + 1e-8);{{$}}
  return s + c.asin();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: asin of a value that nothing keeps inside (-1, 1)
  // CHECK-FIXES: {{^}}  return s + c.clamp(-1 + 1e-6, 1 - 1e-6).asin();{{$}}
}

torch::Tensor cosine_clamped(const torch::Tensor &a, const torch::Tensor &b) {
  auto c = torch::linear(F::normalize(a), F::normalize(b));
  c = c.clamp(-1 + 1e-6, 1 - 1e-6);
  auto d = torch::mm(F::normalize(a), F::normalize(b).t());
  d.clamp_(-1 + 1e-6, 1 - 1e-6);
  return torch::acos(c) + torch::asin(d) + torch::sqrt(1 - c * c + 1e-8);
}

// Products of vectors that are not normalised are not cosines.
torch::Tensor not_normalised(const torch::Tensor &a, const torch::Tensor &b) {
  return torch::acos(torch::linear(a, b)) + torch::acos(torch::mm(a, b.t()));
}

// A square written out twice: `(x - m) * (x - m)` is a square like `d * d`.
torch::Tensor standardizeWrittenTwice(const torch::Tensor &x) {
  auto m = x.mean(0);
  auto var = ((x - m) * (x - m)).mean(0);
  return (x - m) / torch::sqrt(var);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: sqrt of a value that nothing keeps away from 0
}

// Two draws are two values, not a square: nothing is known about their
// product.
torch::Tensor twoDraws() {
  auto p = (torch::rand({3}) - 0.5) * (torch::rand({3}) - 0.5);
  return torch::sqrt(p.mean(0));
}

// A sum of squares accumulated from a tensor of zeros.
torch::Tensor featureNorm(const std::vector<torch::Tensor> &feats) {
  auto sq = torch::zeros({4});
  for (const auto &f : feats)
    sq = sq + f.pow(2).sum(1);
  return torch::sqrt(sq);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0 has an infinite gradient at 0; add an epsilon to the argument [torch-missing-epsilon]
  // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'sq' gets its value here
}

// Negative: the same with an epsilon.
torch::Tensor featureNormEps(const std::vector<torch::Tensor> &feats) {
  auto sq = torch::zeros({4});
  for (const auto &f : feats)
    sq = sq + f.pow(2).sum(1);
  return torch::sqrt(sq + 1e-8);
}

// --- acos/asin of a value computed here ------------------------------------------

// A value computed by tensor arithmetic and handed to acos is meant to be a
// cosine: the geodesic distance of two rotations, (trace(R1^T R2) - 1) / 2,
// is 1 for equal rotations (and rounds past it).
torch::Tensor geodesic(const torch::Tensor &r1, const torch::Tensor &r2) {
  auto m = torch::bmm(r1.transpose(1, 2), r2);
  auto tr = m.diagonal(0, 1, 2).sum(-1);
  auto cos = (tr - 1) / 2;
  return torch::acos(cos).mean();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: acos of a value that nothing keeps inside (-1, 1) has an infinite gradient at -1 and 1; clamp the argument to [-1 + eps, 1 - eps] [torch-missing-epsilon]
  // CHECK-MESSAGES: :[[@LINE-3]]:14: note: 'cos' gets its value here
}

// Negative twins: clamped inside, scaled below 1, a parameter as it is, and
// fresh random values (uniform sampling on a sphere), which are not data.
torch::Tensor geodesic_quiet(const torch::Tensor &r1, const torch::Tensor &r2,
                             const torch::Tensor &given) {
  auto tr = torch::bmm(r1.transpose(1, 2), r2).diagonal(0, 1, 2).sum(-1);
  auto cos = ((tr - 1) / 2).clamp(-1 + 1e-6, 1 - 1e-6);
  auto u = torch::rand({16});
  auto theta = torch::acos(1 - 2 * u);
  return torch::acos(cos) + torch::asin((tr - 1) * 0.4999) + torch::acos(given) +
         theta.sum();
}
