// Report: https://github.com/Jee-King/TSAN/issues/3
// What went wrong: `out = x` made `out` share x's tensor, and the in-place update of `out`
// modified a tensor saved for backward; the fix was `out = x.clone()`.
#include <torch/torch.h>

struct GatedAttentionImpl : torch::nn::Module {
  torch::nn::Linear gate{nullptr}, value{nullptr};
  GatedAttentionImpl() {
    gate = register_module("gate", torch::nn::Linear(32, 32));
    value = register_module("value", torch::nn::Linear(32, 32));
  }
  torch::Tensor forward(const torch::Tensor &h, const torch::Tensor &mask) {
    auto attn = torch::sigmoid(gate(h));
    auto v = value(h) * attn;
    auto out = attn;
    out.mul_(mask); // EXPECT: torch-inplace-on-saved-tensor
    return v + out;
  }
};
TORCH_MODULE(GatedAttention);

struct GatedAttentionFixedImpl : torch::nn::Module {
  torch::nn::Linear gate{nullptr}, value{nullptr};
  GatedAttentionFixedImpl() {
    gate = register_module("gate", torch::nn::Linear(32, 32));
    value = register_module("value", torch::nn::Linear(32, 32));
  }
  torch::Tensor forward(const torch::Tensor &h, const torch::Tensor &mask) {
    auto attn = torch::sigmoid(gate(h));
    auto v = value(h) * attn;
    auto out = attn.clone();
    out.mul_(mask);
    return v + out;
  }
};
TORCH_MODULE(GatedAttentionFixed);
