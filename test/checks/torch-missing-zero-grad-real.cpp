// The same patterns against Debian's real LibTorch headers.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-missing-zero-grad %t -- -- %libtorch_flags

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

void never_cleared(Net &net, const Batches &batches) {
  torch::optim::Adam opt(net->parameters());
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net(batch.first), batch.second);
    loss.backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that never clears gradients: each backward() adds to the gradients of all earlier iterations; call zero_grad() on the optimizer in every iteration before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: gradients accumulate across iterations here
  }
}

template <typename Model> struct Trainer {
  Model model;
  torch::optim::SGD opt{model->parameters(), torch::optim::SGDOptions(0.1)};
  void fit(const Batches &batches) {
    for (const auto &batch : batches) {
      torch::mse_loss(model->forward(batch.first), batch.second).backward();
      opt.step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer step in a training loop that never clears gradients
      // CHECK-MESSAGES: :[[@LINE-3]]:7: note: gradients accumulate
    }
  }
};
template struct Trainer<Net>;

void cleared(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  for (const auto &batch : batches) {
    opt.zero_grad();
    torch::mse_loss(net(batch.first), batch.second).backward();
    opt.step();
  }
  for (const auto &batch : batches) {
    net->zero_grad(/*set_to_none=*/true);
    torch::mse_loss(net(batch.first), batch.second).backward();
    opt.step();
  }
  for (const auto &batch : batches) {
    for (auto &p : net->parameters())
      if (p.grad().defined())
        p.mutable_grad().zero_();
    torch::mse_loss(net(batch.first), batch.second).backward();
    opt.step();
  }
  for (const auto &batch : batches) {
    for (auto &p : net->parameters())
      p.mutable_grad().reset();
    torch::mse_loss(net(batch.first), batch.second).backward();
    opt.step();
  }
  int i = 0;
  for (const auto &batch : batches) {
    torch::mse_loss(net(batch.first), batch.second).backward();
    if (++i % 4 == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
  torch::optim::LBFGS lbfgs(net->parameters());
  for (const auto &batch : batches)
    lbfgs.step([&] {
      lbfgs.zero_grad();
      auto loss = torch::mse_loss(net(batch.first), batch.second);
      loss.backward();
      return loss;
    });
}
