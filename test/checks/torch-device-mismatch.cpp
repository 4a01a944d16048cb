// RUN: %check_torch_tidy %s torch-device-mismatch %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <torch/script.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}
torch::Tensor make_input();
void prepare(torch::Tensor &t);

// --- Called with a CPU tensor ------------------------------------------------

void factory_to_moved_module(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::randn({4, 3});
  model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model', which was moved to a device that may be a GPU; move the tensor to that device with .to() [torch-device-mismatch]
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: module 'model' is moved to the device here
  // CHECK-MESSAGES: :[[@LINE-4]]:12: note: tensor created on the CPU here
  // CHECK-FIXES: {{^}}  model->forward(x.to(device));{{$}}
}

void holder_call_operator_and_constant_device() {
  Net model;
  model->to(torch::kCUDA);
  model(torch::ones({2, 3}));
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model(torch::ones({2, 3}).to(torch::kCUDA));{{$}}
}

void is_available_choice() {
  torch::Device device(torch::kCPU);
  if (torch::cuda::is_available())
    device = torch::Device(torch::kCUDA);
  Net model;
  model->to(device);
  std::vector<float> values{1, 2, 3};
  auto t = torch::tensor({1.0, 2.0, 3.0});
  auto b = torch::from_blob(values.data(), {3});
  model->forward(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(t.to(device));{{$}}
  model->forward(b);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(b.to(device));{{$}}
}

void conditional_device_variable() {
  torch::Device device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  auto model = std::make_shared<NetImpl>();
  model->to(device);
  model->forward(torch::zeros({2, 3}, torch::kFloat));
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(torch::zeros({2, 3}, torch::kFloat).to(device));{{$}}
}

void dtype_conversion_and_views_keep_the_cpu(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::rand({8, 3});
  auto y = x.to(torch::kFloat).view({-1, 3}) * 2;
  model->forward(y);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(y.to(device));{{$}}
  model->forward(x + y);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward((x + y).to(device));{{$}}
  model->forward(torch::zeros_like(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(torch::zeros_like(x).to(device));{{$}}
  model->forward(x.cpu());
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(x.cpu().to(device));{{$}}
}

void loaded_without_device(torch::Device device) {
  Net model;
  model->to(device);
  torch::Tensor saved;
  torch::load(saved, "input.pt");
  model->forward(saved);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(saved.to(device));{{$}}
}

// --- A data loader's batch -----------------------------------------------------

template <typename Loader> void use_loader(Loader &loader);

void train_epoch(torch::Device device) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  Net model;
  model->to(device);
  for (auto &batch : *loader) {
    auto output = model->forward(batch.data);
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: tensor created on the CPU is passed to module 'model'
    // CHECK-FIXES: {{^}}    auto output = model->forward(batch.data.to(device));{{$}}
    auto loss = torch::nll_loss(output, batch.target);
    // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: tensor created on the CPU is combined in a loss with the output of module 'model', which was moved to a device that may be a GPU; move the tensor to that device with .to() [torch-device-mismatch]
    // CHECK-FIXES: {{^}}    auto loss = torch::nll_loss(output, batch.target.to(device));{{$}}
  }
}

void loss_module_target(torch::Device device) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  Net model;
  torch::nn::CrossEntropyLoss criterion;
  model->to(device);
  for (auto &batch : *loader) {
    auto data = batch.data.to(device);
    auto target = batch.target;
    auto output = model->forward(data).view({-1, 10});
    auto loss = criterion(output, target);
    // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: tensor created on the CPU is combined in a loss with the output of module 'model'
    // CHECK-FIXES: {{^}}    auto loss = criterion(output, target.to(device));{{$}}
  }
}

// --- A member moved when the trainer was constructed ---------------------------

class Trainer {
public:
  explicit Trainer(torch::Device device) : device_(device) {
    model_->to(device_);
  }
  torch::Tensor step() {
    auto x = torch::randn({1, 3});
    return model_->forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: tensor created on the CPU is passed to module 'model_'
    // CHECK-FIXES: {{^}}    return model_->forward(x.to(device_));{{$}}
  }

private:
  torch::Device device_;
  Net model_;
};

// --- TorchScript modules loaded onto a device -----------------------------------

void scripted(torch::Device device) {
  torch::jit::Module module = torch::jit::load("model.pt", device);
  auto x = torch::ones({1, 3, 224, 224});
  module.forward({x});
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: tensor created on the CPU is passed to module 'module'
  // CHECK-FIXES: {{^}}  module.forward({x.to(device)});{{$}}
  std::vector<torch::jit::IValue> inputs;
  inputs.push_back(torch::ones({1, 3, 224, 224}));
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: tensor created on the CPU is passed to module 'module'
  // CHECK-FIXES: {{^}}  inputs.push_back(torch::ones({1, 3, 224, 224}).to(device));{{$}}
  module.forward(inputs);
}

void scripted_moved(torch::Device device) {
  torch::jit::Module module = torch::jit::load("model.pt");
  module.to(device);
  module.forward({torch::rand({1, 3})});
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: tensor created on the CPU is passed to module 'module'
  // CHECK-FIXES: {{^}}  module.forward({torch::rand({1, 3}).to(device)});{{$}}
}

// --- Lambdas, templates, macros, fix-its left out ----------------------------------

void in_lambda(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::randn({2, 3});
  auto run = [&] { return model->forward(x); };
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: tensor created on the CPU is passed to module 'model'
  run();
}

template <typename ModelT> void templated(ModelT &model, torch::Device device) {
  model->to(device);
  auto x = torch::randn({2, 3});
  model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(x.to(device));{{$}}
}
template void templated<Net>(Net &, torch::Device);

#define RUN_MODEL(m, input) (m)->forward(input)

void through_macro(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::randn({2, 3});
  RUN_MODEL(model, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: tensor created on the CPU is passed to module 'model'
}

void two_devices_in_scope(torch::Device first, torch::Device second) {
  Net model;
  model->to(first);
  model->forward(torch::randn({2, 3}));
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
}

void nolint(torch::Device device) {
  Net model;
  model->to(device);
  model->forward(torch::randn({2, 3})); // NOLINT(torch-device-mismatch)
}

// --- Not flagged -------------------------------------------------------------------

void moved_tensor(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::randn({4, 3});
  model->forward(x.to(device));
  auto y = torch::randn({4, 3}).to(device);
  model->forward(y);
  auto z = torch::randn({4, 3});
  z = z.to(device);
  model->forward(z);
  model->forward(torch::randn({4, 3}).cuda());
  model->forward(x.to(device).view({-1, 3}));
  auto w = torch::randn({4, 3});
  model->forward(w.to(torch::TensorOptions().device(device)));
}

void moved_on_some_path(torch::Device device, bool gpu) {
  Net model;
  model->to(device);
  auto x = torch::randn({4, 3});
  if (gpu)
    x = x.to(device);
  model->forward(x);
}

void created_on_the_device(torch::Device device) {
  Net model;
  model->to(device);
  model->forward(torch::randn({4, 3}, torch::TensorOptions().device(device)));
  model->forward(torch::randn({4, 3}, torch::TensorOptions(device)));
  model->forward(torch::randn({4, 3}, torch::dtype(torch::kFloat).device(device)));
  model->forward(torch::randn({4, 3}, torch::device(device)));
  model->forward(torch::zeros({4, 3}, device));
  auto options = torch::TensorOptions().device(device);
  model->forward(torch::ones({4, 3}, options));
  auto on_device = torch::ones({4, 3}, options);
  model->forward(torch::zeros_like(on_device));
  std::vector<float> values{1, 2, 3};
  model->forward(torch::from_blob(values.data(), {3}, torch::device(device)));
  model->forward(torch::tensor({1.0, 2.0}, options));
}

void options_unknown(torch::Device device, const torch::TensorOptions &opts) {
  Net model;
  model->to(device);
  model->forward(torch::randn({4, 3}, opts));
}

void module_kept_on_the_cpu() {
  Net model;
  model->forward(torch::randn({4, 3}));
  Net other;
  other->to(torch::kCPU);
  other->forward(torch::randn({4, 3}));
  torch::Device cpu(torch::kCPU);
  Net third;
  third->to(cpu);
  third->forward(torch::randn({4, 3}));
  torch::Device named("cpu");
  Net fourth;
  fourth->to(named);
  fourth->forward(torch::randn({4, 3}));
  Net fifth;
  fifth->to(torch::kFloat);
  fifth->forward(torch::randn({4, 3}));
}

void moved_after_the_use(torch::Device device) {
  Net model;
  model->forward(torch::randn({4, 3}));
  model->to(device);
}

void moved_back_to_the_cpu(torch::Device device) {
  Net model;
  model->to(device);
  model->to(torch::kCPU);
  model->forward(torch::randn({4, 3}));
}

void scripted_without_device() {
  torch::jit::Module module = torch::jit::load("model.pt");
  module.forward({torch::ones({1, 3})});
  torch::jit::Module cpu_module = torch::jit::load("model.pt", torch::kCPU);
  cpu_module.forward({torch::ones({1, 3})});
}

void unknown_tensors(torch::Device device, const torch::Tensor &param) {
  Net model;
  model->to(device);
  model->forward(param);
  model->forward(make_input());
  auto x = torch::randn({4, 3});
  prepare(x);
  model->forward(x);
  torch::Tensor loaded;
  torch::load(loaded, "input.pt", device);
  model->forward(loaded);
}

void loader_batch_moved(torch::Device device) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  Net model;
  model->to(device);
  for (auto &batch : *loader) {
    auto data = batch.data.to(device), target = batch.target.to(device);
    auto output = model->forward(data);
    auto loss = torch::nll_loss(output, target);
  }
  for (auto &batch : *loader) {
    batch.data = batch.data.to(device);
    model->forward(batch.data);
  }
}

void loss_of_a_module_on_the_cpu(torch::Device device) {
  Net model;
  auto output = model->forward(torch::randn({4, 3}));
  auto loss = torch::nll_loss(output, torch::zeros({4}, torch::kLong));
}

template <typename Loader>
void dependent_batches(Net &model, Loader &loader, torch::Device device) {
  model->to(device);
  for (auto &batch : loader)
    model->forward(batch.data);
}

// A user type that merely looks like LibTorch's.
namespace user {
struct Tensor {};
struct Model {
  void to(torch::Device) {}
  Tensor forward(Tensor t) { return t; }
};
} // namespace user

void user_types(torch::Device device) {
  user::Model model;
  model.to(device);
  model.forward(user::Tensor{});
}
