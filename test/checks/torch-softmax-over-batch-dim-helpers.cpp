// RUN: %check_torch_tidy %s torch-softmax-over-batch-dim %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// A helper that normalises the tensor it is given is evaluated at each call
// with the shape of the caller's argument; a data loader walked with an
// iterator gives batches like a range-for.

torch::Tensor probabilities(torch::nn::Linear &head, const torch::Tensor &x) {
  return torch::softmax(head(x), 0);
}

void helper_on_a_batch(torch::nn::Linear &head) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto &batch : *loader) {
    auto p = probabilities(head, batch.data.flatten(1));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension, normalises across the samples of the batch; use the class dimension (1 or -1) [torch-softmax-over-batch-dim]
    // CHECK-MESSAGES: :[[@LINE-10]]:10: note: the helper applies softmax here
  }
}

void iterator_loop(torch::nn::Linear &head) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto it = loader->begin(); it != loader->end(); ++it) {
    auto &batch = *it;
    auto p = torch::softmax(head(batch.data.flatten(1)), 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension
    // CHECK-FIXES: auto p = torch::softmax(head(batch.data.flatten(1)), 1);
  }
}

// --- Negative --------------------------------------------------------------

// The helper given one sample, or a tensor of unknown shape.
void helper_on_a_sample(torch::nn::Linear &head, const torch::Tensor &v) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto &batch : *loader) {
    auto p = probabilities(head, batch.data.flatten(1)[0]);
  }
  auto q = probabilities(head, v);
}
