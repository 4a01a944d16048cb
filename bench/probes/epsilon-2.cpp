// Report: https://github.com/mpariente/pytorch_stoi/issues/7
// What went wrong: gradients became NaN during training with the STOI loss; the square root
// of a zero energy was the cause, and the fix adds the epsilon before the sqrt (the existing
// EPS was added after it).
#include <torch/torch.h>

torch::Tensor row_normalize(const torch::Tensor &x) {
  const double EPS = 1e-8;
  auto centered = x - x.mean(-1, true);
  auto energy = torch::sqrt(centered.pow(2).sum(-1, true)); // EXPECT: torch-missing-epsilon
  return centered / (energy + EPS);
}

// The fixed order: epsilon under the root.
torch::Tensor row_normalize_fixed(const torch::Tensor &x) {
  const double EPS = 1e-8;
  auto centered = x - x.mean(-1, true);
  auto energy = torch::sqrt(centered.pow(2).sum(-1, true) + EPS);
  return centered / energy;
}

torch::Tensor stoi_loss(const torch::Tensor &est, const torch::Tensor &clean) {
  auto corr = (row_normalize(est) * row_normalize(clean)).sum(-1);
  return -corr.mean();
}
