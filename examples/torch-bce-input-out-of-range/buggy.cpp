// torch-bce-input-out-of-range, buggy: a binary classifier's loss fed the raw
// scores of its last Linear layer.
//
// binary_cross_entropy takes probabilities in [0, 1]. A Linear layer's output
// is any real value: on the CPU the loss throws "all elements of input should
// be between 0 and 1" as soon as one score leaves [0, 1]; on a GPU the kernel
// fails the assertion `input_val >= zero && input_val <= one`, reported as
// "CUDA error: device-side assert triggered". The fix-it calls
// binary_cross_entropy_with_logits, which applies the sigmoid itself, in a
// numerically stable form. The runtime test
// (test/runtime/torch-bce-input-out-of-range_test.cpp) shows both.
//
// Standalone: buggy
#include <torch/torch.h>

#include <iostream>

namespace buggy {

struct DetectorImpl : torch::nn::Module {
  DetectorImpl() : fc(register_module("fc", torch::nn::Linear(16, 1))) {}
  torch::Tensor forward(const torch::Tensor &X) { return fc(X); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Detector);

// The loss of a batch against 0/1 targets.
torch::Tensor batchLoss(Detector &Model, const torch::Tensor &Features,
                        const torch::Tensor &Targets) {
  return torch::binary_cross_entropy(Model(Features), Targets);
}

// Trains the detector for \p Steps steps on \p Device (inputs with a large
// spread, targets 0/1) and returns the last loss.
double trainedLoss(torch::Device Device, int Steps) {
  torch::manual_seed(0);
  Detector Model;
  Model->to(Device);
  torch::optim::SGD Optimizer(Model->parameters(), /*lr=*/0.01);
  const torch::Tensor Features = torch::randn({64, 16}, Device) * 10;
  const torch::Tensor Targets =
      (Features.sum(1, /*keepdim=*/true) > 0).to(torch::kFloat);
  double Loss = 0;
  for (int Step = 0; Step < Steps; ++Step) {
    Optimizer.zero_grad();
    torch::Tensor L = batchLoss(Model, Features, Targets);
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
