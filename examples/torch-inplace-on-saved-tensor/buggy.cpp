// torch-inplace-on-saved-tensor, buggy: forward() rescales a sigmoid gate in
// place.
//
// sigmoid's backward is computed from its result (s * (1 - s)), so autograd
// saves the result and records its version. `Gate.mul_(2.0)` writes into that
// very tensor: when the training step backpropagates, the saved tensor is at
// version 1 instead of 0 and backward() throws "one of the variables needed for
// gradient computation has been modified by an inplace operation". The runtime
// test (test/runtime/torch-inplace-on-saved-tensor_test.cpp) shows it.
#include <torch/torch.h>

#include <iostream>
#include <string>

namespace buggy {

// Gates each input feature by a learned sigmoid in (0, 2).
struct GatedImpl : torch::nn::Module {
  GatedImpl() : Fc(register_module("fc", torch::nn::Linear(4, 4))) {}

  torch::Tensor forward(torch::Tensor X) {
    auto Gate = torch::sigmoid(Fc(X));
    Gate.mul_(2.0); // sigmoid saved Gate for its backward
    return Gate * X;
  }

  torch::nn::Linear Fc;
};
TORCH_MODULE(Gated);

// One regression step. Returns the layer's weight gradient.
torch::Tensor trainStep(torch::Device Device) {
  torch::manual_seed(0);
  Gated Model;
  Model->to(Device);
  auto X = torch::randn({8, 4}, Device);
  auto Y = torch::randn({8, 4}, Device);
  auto Loss = torch::mse_loss(Model(X), Y);
  Loss.backward(); // throws: the saved sigmoid result was modified
  return Model->Fc->weight.grad();
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  const torch::Device Device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  try {
    auto Grad = buggy::trainStep(Device);
    std::cout << "weight gradient norm " << Grad.norm().item<double>() << "\n";
    return 0;
  } catch (const std::exception &E) {
    const std::string Message = E.what(); // first line: c10 adds a backtrace
    std::cout << "failed: " << Message.substr(0, Message.find('\n')) << "\n";
    return 1;
  }
}
#endif
