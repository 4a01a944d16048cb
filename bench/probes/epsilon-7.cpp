// Report: https://github.com/pytorch/pytorch/issues/44452
// What went wrong: a norm with 0 < p < 1 in the loss made backward fail with "Function
// 'NormBackward1' returned nan values": the gradient of |x|^p is infinite at x = 0.
#include <torch/torch.h>

torch::Tensor sparsity_penalty(const std::vector<torch::Tensor> &weights) {
  std::vector<torch::Tensor> terms;
  for (const auto &w : weights)
    terms.push_back(w.abs().pow(0.5).sum()); // EXPECT: torch-missing-epsilon
  return torch::stack(terms).sum();
}

torch::Tensor sparsity_penalty_fixed(const std::vector<torch::Tensor> &weights) {
  std::vector<torch::Tensor> terms;
  for (const auto &w : weights)
    terms.push_back((w.abs() + 1e-6).pow(0.5).sum());
  return torch::stack(terms).sum();
}
