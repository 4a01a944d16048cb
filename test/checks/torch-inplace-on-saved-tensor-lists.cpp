// The backward pass reaches the saving operation through a list of tensors:
// `torch::stack(values)` over a vector the loop filled, `torch::cat({a, b})`
// over a braced list. The list is the same tensors, with their graphs.
// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

// --- Positive ------------------------------------------------------------------

void stackedValues(torch::nn::Linear cell, torch::nn::Linear head,
                   torch::Tensor x, torch::Tensor done) {
  auto h = torch::zeros({4, 4});
  std::vector<torch::Tensor> values;
  for (int t = 0; t < 10; ++t) {
    h = torch::tanh(cell(x) + h);
    h.mul_(done);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: in-place 'mul_' changes a tensor that 'at::tanh' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
    // CHECK-MESSAGES: :[[@LINE-3]]:9: note: 'at::tanh' saves its result for the backward pass here
    // CHECK-MESSAGES: :[[@LINE+3]]:30: note: the backward pass that needs it
    values.push_back(head(h));
  }
  torch::stack(values).sum().backward();
}

void bracedCat(torch::nn::Linear lin, torch::Tensor x) {
  auto y = torch::sigmoid(lin(x));
  auto z = y * 2;
  y.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'add_' changes a tensor that 'at::sigmoid' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-4]]:12: note: 'at::sigmoid' saves its result for the backward pass here
  // CHECK-MESSAGES: :[[@LINE+1]]:28: note: the backward pass that needs it
  torch::cat({z, x}).sum().backward();
}

// --- Negative twins -------------------------------------------------------------

// The values pushed are detached from the written tensor's graph.
void stackedDetached(torch::nn::Linear cell, torch::Tensor x) {
  std::vector<torch::Tensor> values;
  auto h = torch::tanh(cell(x));
  values.push_back(cell(x) * 2);
  h.mul_(2);
  torch::stack(values).sum().backward();
}

// Written before anything saved it.
void writtenFirst(torch::nn::Linear lin, torch::Tensor x) {
  auto y = lin(x);
  y.add_(1);
  auto z = torch::sigmoid(y);
  torch::cat({z, x}).sum().backward();
}
