// What operations save, as LibTorch records it: `to` (ToCopyBackward) saves
// nothing, so writing into its result breaks no saved tensor; an operation
// the operation table does not name (gelu, leaky_relu, silu) is assumed to
// save its input, as those do.
// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Negative: nothing saved the tensor written into ----------------------------

void moved_leaf(torch::Device device) {
  auto w = torch::randn({3}, torch::requires_grad()).to(device);
  auto y = w.exp(); // exp saves its result, `to` nothing
  w.mul_(2);
  y.sum().backward();
}

void moved_input(torch::nn::Linear &model, torch::Tensor x,
                 torch::Device device) {
  auto h = model(x).to(device);
  auto y = h * 2; // a scalar factor saves nothing
  h.add_(1);
  y.sum().backward();
}

void moved_result(torch::nn::Linear &model, torch::Tensor x,
                  torch::Device device) {
  auto h = model(x);
  auto y = torch::gelu(h).to(device); // gelu saves its input h, not y
  y.mul_(2);
  y.sum().backward();
}

// --- Positive: the input of relu's neighbours ------------------------------------

void relu_result(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto y = torch::relu(h);
  y.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'mul_' changes a tensor that 'at::relu' saved for the backward pass
  y.sum().backward();
}

void gelu_input(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto y = torch::gelu(h);
  h.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'mul_' changes a tensor that 'at::gelu' saved for the backward pass
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'at::gelu' saves its input for the backward pass here
  y.sum().backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:11: note: the backward pass that needs it
}

void leaky_relu_input(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto y = torch::leaky_relu(h, 0.2) + torch::silu(h);
  h.fill_(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'fill_' changes a tensor that 'at::leaky_relu' saved for the backward pass
  y.sum().backward();
}
