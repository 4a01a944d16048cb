// Report: https://github.com/Alibaba-MIIL/ASL/pull/6
// What went wrong: the asymmetric loss took log() of sigmoid probabilities; large logits
// made a probability exactly 0 and the loss inf/NaN. The fix clamps with an epsilon first.
#include <torch/torch.h>

torch::Tensor asymmetric_loss(const torch::Tensor &logits, const torch::Tensor &y) {
  auto xs_pos = torch::sigmoid(logits);
  auto xs_neg = 1 - xs_pos;
  auto los_pos = y * torch::log(xs_pos); // EXPECT: torch-missing-epsilon
  auto los_neg = (1 - y) * torch::log(xs_neg); // EXPECT: torch-missing-epsilon
  return -(los_pos + los_neg).sum();
}

// The fix from the PR.
torch::Tensor asymmetric_loss_fixed(const torch::Tensor &logits, const torch::Tensor &y,
                                    double eps = 1e-8) {
  auto xs_pos = torch::sigmoid(logits);
  auto xs_neg = 1 - xs_pos;
  auto los_pos = y * torch::log(xs_pos.clamp_min(eps));
  auto los_neg = (1 - y) * torch::log(xs_neg.clamp_min(eps));
  return -(los_pos + los_neg).sum();
}
