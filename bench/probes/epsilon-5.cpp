// Report: https://github.com/NVIDIA/apex/issues/358
// What went wrong (in the thread): a hand-written focal/BCE loss produced NaN from log(0);
// the suggested fix clamps the predictions into [eps, 1 - eps] before the logs. Correct
// look-alikes only (no diagnostic expected).
// CHECKS: torch-missing-epsilon
#include <torch/torch.h>

torch::Tensor focal_bce(torch::Tensor y_pred, const torch::Tensor &y_true, double gamma) {
  const double eps = 1e-8;
  y_pred = torch::clamp(y_pred, eps, 1 - eps);
  auto loss = (y_true * torch::pow(1 - y_pred, gamma) * torch::log(y_pred) +
               (1 - y_true) * torch::pow(y_pred, gamma) * torch::log(1 - y_pred));
  return -loss.sum() / y_pred.size(0);
}

// log of a sigmoid through the stable primitive.
torch::Tensor bce_with_logits(const torch::Tensor &logits, const torch::Tensor &y) {
  return -(y * torch::log_sigmoid(logits) + (1 - y) * torch::log_sigmoid(-logits)).mean();
}

// sqrt of a strictly positive argument.
torch::Tensor rms(const torch::Tensor &x) { return torch::sqrt(x.pow(2).mean() + 1e-6); }

// division by a count, not by a reduction of the data.
torch::Tensor average(const torch::Tensor &x) { return x.sum() / x.numel(); }
