// Operations Ops.def does not name take their facts from PyTorch's own backward
// formulas (AutogradOps.def, generated from derivatives.yaml): expm1's backward
// uses its result (grad * (result + 1)), so writing into the result breaks it;
// it does not use its input, so writing into the input does not. An operation
// with no entry there keeps the conservative default (saves its input).
// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <torch/torch.h>

namespace at {
Tensor expm1(const Tensor &);
Tensor logsumexp(const Tensor &, int64_t dim, bool keepdim = false);
} // namespace at

// --- Positive: the result expm1 saved --------------------------------------------

void expm1_result(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto y = torch::expm1(h);
  y.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'mul_' changes a tensor that 'at::expm1' saved for the backward pass
  y.sum().backward();
}

// logsumexp's backward uses both its input and its result.
void logsumexp_input(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto y = torch::logsumexp(h, 1);
  h.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'add_' changes a tensor that 'at::logsumexp' saved for the backward pass
  y.sum().backward();
}

// --- Negative: expm1 does not save its input ---------------------------------------

void expm1_input(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto y = torch::expm1(h);
  h.mul_(2);
  y.sum().backward();
}
