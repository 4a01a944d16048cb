// Broken input: clang's own errors, no crash, and no diagnostic from the
// loop checks built on half-understood code.
// RUN: %check_torch_tidy --expect-compiler-errors %s torch-loss-accumulated-without-item,torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

void undeclared_accumulator(torch::nn::Linear &model, torch::optim::SGD &opt,
                            const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs) {
    auto loss = model(x).sum();
    loss.backward();
    opt.step();
    total += loss;
    history.push_back(loss);
  }
}

void evaluate_broken(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  model->eval();
  for (const auto &x : xs) {
    auto out = model(x, undeclared);
    out = model->forward(;
  }
  while (model(xs[0]) {
  }
}

void incomplete(torch::nn::Linear &model, torch::optim::SGD &opt) {
  torch::Tensor acc;
  for (int i = 0;; {
    acc += model(
    opt.step(
