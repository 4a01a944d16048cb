// RUN: %check_torch_tidy %s torch-device-mismatch %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

// --- Helpers run the module: the finding is at the call -----------------------

static void run(Net &m, torch::Tensor &x) { m->forward(x); }
static torch::Tensor run_by_value(Net m, torch::Tensor x) {
  return m->forward(x);
}
static torch::Tensor run_cref(Net &m, const torch::Tensor &x) {
  return m->forward(x.view({-1, 3}));
}
static void run_own_input(Net m) { m(torch::ones({2, 3})); }
static torch::Tensor predict(Net &m, const torch::Tensor &x) {
  return m->forward(x);
}
static void score(const torch::Tensor &output, const torch::Tensor &target) {
  torch::nll_loss(output, target);
}

void module_moved_cpu_tensor(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::randn({4, 3});
  run(model, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: tensor created on the CPU is passed by 'run' to module 'model', which was moved to a device that may be a GPU; move the tensor to that device with .to() [torch-device-mismatch]
  // CHECK-MESSAGES: :[[@LINE-21]]:45: note: 'run' calls the module here
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: module 'model' is moved to the device here
  // CHECK-MESSAGES: :[[@LINE-5]]:12: note: tensor created on the CPU here
  run_by_value(model, torch::zeros({4, 3}));
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: tensor created on the CPU is passed by 'run_by_value' to module 'model'
  run_cref(model, x + 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: tensor created on the CPU is passed by 'run_cref' to module 'model'
}

void helper_makes_the_input(torch::Device device) {
  Net model;
  model->to(device);
  run_own_input(model);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: tensor created on the CPU is passed by 'run_own_input' to module 'model'
}

void through_a_reference(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::randn({4, 3});
  auto &x_ref = x;
  model->forward(x_ref);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU is passed to module 'model'
  // CHECK-FIXES: {{^}}  model->forward(x_ref.to(device));{{$}}
  auto &again = x_ref;
  run(model, again);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: tensor created on the CPU is passed by 'run' to module 'model'
}

void loss_of_a_helpers_output(torch::Device device) {
  Net model;
  model->to(device);
  auto output = predict(model, torch::randn({4, 3}).to(device));
  auto loss = torch::nll_loss(output, torch::zeros({4}, torch::kLong));
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: tensor created on the CPU is combined in a loss with the output of module 'model'
}

static torch::Tensor criterion_of(torch::nn::CrossEntropyLoss &criterion,
                                   const torch::Tensor &output,
                                   const torch::Tensor &target) {
  return criterion(output, target);
}

void loss_in_a_helper(torch::Device device) {
  Net model;
  torch::nn::CrossEntropyLoss criterion;
  model->to(device);
  auto output = model->forward(torch::randn({4, 3}).to(device));
  auto target = torch::zeros({4}, torch::kLong);
  criterion_of(criterion, output, target);
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: tensor created on the CPU is combined by 'criterion_of' in a loss with the output of module 'model'
  criterion_of(criterion, output, target.to(device));
}

// --- Not flagged -------------------------------------------------------------------

static void move_then_run(Net &m, torch::Tensor &x, torch::Device device) {
  x = x.to(device);
  m->forward(x);
}
static void run_on_its_device(Net &m, torch::Device device) {
  m->forward(torch::ones({2, 3}, torch::TensorOptions().device(device)));
}
static void replace_input(torch::Tensor &x, torch::Device device) {
  x = x.to(device);
}

void helper_called_with_a_moved_tensor(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::randn({4, 3}).to(device);
  run(model, x);
  run_by_value(model, torch::zeros({4, 3}).to(device));
  auto y = torch::randn({4, 3});
  move_then_run(model, y, device);
  run_on_its_device(model, device);
  auto z = torch::randn({4, 3});
  replace_input(z, device);
  model->forward(z);
  score(model->forward(z), torch::zeros({4}, torch::kLong).to(device));
}

void helper_with_a_module_on_the_cpu() {
  Net model;
  auto x = torch::randn({4, 3});
  run(model, x);
  run_own_input(model);
  Net other;
  other->to(torch::kCPU);
  run(other, x);
}

void helper_with_an_unknown_tensor(torch::Device device,
                                   torch::Tensor &param) {
  Net model;
  model->to(device);
  run(model, param);
}

void reference_then_moved(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::randn({4, 3});
  auto &x_ref = x;
  x_ref = x_ref.to(device);
  model->forward(x);
  run(model, x_ref);
}
