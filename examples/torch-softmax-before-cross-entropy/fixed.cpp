// torch-softmax-before-cross-entropy, fixed: cross_entropy gets the logits
// (it applies log_softmax itself) and nll_loss gets log_softmax output.
//
// Standalone: fixed
#include <torch/torch.h>

#include <iostream>

namespace fixed {

// The classification loss of a batch of logits (N x C) against class indices.
torch::Tensor classificationLoss(const torch::Tensor &Logits,
                                 const torch::Tensor &Targets) {
  return torch::nn::functional::cross_entropy(Logits, Targets);
}

// The same loss spelled with nll_loss.
torch::Tensor nllClassificationLoss(const torch::Tensor &Logits,
                                    const torch::Tensor &Targets) {
  return torch::nll_loss(torch::log_softmax(Logits, 1), Targets);
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  // A perfectly confident, correct prediction: the loss should be ~0.
  torch::Tensor Targets = torch::arange(10);
  torch::Tensor Logits = torch::eye(10) * 100;
  const double Loss = fixed::classificationLoss(Logits, Targets).item<double>();
  const double Nll = fixed::nllClassificationLoss(Logits, Targets).item<double>();
  std::cout << "cross_entropy: " << Loss << ", nll_loss: " << Nll << "\n";
  return Loss < 0.01 && Nll >= 0 ? 0 : 1;
}
#endif
