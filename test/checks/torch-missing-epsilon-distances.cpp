// Squared distances expanded as |a|^2 + |b|^2 - 2 a.b (pairwise distances for
// triplet or contrastive losses): exactly 0 between a point and itself, and
// rounding takes the diagonal slightly below 0, so sqrt gives an infinite
// gradient or NaN there.
// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Positive ------------------------------------------------------------------

torch::Tensor pairwise(const torch::Tensor &emb) {
  auto sq = emb.pow(2).sum(1, true);
  auto d2 = sq + sq.t() - 2 * torch::matmul(emb, emb.t());
  return torch::sqrt(d2);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0 has an infinite gradient at 0; add an epsilon to the argument [torch-missing-epsilon]
  // CHECK-MESSAGES: :[[@LINE-3]]:13: note: 'd2' gets its value here
  // CHECK-FIXES: {{^}}  return torch::sqrt(d2 + 1e-8);{{$}}
}

torch::Tensor crossDistances(const torch::Tensor &a, const torch::Tensor &b) {
  auto aa = (a * a).sum(1, true);
  auto bb = (b * b).sum(1, true).t();
  return (aa + bb - a.mm(b.t()) * 2.0).sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: sqrt of a value that nothing keeps away from 0 has an infinite gradient at 0; add an epsilon to the argument [torch-missing-epsilon]
  // CHECK-FIXES: {{^}}  return (aa + bb - a.mm(b.t()) * 2.0 + 1e-8).sqrt();{{$}}
}

// --- Negative twins ---------------------------------------------------------------

torch::Tensor pairwiseClamped(const torch::Tensor &emb) {
  auto sq = emb.pow(2).sum(1, true);
  auto d2 = sq + sq.t() - 2 * torch::matmul(emb, emb.t());
  return torch::sqrt(d2.clamp_min(1e-12));
}

torch::Tensor pairwiseEps(const torch::Tensor &emb) {
  auto sq = emb.pow(2).sum(1, true);
  auto d2 = sq + sq.t() - 2 * torch::matmul(emb, emb.t());
  return torch::sqrt(d2 + 1e-12);
}

// A squared distance that is not taken a root of.
torch::Tensor pairwiseSquared(const torch::Tensor &emb) {
  auto sq = emb.pow(2).sum(1, true);
  return sq + sq.t() - 2 * torch::matmul(emb, emb.t());
}
