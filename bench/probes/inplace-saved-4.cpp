// Report: https://github.com/lyongo/NWPU-MOC/issues/4
// What went wrong: the FPN head's top-down pass did `laterals[i - 1] += F.interpolate(
// laterals[i], ...)`, an in-place add into ReLU outputs saved for backward ("output 0 of
// ReluBackward0 ... modified by an inplace operation"); the fix replaced += with =.
#include <torch/torch.h>

torch::Tensor upsample_like(const torch::Tensor &x, const torch::Tensor &ref);

struct FPNHeadImpl : torch::nn::Module {
  std::vector<torch::nn::Conv2d> lateral_convs;
  FPNHeadImpl() {
    for (int i = 0; i < 4; ++i)
      lateral_convs.push_back(register_module("lat" + std::to_string(i), torch::nn::Conv2d(256, 128, 1)));
  }
  torch::Tensor forward(const std::vector<torch::Tensor> &feats) {
    std::vector<torch::Tensor> laterals;
    for (size_t i = 0; i < feats.size(); ++i)
      laterals.push_back(torch::relu(lateral_convs[i](feats[i])));
    for (size_t i = laterals.size() - 1; i > 0; --i)
      laterals[i - 1] += upsample_like(laterals[i], laterals[i - 1]); // EXPECT: torch-inplace-on-saved-tensor
    return laterals[0];
  }
};
TORCH_MODULE(FPNHead);
