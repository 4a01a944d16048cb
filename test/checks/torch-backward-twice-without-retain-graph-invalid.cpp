// Broken input: clang's own errors, no crash, and no diagnostic from the
// checks built on half-understood code.
// RUN: %check_torch_tidy --expect-compiler-errors %s torch-backward-twice-without-retain-graph,torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

void undeclared_model(torch::Tensor x) {
  auto loss = model(x).sum();
  loss.backward();
  loss.backward(undeclared);
}

void wrong_arguments(torch::nn::Linear &model, torch::Tensor x) {
  auto loss = model(x).sum();
  loss.backward({}, true, true, true, true, true);
  torch::autograd::grad({loss});
  loss.backward()
}

struct Broken : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    std::vector<float> v;
    v.push_back(x.item<float>();
    return torch::tensor(v, ;
  }
};

void incomplete(torch::nn::Linear &model, torch::Tensor x) {
  for (auto out = model(x);; {
    out.backward(
