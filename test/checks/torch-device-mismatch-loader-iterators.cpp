// RUN: %check_torch_tidy %s torch-device-mismatch %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

// A data loader walked with an iterator (a for or a while loop) yields the
// same batches as a range-for: their tensors are on the CPU.

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

void iterator_loop(torch::Device device) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  Net model;
  model->to(device);
  for (auto it = loader->begin(); it != loader->end(); ++it) {
    auto &batch = *it;
    model->forward(batch.data);
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: tensor created on the CPU is passed to module 'model'
    // CHECK-FIXES: model->forward(batch.data.to(device));
  }
}

void while_loop(torch::Device device) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  Net model;
  model->to(device);
  auto &&range = *loader;
  auto it = range.begin();
  while (it != range.end()) {
    auto &batch = *it;
    ++it;
    model->forward(batch.data);
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: tensor created on the CPU is passed to module 'model'
    // CHECK-FIXES: model->forward(batch.data.to(device));
  }
}

// --- Negative --------------------------------------------------------------

// The batch moved to the device; an iterator over a list of tensors whose
// origin is not known.
void moved_or_unknown(torch::Device device, const std::vector<torch::Tensor> &xs) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  Net model;
  model->to(device);
  for (auto it = loader->begin(); it != loader->end(); ++it) {
    auto &batch = *it;
    model->forward(batch.data.to(device));
  }
  for (auto it = xs.begin(); it != xs.end(); ++it) {
    const auto &x = *it;
    model->forward(x);
  }
}
