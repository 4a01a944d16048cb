// The same patterns against Debian's real LibTorch headers; the fixed file
// must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-device-mismatch %t -- -- %libtorch_flags

#include <torch/script.h>
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(784, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    return torch::log_softmax(fc(x.view({-1, 784})), 1);
  }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// The MNIST example's shape, with the batch left on the CPU.
void train_epoch(Net &model, torch::optim::Optimizer &optimizer) {
  torch::DeviceType device_type;
  if (torch::cuda::is_available())
    device_type = torch::kCUDA;
  else
    device_type = torch::kCPU;
  torch::Device device(device_type);
  model->to(device);
  auto dataset = torch::data::datasets::MNIST("./data")
                     .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto &batch : *loader) {
    optimizer.zero_grad();
    auto output = model->forward(batch.data);
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: tensor created on the CPU is passed to module 'model', which was moved to a device that may be a GPU; move the tensor to that device with .to() [torch-device-mismatch]
    // CHECK-FIXES: {{^}}    auto output = model->forward(batch.data.to(device));{{$}}
    auto loss = torch::nll_loss(output, batch.target);
    // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: tensor created on the CPU is combined in a loss with the output of module 'model'
    // CHECK-FIXES: {{^}}    auto loss = torch::nll_loss(output, batch.target.to(device));{{$}}
    loss.backward();
    optimizer.step();
  }
  // The same loop written correctly.
  for (auto &batch : *loader) {
    auto data = batch.data.to(device), targets = batch.target.to(device);
    auto output = model->forward(data);
    auto loss = torch::nll_loss(output, targets);
    loss.backward();
  }
}

void factories(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::randn({2, 784});
  model->forward(x.to(torch::kFloat));
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(x.to(torch::kFloat).to(device));{{$}}
  model(torch::zeros({2, 784}, torch::kFloat) + 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model((torch::zeros({2, 784}, torch::kFloat) + 1).to(device));{{$}}
  std::vector<float> pixels(784);
  model->forward(torch::from_blob(pixels.data(), {1, 784}));
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(torch::from_blob(pixels.data(), {1, 784}).to(device));{{$}}

  // Not flagged: created on the device, moved, *_like of a tensor there.
  model->forward(torch::randn({2, 784}, torch::TensorOptions().device(device)));
  model->forward(torch::randn({2, 784}, torch::TensorOptions(device)));
  model->forward(torch::randn({2, 784}, torch::dtype(torch::kFloat).device(device)));
  model->forward(torch::randn({2, 784}, device));
  model->forward(x.to(device));
  model->forward(x.to(device, torch::kFloat));
  auto on_device = x.to(device);
  model->forward(torch::ones_like(on_device));
  model->forward(torch::from_blob(pixels.data(), {1, 784}).to(device));
}

void cpu_only() {
  torch::Device device(torch::kCPU);
  Net model;
  model->to(device);
  model->forward(torch::randn({2, 784}));
  Net other;
  other->to(torch::kDouble);
  other->forward(torch::randn({2, 784}, torch::kDouble));
}

void scripted(const std::string &path) {
  torch::Device device(torch::kCUDA);
  torch::jit::script::Module module = torch::jit::load(path, device);
  std::vector<torch::jit::IValue> inputs;
  inputs.push_back(torch::ones({1, 3, 224, 224}));
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: tensor created on the CPU is passed to module 'module'
  // CHECK-FIXES: {{^}}  inputs.push_back(torch::ones({1, 3, 224, 224}).to(device));{{$}}
  auto output = module.forward(inputs).toTensor();
}

// Not flagged: loaded where it was saved (no device variable in scope, so that
// torch-load-without-device's fix-it, torch::kCPU, keeps it on the CPU).
void scripted_without_device(const std::string &path) {
  torch::jit::script::Module cpu_module = torch::jit::load(path);
  cpu_module.forward({torch::ones({1, 3, 224, 224})});
}
