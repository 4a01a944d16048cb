// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <tuple>
#include <utility>

// A module whose forward returns a pair built in place: only the element an
// operation saved (the softmax's result) is saved for the backward pass;
// `std::tie` gives each local its own element's facts (an attention block
// of an image-captioning decoder).
struct AttentionImpl : torch::nn::Module {
  AttentionImpl() : lin(register_module("lin", torch::nn::Linear(4, 1))) {}
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor enc, torch::Tensor dec);
  torch::nn::Linear lin;
};
std::pair<torch::Tensor, torch::Tensor> AttentionImpl::forward(torch::Tensor enc, torch::Tensor dec) {
  auto scores = lin->forward(torch::tanh(enc + dec)).squeeze();
  auto alpha = torch::softmax(scores, 1);
  auto weighted = enc.mul(alpha.unsqueeze(1)).sum(2);
  return {weighted, alpha};
}
TORCH_MODULE(Attention);

struct DecoderImpl : torch::nn::Module {
  DecoderImpl()
      : att(register_module("att", Attention())),
        gate_lin(register_module("g", torch::nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor enc, torch::Tensor h);
  Attention att;
  torch::nn::Linear gate_lin;
};

// The saved element written in place: the backward pass throws.
void scale_alpha(Attention &att, const torch::Tensor &enc, const torch::Tensor &h,
                 const torch::Tensor &gate) {
  torch::Tensor weighted;
  torch::Tensor alpha;
  std::tie(weighted, alpha) = att->forward(enc, h);
  alpha.mul_(gate);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: in-place 'mul_' changes a tensor that 'att' saved for the backward pass
  (weighted + alpha).sum().backward();
}

// --- Negative --------------------------------------------------------------

// The weighted sum is no operation's saved tensor: gating it in place is safe.
torch::Tensor DecoderImpl::forward(torch::Tensor enc, torch::Tensor h) {
  torch::Tensor out = torch::zeros({2, 4});
  for (int i = 0; i != 3; ++i) {
    torch::Tensor weighted;
    torch::Tensor alpha;
    std::tie(weighted, alpha) = att->forward(enc, h);
    auto gate = torch::sigmoid(gate_lin->forward(h));
    weighted.mul_(gate);
    out = out + weighted;
  }
  return out;
}
