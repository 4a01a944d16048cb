// torch-class-index-out-of-range, buggy: a 10-class classifier trained on
// labels numbered from 1, as the data set's class ids are.
//
// cross_entropy takes class indices in [0, C). The labels 1..10 include 10,
// one past the last class of the 10-wide head. On the CPU the loss throws
// "Target 10 is out of bounds."; on a GPU the nll_loss kernel fails the
// assertion `t >= 0 && t < n_classes`, reported as "CUDA error: device-side
// assert triggered" at some later call, with a stack trace that points at the
// wrong line. The runtime test
// (test/runtime/torch-class-index-out-of-range_test.cpp) shows both.
//
// Standalone: buggy
#include <torch/torch.h>

#include <iostream>

namespace buggy {

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl() : fc(register_module("fc", torch::nn::Linear(16, 10))) {}
  torch::Tensor forward(const torch::Tensor &X) { return fc(X); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Classifier);

// The loss of a batch of ten samples, one per class, labelled with the data
// set's class ids 1..10.
torch::Tensor batchLoss(Classifier &Model, const torch::Tensor &Features) {
  torch::Tensor Labels = torch::arange(1, 11).to(Features.device());
  return torch::nn::functional::cross_entropy(Model(Features), Labels);
}

// Trains the classifier for \p Steps steps on \p Device and returns the last
// loss.
double trainedLoss(torch::Device Device, int Steps) {
  torch::manual_seed(0);
  Classifier Model;
  Model->to(Device);
  torch::optim::SGD Optimizer(Model->parameters(), /*lr=*/0.1);
  const torch::Tensor Features = torch::randn({10, 16}, Device);
  double Loss = 0;
  for (int Step = 0; Step < Steps; ++Step) {
    Optimizer.zero_grad();
    torch::Tensor L = batchLoss(Model, Features);
    L.backward();
    Optimizer.step();
    Loss = L.item<double>();
  }
  return Loss;
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  try {
    std::cout << "loss after 20 steps: " << buggy::trainedLoss(torch::kCPU, 20) << "\n";
    return 0;
  } catch (const std::exception &E) {
    std::cout << "error: " << E.what() << "\n";
    return 1;
  }
}
#endif
