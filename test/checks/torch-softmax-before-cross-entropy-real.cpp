// The same patterns against Debian's real LibTorch headers; the fixed file
// must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-softmax-before-cross-entropy %t -- -- %libtorch_flags

#include <torch/torch.h>

namespace F = torch::nn::functional;

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 3))) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// The MNIST example's shape: log_softmax in forward, nll_loss outside.
struct MnistImpl : torch::nn::Module {
  MnistImpl() : fc(register_module("fc", torch::nn::Linear(4, 3))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc->forward(x));
    return torch::log_softmax(x, /*dim=*/1);
  }
  torch::nn::Linear fc;
};
TORCH_MODULE(Mnist);

void losses(Net &net, Mnist &mnist, torch::nn::CrossEntropyLoss &ce,
            torch::nn::NLLLoss &nll, const torch::Tensor &x, const torch::Tensor &y) {
  auto logits = net->forward(x);
  auto a = F::cross_entropy(torch::softmax(logits, 1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-FIXES: {{^}}  auto a = F::cross_entropy(logits, y);{{$}}
  auto b = ce(logits.softmax(1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: cross_entropy applied to softmax output
  // CHECK-FIXES: {{^}}  auto b = ce(logits, y);{{$}}
  auto c = torch::cross_entropy_loss(F::log_softmax(logits, F::LogSoftmaxFuncOptions(1)), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: cross_entropy applies log_softmax itself, so the log_softmax before it is redundant; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-FIXES: {{^}}  auto c = torch::cross_entropy_loss(logits, y);{{$}}
  auto d = torch::nll_loss(torch::softmax(logits, 1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: nll_loss applied to softmax output takes probabilities for log-probabilities, so the loss goes negative and stops training; use log_softmax [torch-softmax-before-cross-entropy]
  // CHECK-FIXES: {{^}}  auto d = torch::nll_loss(torch::log_softmax(logits, 1), y);{{$}}
  auto e = nll->forward(logits.softmax(1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: nll_loss applied to softmax output
  // CHECK-FIXES: {{^}}  auto e = nll->forward(logits.log_softmax(1), y);{{$}}
  auto f = F::nll_loss(net(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: nll_loss applied to raw scores without log_softmax takes them for log-probabilities, so the loss is unbounded below; apply log_softmax first or use cross_entropy [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-36]]:58: note: raw scores computed here
  auto probs = F::softmax(logits, F::SoftmaxFuncOptions(1));
  auto g = F::cross_entropy(probs, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: cross_entropy applied to softmax output
  // CHECK-MESSAGES: :[[@LINE-3]]:16: note: softmax applied here

  // Not flagged.
  auto h = F::cross_entropy(logits, y) + ce(net(x), y);
  auto i = torch::nll_loss(mnist->forward(x), y) + nll(torch::log_softmax(logits, 1), y);
  auto accuracy = probs.argmax(1).eq(y).sum();
}
