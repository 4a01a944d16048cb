// Report: https://github.com/pytorch/pytorch/issues/4320
// What went wrong: std() has NaN gradients when all inputs are equal (std = 0); normalising
// a constant input by its standard deviation poisons training.
#include <torch/torch.h>

struct InstanceStandardizeImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) {
    auto mu = x.mean();
    return (x - mu) / x.std(); // EXPECT: torch-missing-epsilon
  }
};
TORCH_MODULE(InstanceStandardize);

struct SafeStandardizeImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) {
    return (x - x.mean()) / (x.std() + 1e-5);
  }
};
TORCH_MODULE(SafeStandardize);
