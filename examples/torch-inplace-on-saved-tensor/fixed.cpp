// torch-inplace-on-saved-tensor, fixed: the gate is rescaled out of place.
//
// `torch::sigmoid(...) * 2.0` makes a new tensor; the result sigmoid saved for
// its backward stays as it was, and backward() computes the gradient. (A clone
// would do too: `Gate = Gate.clone(); Gate.mul_(2.0);`.)
#include <torch/torch.h>

#include <iostream>
#include <string>

namespace fixed {

// Gates each input feature by a learned sigmoid in (0, 2).
struct GatedImpl : torch::nn::Module {
  GatedImpl() : Fc(register_module("fc", torch::nn::Linear(4, 4))) {}

  torch::Tensor forward(torch::Tensor X) {
    auto Gate = torch::sigmoid(Fc(X)) * 2.0;
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
  Loss.backward();
  return Model->Fc->weight.grad();
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  const torch::Device Device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  try {
    auto Grad = fixed::trainStep(Device);
    std::cout << "weight gradient norm " << Grad.norm().item<double>() << "\n";
    return 0;
  } catch (const std::exception &E) {
    const std::string Message = E.what(); // first line: c10 adds a backtrace
    std::cout << "failed: " << Message.substr(0, Message.find('\n')) << "\n";
    return 1;
  }
}
#endif
