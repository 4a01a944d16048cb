// Sums that reach 0: a squared distance expanded as |a|^2 - 2 a.b + |b|^2
// in any order of its terms (0 on the diagonal, below it after rounding),
// and a denominator that adds two reductions (a Dice loss's p.sum(1) +
// t.sum(1), 0 for an empty mask and an empty prediction).
// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Positive ------------------------------------------------------------------

torch::Tensor pairwiseDistance(const torch::Tensor &emb) {
  auto sq = emb.pow(2).sum(1);
  auto d2 = sq.unsqueeze(1) - 2 * emb.matmul(emb.t()) + sq.unsqueeze(0);
  return d2.pow(0.5);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: pow with a fractional exponent of a base that nothing keeps away from 0 has an infinite gradient at 0; add an epsilon to the base [torch-missing-epsilon]
  // CHECK-FIXES: {{^}}  return (d2 + 1e-8).pow(0.5);{{$}}
}

torch::Tensor pairwiseDistanceSqrt(const torch::Tensor &a, const torch::Tensor &b) {
  auto d2 = -2 * torch::matmul(a, b.t()) + a.pow(2).sum(1, true) +
            b.pow(2).sum(1).unsqueeze(0);
  return torch::sqrt(d2);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0 has an infinite gradient at 0; add an epsilon to the argument [torch-missing-epsilon]
  // CHECK-FIXES: {{^}}  return torch::sqrt(d2 + 1e-8);{{$}}
}

torch::Tensor diceLoss(const torch::Tensor &pred, const torch::Tensor &target) {
  auto p = torch::relu(pred).flatten(1);
  auto t = target.flatten(1);
  auto inter = (p * t).sum(1);
  return 1 - 2 * inter / (p.sum(1) + t.sum(1));
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: division by a sum of reductions that can be 0 gives inf or NaN; add an epsilon to the denominator or clamp it [torch-missing-epsilon]
}

// --- Negative twins ---------------------------------------------------------------

torch::Tensor pairwiseDistanceClamped(const torch::Tensor &emb) {
  auto sq = emb.pow(2).sum(1);
  auto d2 = sq.unsqueeze(1) - 2 * emb.matmul(emb.t()) + sq.unsqueeze(0);
  return d2.clamp_min(1e-12).pow(0.5);
}

// Two products: not the expansion of a squared distance.
torch::Tensor notADistance(const torch::Tensor &a, const torch::Tensor &b) {
  auto s = a.pow(2).sum(1) - torch::matmul(a, b.t()) - torch::matmul(b, a.t());
  return s;
}

torch::Tensor diceSmoothed(const torch::Tensor &pred, const torch::Tensor &target) {
  auto p = torch::relu(pred).flatten(1);
  auto t = target.flatten(1);
  auto inter = (p * t).sum(1);
  return 1 - (2 * inter + 1) / (p.sum(1) + t.sum(1) + 1);
}

// A positive reduction plus a non-negative one.
torch::Tensor positivePlusSquares(const torch::Tensor &x, const torch::Tensor &y) {
  return x / (x.exp().sum(1) + y.pow(2).sum(1));
}
