// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

// A module template: diagnosed once, in the written form.
template <int N> struct Scores : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor y = fc(x);
    std::vector<float> values;
    for (int i = 0; i < N; ++i)
      values.push_back(y[i].item<float>());
    return torch::tensor(values);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::tensor builds a tensor without autograd history
    // CHECK-MESSAGES: :[[@LINE-3]]:29: note: values read out of a tensor with autograd history here
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the new tensor is returned from forward() here
  }
};

void instantiate(torch::Tensor x) {
  Scores<2> a;
  a.forward(x);
  Scores<3> b;
  b.forward(x);
}

// Macros: reported at the expansion.
#define AS_TENSOR(v) torch::tensor(v)
void in_macro(torch::nn::Linear &model, torch::Tensor x, torch::Tensor y) {
  auto out = model(x);
  std::vector<float> values{out.item<float>()};
  auto loss = torch::mse_loss(AS_TENSOR(values), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-3]]:33: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: the new tensor is the prediction of this loss
}

// Lambdas are analysed as functions of their own.
void in_lambda(torch::nn::Linear &model, torch::Tensor x, torch::Tensor y) {
  auto step = [&] {
    auto out = model(x);
    auto pred = torch::tensor({out.item<float>()});
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: torch::tensor builds a tensor without autograd history
    // CHECK-MESSAGES: :[[@LINE-2]]:36: note: values read out of a tensor with autograd history here
    torch::mse_loss(pred, y).backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the new tensor is the prediction of this loss
  };
  step();
}

// NOLINT is honoured.
void suppressed(torch::nn::Linear &model, torch::Tensor x, torch::Tensor y) {
  auto out = model(x);
  auto pred = torch::tensor({out.item<float>()}); // NOLINT
  torch::mse_loss(pred, y).backward();
}
