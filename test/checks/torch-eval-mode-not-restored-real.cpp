// The same patterns against Debian's real LibTorch headers.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-eval-mode-not-restored %t -- -- %libtorch_flags

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc(register_module("fc", torch::nn::Linear(4, 2))),
        drop(register_module("drop", torch::nn::Dropout(0.5))) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc(drop(x)); }
  torch::nn::Linear fc;
  torch::nn::Dropout drop;
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

double evaluate(Net &net, const Batches &data) {
  net->eval();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
  // CHECK-MESSAGES: :[[@LINE+18]]:5: note: evaluation mode set by this call inside the training loop
  // CHECK-MESSAGES: :[[@LINE+13]]:35: note: trained here without train() on some path since
  torch::NoGradGuard no_grad;
  double total = 0;
  for (const auto &batch : data)
    total += torch::mse_loss(net(batch.first), batch.second).item<double>();
  return total;
}

void fit(Net &model, const Batches &train, const Batches &val, int epochs) {
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01));
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (const auto &batch : train) {
      optimizer.zero_grad();
      auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
      loss.backward();
      optimizer.step();
    }
    evaluate(model, val);
  }
}

void fit_fixed(Net &model, const Batches &train, const Batches &val, int epochs) {
  torch::optim::Adam optimizer(model->parameters());
  for (int epoch = 0; epoch < epochs; ++epoch) {
    model->train();
    for (const auto &batch : train) {
      optimizer.zero_grad();
      torch::mse_loss(model(batch.first), batch.second).backward();
      optimizer.step();
    }
    model->eval();
    torch::NoGradGuard no_grad;
    for (const auto &batch : val)
      model(batch.first);
  }
}

// A frozen teacher in eval mode: a different module.
void distill(Net &student, Net &teacher, const Batches &train) {
  torch::optim::SGD optimizer(student->parameters(), 0.01);
  for (int epoch = 0; epoch < 3; ++epoch) {
    teacher->eval();
    for (const auto &batch : train) {
      auto target = teacher(batch.first).detach();
      torch::mse_loss(student(batch.first), target).backward();
      optimizer.step();
    }
  }
}
