// Report: https://github.com/pytorch/pytorch/issues/25761
// The fix from the thread: assign the result of `.to`. Correct look-alikes only (no
// diagnostic expected): assigned results, in-place forms, results passed on or returned.
// CHECKS: torch-discarded-tensor-result
#include <torch/torch.h>

torch::Tensor preprocess(torch::Tensor img, torch::Device device) {
  img = img.to(device);
  img.mul_(1.0 / 255);
  img.clamp_(0, 1);
  img.unsqueeze_(0);
  return img.contiguous();
}

void sgd_update(std::vector<torch::Tensor> params, double lr) {
  torch::NoGradGuard no_grad;
  for (auto &p : params)
    p.sub_(p.grad() * lr);
}

void log_tensor(const torch::Tensor &t);
void report(const torch::Tensor &x) {
  log_tensor(x.detach().cpu());
  auto m = x.max();
  (void)m;
}
