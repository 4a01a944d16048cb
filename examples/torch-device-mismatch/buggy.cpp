// torch-device-mismatch, buggy: a regressor moved to the training device is
// fed a batch, and its output compared with targets, that were made on the
// CPU and never moved.
//
// On a CPU-only machine the device is the CPU and everything works; on a GPU
// the forward throws "Expected all tensors to be on the same device, but
// found at least two devices, cuda:0 and cpu!". The runtime test
// (test/runtime/torch-device-mismatch_test.cpp) reproduces the error on the
// CPU build with LibTorch's `meta` device (the loss throws there), and on
// CUDA where there is one.
//
// Standalone: buggy
#include <torch/torch.h>

#include <iostream>

namespace buggy {

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
  torch::Tensor Inputs = torch::randn({8, 4});
  torch::Tensor Targets = torch::randn({8, 1});
  torch::Tensor Output = Model->forward(Inputs);
  return torch::mse_loss(Output, Targets);
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  torch::Device Device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  try {
    std::cout << "loss: " << buggy::batchLoss(Device).item<double>()
              << " on " << Device << "\n";
  } catch (const c10::Error &E) {
    std::cout << E.what_without_backtrace() << "\n";
    return 1;
  }
  return 0;
}
#endif
