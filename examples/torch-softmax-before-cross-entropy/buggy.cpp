// torch-softmax-before-cross-entropy, buggy: a classifier's losses fed
// probabilities instead of logits / log-probabilities.
//
// cross_entropy applies log_softmax to its input itself: given softmax output
// it applies softmax twice, so the loss can never fall below
// log(e + C - 1) - 1 (1.4611 for 10 classes) however confident the model is,
// and its gradient is several times smaller than the correct loss's.
// nll_loss expects log-probabilities: given probabilities it returns
// -mean(p[target]), which is negative and bounded by -1. The runtime test
// (test/runtime/torch-softmax-before-cross-entropy_test.cpp) measures both.
//
// Standalone: buggy
#include <torch/torch.h>

#include <iostream>

namespace buggy {

// The classification loss of a batch of logits (N x C) against class indices.
torch::Tensor classificationLoss(const torch::Tensor &Logits,
                                 const torch::Tensor &Targets) {
  return torch::nn::functional::cross_entropy(torch::softmax(Logits, 1),
                                              Targets);
}

// The same loss spelled with nll_loss.
torch::Tensor nllClassificationLoss(const torch::Tensor &Logits,
                                    const torch::Tensor &Targets) {
  return torch::nll_loss(torch::softmax(Logits, 1), Targets);
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  // A perfectly confident, correct prediction: the loss should be ~0.
  torch::Tensor Targets = torch::arange(10);
  torch::Tensor Logits = torch::eye(10) * 100;
  const double Loss = buggy::classificationLoss(Logits, Targets).item<double>();
  const double Nll = buggy::nllClassificationLoss(Logits, Targets).item<double>();
  std::cout << "cross_entropy: " << Loss << " (floor 1.4611), nll_loss: " << Nll
            << "\n";
  return Loss < 0.01 && Nll >= 0 ? 0 : 1;
}
#endif
