// Report: https://github.com/pytorch/pytorch/issues/5687
// What went wrong (in the thread): in-place ReLU followed by an in-place addition fails;
// here only in-place writes that are safe (no diagnostic expected): into outputs no
// operation saved, before any operation reads them, or after the backward pass.
// CHECKS: torch-inplace-on-saved-tensor
#include <torch/torch.h>

struct BlockImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear fc{nullptr};
  BlockImpl() {
    conv = register_module("conv", torch::nn::Conv2d(3, 8, 3));
    fc = register_module("fc", torch::nn::Linear(8, 8));
  }
  torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &bias) {
    auto y = conv(x);   // conv saves its input and weight, not its output
    y.relu_();
    auto z = fc(y.flatten(1)) + bias;   // add saves nothing
    z.mul_(2);
    return z;
  }
};
TORCH_MODULE(Block);

void step(Block &block, torch::optim::SGD &opt, const torch::Tensor &x, const torch::Tensor &b) {
  auto out = block(x, b);
  auto loss = out.pow(2).mean();
  opt.zero_grad();
  loss.backward();
  opt.step();
  out.zero_();   // after the backward pass
}

torch::Tensor scaled_input(const torch::Tensor &raw) {
  auto x = raw.clone();
  x.mul_(0.5);   // before anything reads it
  return torch::sigmoid(x);
}
