// Parameter members against Debian's real LibTorch headers: LinearImpl's
// weight (registered in the library, out of sight), ConvNdImpl's bias and
// NormImplBase's weight (registered by the class templates' reset() in the
// headers), a user's register_parameter; buffers and unregistered members
// stay silent.
// REQUIRES: libtorch
// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- %libtorch_flags

#include <torch/torch.h>
#include <vector>

namespace F = torch::nn::functional;

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc(register_module("fc", torch::nn::Linear(4, 3))),
        conv1(register_module("conv1", torch::nn::Conv2d(1, 2, 3))),
        bn(register_module("bn", torch::nn::BatchNorm2d(2))) {
    scale = register_parameter("scale", torch::ones({1}));
    mean = register_buffer("mean", torch::zeros({4}));
    shift = torch::zeros({4});
  }
  torch::Tensor forward(torch::Tensor x) { return fc((x - mean) * scale + shift); }

  torch::nn::Linear fc{nullptr};
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::Tensor scale, mean, shift;
};
TORCH_MODULE(Net);

void l2Penalty(Net &model, torch::Tensor x, torch::Tensor y) {
  auto ce = F::cross_entropy(model->forward(x), y);
  auto loss = ce + 0.01 * torch::tensor(model->fc->weight.norm().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-2]]:66: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

// ConvNdImpl's bias, NormImplBase's weight (registered by the class
// templates in the headers) and a member the user's module registers.
void convBias(Net &model, torch::Tensor x, torch::Tensor y) {
  auto loss = F::mse_loss(model(x), y) +
              torch::tensor(model->conv1->bias[0].item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-2]]:51: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

void normWeight(Net &model, torch::Tensor x, torch::Tensor y) {
  auto loss = F::mse_loss(model(x), y) +
              torch::tensor(model->bn->weight.sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-2]]:53: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

void registeredParameter(Net &model, torch::Tensor x, torch::Tensor y) {
  auto loss = F::mse_loss(model(x), y) +
              torch::tensor(model->scale.item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-2]]:42: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

// Negative: buffers (the norm layer's running statistics, a registered
// buffer), a member the module does not register, a loss module's class
// weights, and reads under a no-grad guard.
void notParameters(Net &model, torch::nn::CrossEntropyLoss &criterion,
                   torch::Tensor x, torch::Tensor y) {
  std::vector<float> values;
  values.push_back(model->bn->running_mean.sum().item<float>());
  values.push_back(model->bn->running_var.sum().item<float>());
  values.push_back(model->mean.sum().item<float>());
  values.push_back(model->shift.sum().item<float>());
  values.push_back(criterion->weight.sum().item<float>());
  {
    torch::NoGradGuard no_grad;
    values.push_back(model->fc->weight.norm().item<float>());
    values.push_back(model->scale.item<float>());
  }
  auto loss = criterion(model(x), y) + torch::tensor(values).sum();
  loss.backward();
}
