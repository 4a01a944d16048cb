// torch-softmax-over-batch-dim, buggy: a classifier's probabilities
// normalised over dimension 0 of a [batch, classes] tensor.
//
// softmax(x, 0) normalises each column: across the samples of the batch. No
// error is raised; each sample's "probabilities" do not sum to 1 and change
// when another sample of the batch changes. The runtime test
// (test/runtime/torch-softmax-over-batch-dim_test.cpp) measures both.
//
// Standalone: buggy
#include <torch/torch.h>

#include <iostream>

namespace buggy {

// The class probabilities of a batch of feature maps [batch, ...]: the
// features of each sample flattened, then a linear head.
torch::Tensor classProbabilities(torch::nn::Linear &Head,
                                 const torch::Tensor &Features) {
  return torch::softmax(Head(Features.flatten(1)), 0);
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  torch::manual_seed(0);
  torch::nn::Linear Head(12, 5);
  torch::Tensor Features = torch::randn({8, 3, 4});
  torch::Tensor Probs = buggy::classProbabilities(Head, Features);
  torch::Tensor RowSums = Probs.sum(1);
  std::cout << "per-sample sums: " << RowSums << "\n";
  return torch::allclose(RowSums, torch::ones({8})) ? 0 : 1;
}
#endif
