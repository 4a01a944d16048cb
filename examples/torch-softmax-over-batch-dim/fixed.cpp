// torch-softmax-over-batch-dim, fixed: the class probabilities of each sample
// are normalised over the class dimension of [batch, classes].
//
// Each row sums to 1 and depends on its own sample only. The runtime test
// (test/runtime/torch-softmax-over-batch-dim_test.cpp) measures both.
//
// Standalone: fixed
#include <torch/torch.h>

#include <iostream>

namespace fixed {

// The class probabilities of a batch of feature maps [batch, ...]: the
// features of each sample flattened, then a linear head.
torch::Tensor classProbabilities(torch::nn::Linear &Head,
                                 const torch::Tensor &Features) {
  return torch::softmax(Head(Features.flatten(1)), 1);
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  torch::manual_seed(0);
  torch::nn::Linear Head(12, 5);
  torch::Tensor Features = torch::randn({8, 3, 4});
  torch::Tensor Probs = fixed::classProbabilities(Head, Features);
  torch::Tensor RowSums = Probs.sum(1);
  std::cout << "per-sample sums: " << RowSums << "\n";
  return torch::allclose(RowSums, torch::ones({8})) ? 0 : 1;
}
#endif
