// RUN: %check_torch_tidy %s torch-device-mismatch %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

// A tensor kept in a struct field, a pair or tuple element, or an element of
// a vector or map of a local is followed to every value stored there
// (docs/design.md, "Values of a field or element"): made on the CPU and
// never moved, it is on the CPU.

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

struct Sample {
  torch::Tensor image;
  int label;
};

// --- Positive --------------------------------------------------------------

void struct_field(torch::Device device) {
  Net model;
  model->to(device);
  Sample s{torch::randn({1, 3}), 0};
  model->forward(s.image);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: model->forward(s.image.to(device));
}

void vector_of_inputs(torch::Device device) {
  Net model;
  model->to(device);
  std::vector<torch::Tensor> inputs;
  inputs.push_back(torch::zeros({2, 3}));
  inputs.emplace_back(torch::ones({2, 3}));
  for (size_t i = 0; i < inputs.size(); ++i)
    model->forward(inputs[i]);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: model->forward(inputs[i].to(device));
}

void map_value(torch::Device device) {
  Net model;
  model->to(device);
  std::map<std::string, torch::Tensor> batch{{"x", torch::rand({4, 3})}};
  model->forward(batch.at("x"));
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: model->forward(batch.at("x").to(device));
}

void tuple_element(torch::Device device) {
  Net model;
  model->to(device);
  auto example = std::make_tuple(torch::randn({4, 3}), 7);
  model->forward(std::get<0>(example));
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: model->forward(std::get<0>(example).to(device));
}

// A list filled with CPU tensors, stacked whole or walked by a range-for.
void stacked_list(torch::Device device, const std::vector<std::vector<float>> &rows) {
  Net model;
  model->to(device);
  std::vector<torch::Tensor> tensors;
  for (const auto &r : rows)
    tensors.push_back(torch::tensor(r));
  auto batch = torch::stack(tensors);
  model->forward(batch);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: model->forward(batch.to(device));
  for (const auto &t : tensors)
    model->forward(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: model->forward(t.to(device));
}

// torch::load fills a field: restored where it was saved from, the CPU.
void loaded_into_field(torch::Device device) {
  Net model;
  model->to(device);
  Sample s{torch::Tensor(), 0};
  torch::load(s.image, "input.pt");
  model->forward(s.image);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: model->forward(s.image.to(device));
}

// The loss's prediction is a module output kept in a field; its target is a
// batch tensor kept in another.
void loss_of_boxed_output(torch::Device device) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  Net model;
  model->to(device);
  for (auto &batch : *loader) {
    std::pair<torch::Tensor, torch::Tensor> io{batch.data.to(device), batch.target};
    Sample out{model->forward(io.first), 0};
    auto loss = torch::nll_loss(out.image, io.second);
    // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: tensor created on the CPU is combined in a loss with the output of module 'model'
    // CHECK-FIXES: auto loss = torch::nll_loss(out.image, io.second.to(device));
  }
}

// The same in a function template's instantiation.
template <typename ModelT> void templated_field(ModelT &model, torch::Device device) {
  model->to(device);
  Sample s{torch::randn({2, 3}), 0};
  model->forward(s.image);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: model->forward(s.image.to(device));
}
template void templated_field<Net>(Net &, torch::Device);

// --- Negative --------------------------------------------------------------

// One of the values stored is moved to the device.
void one_element_moved(torch::Device device) {
  Net model;
  model->to(device);
  std::vector<torch::Tensor> inputs{torch::zeros({2, 3})};
  inputs.push_back(torch::ones({2, 3}).to(device));
  model->forward(inputs[1]);
}

// The element is assigned a moved copy of itself.
void moved_in_place(torch::Device device) {
  Net model;
  model->to(device);
  Sample s{torch::randn({1, 3}), 0};
  s.image = s.image.to(device);
  model->forward(s.image);
}

// Every element moved through a non-const reference in a loop.
void moved_through_loop(torch::Device device) {
  Net model;
  model->to(device);
  std::vector<torch::Tensor> inputs{torch::zeros({2, 3}), torch::ones({2, 3})};
  for (auto &t : inputs)
    t = t.to(device);
  model->forward(inputs[0]);
}

// Filled by a function that takes the container by non-const reference.
void fill(std::vector<torch::Tensor> &out, torch::Device device);
void filled_elsewhere(torch::Device device) {
  Net model;
  model->to(device);
  std::vector<torch::Tensor> inputs{torch::zeros({2, 3})};
  fill(inputs, device);
  model->forward(inputs[0]);
}

// A list with one element on the device, stacked whole.
void stacked_mixed(torch::Device device, torch::Tensor x) {
  Net model;
  model->to(device);
  std::vector<torch::Tensor> tensors{torch::zeros({3})};
  tensors.push_back(x.to(device));
  model->forward(torch::stack(tensors));
}

// torch::load with a device fills the field on that device.
void loaded_into_field_with_device(torch::Device device) {
  Net model;
  model->to(device);
  Sample s{torch::Tensor(), 0};
  torch::load(s.image, "input.pt", device);
  model->forward(s.image);
}

// The prediction kept in a field, the target moved before it was stored.
void loss_of_boxed_output_moved(torch::Device device, torch::Tensor y) {
  Net model;
  model->to(device);
  std::pair<torch::Tensor, torch::Tensor> io{torch::randn({2, 3}).to(device), torch::zeros({2}, torch::kLong).to(device)};
  Sample out{model->forward(io.first), 0};
  auto loss = torch::nll_loss(out.image, io.second);
}
