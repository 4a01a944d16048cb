// The same patterns against Debian's real LibTorch headers.
// REQUIRES: libtorch
// RUN: %check_torch_tidy %s torch-class-index-out-of-range %t -- -- %libtorch_flags

#include <torch/torch.h>

namespace F = torch::nn::functional;

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(torch::nn::LinearOptions(16, 10)))) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

void positives(Net &model, const torch::Tensor &x, const torch::Tensor &invalid) {
  auto labels = torch::randint(1, 11, {16}, torch::kLong);
  auto loss = F::cross_entropy(model(x), labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: class index target can be 10, outside [0, 10) (the out_features of 'fc')
  auto target = torch::randint(0, 10, {8, 4}, torch::kLong);
  target.index_put_({invalid}, 255);
  torch::nn::CrossEntropyLoss criterion;
  auto loss2 = criterion(model(x), target);
  // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: class index target can be 255, outside [0, 10)
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(100, 8));
  auto e = emb(torch::arange(0, 101));
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: embedding index can be 100, outside [0, 100)
  auto oh = F::one_hot(torch::full({4}, 3, torch::kLong), 3);
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: one_hot input can be 3, outside [0, 3)
}

void negatives(Net &model, const torch::Tensor &x, const torch::Tensor &invalid) {
  auto labels = torch::randint(0, 10, {16}, torch::kLong);
  auto loss = F::cross_entropy(model(x), labels);
  auto target = torch::randint(0, 10, {8, 4}, torch::kLong);
  target.index_put_({invalid}, 255);
  torch::nn::CrossEntropyLoss criterion(torch::nn::CrossEntropyLossOptions().ignore_index(255));
  auto loss2 = criterion(model(x), target);
  auto loss3 = F::cross_entropy(model(x), target, F::CrossEntropyFuncOptions().ignore_index(255));
  auto loss4 = torch::nll_loss(torch::log_softmax(model(x), 1), target, {}, at::Reduction::Mean, 255);
  auto oh = F::one_hot(torch::full({4}, 3, torch::kLong));
}
