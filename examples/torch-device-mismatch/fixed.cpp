// torch-device-mismatch, fixed: the batch and its targets are moved to the
// device the regressor was moved to, so the forward and the loss run on one
// device wherever the program runs.
//
// Standalone: fixed
#include <torch/torch.h>

#include <iostream>

namespace fixed {

// A linear regressor, y = X w + b, whose parameters are created with the
// given options (on the CPU by default).
struct RegressorImpl : torch::nn::Module {
  explicit RegressorImpl(const torch::TensorOptions &Options = {}) {
    W = register_parameter("w", torch::randn({4, 1}, Options));
    B = register_parameter("b", torch::zeros({1}, Options));
  }
  torch::Tensor forward(const torch::Tensor &X) { return X.matmul(W) + B; }
  torch::Tensor W, B;
};
TORCH_MODULE(Regressor);

// The loss of one batch of a fresh regressor, computed on the given device
// (the regressor's parameters are created with ParameterOptions, then moved).
torch::Tensor batchLoss(torch::Device Device,
                        const torch::TensorOptions &ParameterOptions = {}) {
  Regressor Model(ParameterOptions);
  Model->to(Device);
  torch::Tensor Inputs = torch::randn({8, 4}).to(Device);
  torch::Tensor Targets = torch::randn({8, 1}, torch::device(Device));
  torch::Tensor Output = Model->forward(Inputs);
  return torch::mse_loss(Output, Targets);
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  torch::Device Device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  try {
    std::cout << "loss: " << fixed::batchLoss(Device).item<double>()
              << " on " << Device << "\n";
  } catch (const c10::Error &E) {
    std::cout << E.what_without_backtrace() << "\n";
    return 1;
  }
  return 0;
}
#endif
