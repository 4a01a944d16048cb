// The same patterns against Debian's real LibTorch headers.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-optimizer-created-in-loop %t -- -- %libtorch_flags

#include <torch/torch.h>

#include <memory>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

void per_epoch(Net &net, const Batches &batches) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::optim::AdamW opt(net->parameters(), torch::optim::AdamWOptions(1e-3));
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: optimizer constructed inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop [torch-optimizer-created-in-loop]
    // CHECK-MESSAGES: :[[@LINE-4]]:21: note: its parameters come from 'net', which outlives the loop
    for (const auto &batch : batches) {
      opt.zero_grad();
      torch::mse_loss(net(batch.first), batch.second).backward();
      opt.step();
    }
  }
  for (const auto &batch : batches) {
    auto opt = std::make_unique<torch::optim::SGD>(
        net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    // CHECK-MESSAGES: :[[@LINE-2]]:16: warning: optimizer constructed inside the training loop
    opt->zero_grad();
    torch::mse_loss(net(batch.first), batch.second).backward();
    opt->step();
  }
}

void fine(Net &net, const Batches &batches, const std::vector<Batches> &folds) {
  torch::optim::Adagrad once(net->parameters());
  for (const auto &batch : batches) {
    once.zero_grad();
    torch::mse_loss(net(batch.first), batch.second).backward();
    once.step();
  }
  for (const Batches &fold : folds) {
    Net fresh;
    torch::optim::RMSprop opt(fresh->parameters());
    for (const auto &batch : fold) {
      opt.zero_grad();
      torch::mse_loss(fresh(batch.first), batch.second).backward();
      opt.step();
    }
  }
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::optim::SGD plain(net->parameters(), torch::optim::SGDOptions(0.1 / (epoch + 1)));
    for (const auto &batch : batches) {
      plain.zero_grad();
      torch::mse_loss(net(batch.first), batch.second).backward();
      plain.step();
    }
  }
  std::unique_ptr<torch::optim::Adam> lazy;
  for (const auto &batch : batches) {
    if (!lazy)
      lazy = std::make_unique<torch::optim::Adam>(net->parameters());
    lazy->zero_grad();
    torch::mse_loss(net(batch.first), batch.second).backward();
    lazy->step();
  }
}
