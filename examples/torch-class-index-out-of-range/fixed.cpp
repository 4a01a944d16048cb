// torch-class-index-out-of-range, fixed: the class ids mapped to 0-based
// indices before the loss.
//
// The labels 1..10 shifted to 0..9 are the head's class indices: the loss is
// finite on the CPU and on a GPU, and training lowers it.
//
// Standalone: fixed
#include <torch/torch.h>

#include <iostream>

namespace fixed {

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl() : fc(register_module("fc", torch::nn::Linear(16, 10))) {}
  torch::Tensor forward(const torch::Tensor &X) { return fc(X); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Classifier);

// The loss of a batch of ten samples, one per class, labelled with the data
// set's class ids 1..10, shifted to the indices 0..9.
torch::Tensor batchLoss(Classifier &Model, const torch::Tensor &Features) {
  torch::Tensor Labels = torch::arange(1, 11).to(Features.device()) - 1;
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

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  try {
    std::cout << "loss after 20 steps: " << fixed::trainedLoss(torch::kCPU, 20) << "\n";
    return 0;
  } catch (const std::exception &E) {
    std::cout << "error: " << E.what() << "\n";
    return 1;
  }
}
#endif
