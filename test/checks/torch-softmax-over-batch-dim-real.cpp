// The same patterns against Debian's real LibTorch headers; the fixed file
// must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-softmax-over-batch-dim %t -- -- %libtorch_flags

#include <torch/torch.h>

namespace F = torch::nn::functional;

struct MlpImpl : torch::nn::Module {
  MlpImpl()
      : fc(register_module("fc", torch::nn::Linear(784, 10))),
        drop(register_module("drop", torch::nn::Dropout(0.5))) {}
  torch::Tensor forward(const torch::Tensor &x) {
    return fc(drop(torch::relu(x.view({x.size(0), 784}))));
  }
  torch::nn::Linear fc;
  torch::nn::Dropout drop;
};
TORCH_MODULE(Mlp);

struct HeadImpl : torch::nn::Module {
  HeadImpl() {
    fc = register_module("fc", torch::nn::Linear(64, 10));
    probs = register_module("probs",
                            torch::nn::Softmax(torch::nn::SoftmaxOptions(0)));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    return probs(fc(x.flatten(1)));
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: softmax over dimension 0, the batch dimension, normalises across the samples of the batch; use the class dimension (1 or -1) [torch-softmax-over-batch-dim]
    // CHECK-MESSAGES: :[[@LINE-5]]:29: note: the softmax module is made over dimension 0 here
    // CHECK-MESSAGES: :[[@LINE-3]]:21: note: dimension 0 indexes the samples: every other dimension is flattened here
  }
  torch::nn::Linear fc{nullptr};
  torch::nn::Softmax probs{nullptr};
};
TORCH_MODULE(Head);

void train(Mlp &mlp, torch::nn::Linear &fc, int runtime_dim) {
  auto dataset = torch::data::datasets::MNIST("./data")
                     .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto &batch : *loader) {
    auto out = mlp->forward(batch.data);
    auto a = torch::softmax(out, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension
    // CHECK-MESSAGES: :[[@LINE-3]]:29: note: dimension 0 indexes the samples of this data loader batch
    // CHECK-FIXES: {{^}}    auto a = torch::softmax(out, 1);{{$}}
    auto b = out.log_softmax(0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: log_softmax over dimension 0, the batch dimension
    // CHECK-FIXES: {{^}}    auto b = out.log_softmax(1);{{$}}
    auto c = F::log_softmax(out, F::LogSoftmaxFuncOptions(-2));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: log_softmax over dimension -2, the batch dimension
    // CHECK-FIXES: {{^}}    auto c = F::log_softmax(out, F::LogSoftmaxFuncOptions(1));{{$}}
    auto d = at::softmax(fc(batch.data.flatten(1)), 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension
    // CHECK-FIXES: {{^}}    auto d = at::softmax(fc(batch.data.flatten(1)), 1);{{$}}
    torch::nn::LogSoftmax log_probs(torch::nn::LogSoftmaxOptions(0));
    auto e = log_probs(out);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: log_softmax over dimension 0, the batch dimension
    // CHECK-MESSAGES: :[[@LINE-3]]:27: note: the log_softmax module is made over dimension 0 here

    // --- Negative
    auto n1 = torch::softmax(out, 1);
    auto n2 = torch::softmax(out, -1);
    auto n3 = torch::softmax(out, runtime_dim);
    auto n4 = torch::softmax(out[0], 0);
    auto n5 = torch::softmax(out.select(0, 1), 0);
    auto n6 = torch::softmax(out.sum(1), 0);
    auto n7 = torch::softmax(out.t(), 0);
    auto n8 = torch::softmax(out.transpose(0, 1), 0);
    auto n9 = torch::softmax(out.permute({1, 0}), 0);
    auto n10 = torch::softmax(batch.data, -2);
  }
  auto f = torch::softmax(torch::randn({4, 10}), 0);
  auto g = torch::softmax(torch::randn({10}), 0);
}
