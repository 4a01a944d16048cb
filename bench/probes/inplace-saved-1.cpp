// Report: https://github.com/argusswift/YOLOv4-pytorch/issues/247
// What went wrong: with the ReLU activation, the residual block's `out += residual` wrote
// into ReLU's output, which ReLU saved for backward: "one of the variables needed for
// gradient computation has been modified by an inplace operation ... ReluBackward0".
// The fix was `out = out + residual`.
#include <torch/torch.h>

struct ResidualBlockImpl : torch::nn::Module {
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  ResidualBlockImpl(int64_t ch) {
    conv1 = register_module("conv1", torch::nn::Conv2d(ch, ch / 2, 1));
    conv2 = register_module("conv2", torch::nn::Conv2d(ch / 2, ch, 3));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    auto residual = x;
    auto out = torch::relu(conv1(x));
    out = torch::relu(conv2(out));
    out += residual; // EXPECT: torch-inplace-on-saved-tensor
    return out;
  }
};
TORCH_MODULE(ResidualBlock);

struct FixedBlockImpl : torch::nn::Module {
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  FixedBlockImpl(int64_t ch) {
    conv1 = register_module("conv1", torch::nn::Conv2d(ch, ch / 2, 1));
    conv2 = register_module("conv2", torch::nn::Conv2d(ch / 2, ch, 3));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    auto out = torch::relu(conv2(torch::relu(conv1(x))));
    out = out + x;
    return out;
  }
};
TORCH_MODULE(FixedBlock);

void train_step(ResidualBlock &block, torch::optim::SGD &opt, const torch::Tensor &x) {
  auto loss = block(x).pow(2).mean();
  opt.zero_grad();
  loss.backward();
  opt.step();
}
