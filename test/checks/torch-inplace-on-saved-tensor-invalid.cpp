// Broken input: clang's own errors, no crash, nothing reported from the
// broken statements.
// RUN: %check_torch_tidy --expect-compiler-errors %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <torch/torch.h>

void undeclared(torch::nn::Linear &model, torch::Tensor x) {
  auto y = torch::sigmoid(model(x));
  missing.mul_(2);
  y.mul_(undeclared_factor);
  y.nonexistent_();
  torch::relu_(undeclared_tensor);
  y[0] = ;
  y.sum().backward();
}

void incomplete(torch::nn::Linear &model, torch::Tensor x) {
  auto y = model(x).exp(;
  y += ;
  y.sum().backward(
}
