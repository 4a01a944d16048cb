#include "project.h"

void train_step(torch::optim::SGD &opt, torch::Tensor loss) {
  loss.backward();
  opt.step();
}

void optimize(torch::optim::SGD &opt, torch::Tensor loss) {
  train_step(opt, loss);
}

void clear_grads(torch::optim::SGD &opt) { opt.zero_grad(); }

void log_metrics(torch::nn::Linear &model, torch::optim::SGD &opt) {}

torch::Tensor RecurrentImpl::forward(torch::Tensor x) {
  h_ = cell(x, h_);
  return h_;
}

void RecurrentImpl::reset_state() { h_ = torch::zeros({1, 8}); }
