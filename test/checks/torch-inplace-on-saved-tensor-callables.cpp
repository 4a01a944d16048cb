// A call through a std::function that may hold one of several lambdas (an
// activation chosen in the constructor): a lambda that writes into its
// argument in place may be the one that runs, and what it returns is still
// that argument's tensor.
// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <functional>
#include <torch/torch.h>

struct MLPImpl : torch::nn::Module {
  torch::nn::Linear fc1{4, 4}, fc2{4, 4};
  std::function<torch::Tensor(torch::Tensor)> post_act;
  explicit MLPImpl(bool relu) {
    if (relu)
      post_act = [](torch::Tensor t) { return t.relu_(); };
    else
      post_act = [](torch::Tensor t) { return torch::tanh(t); };
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1(x));
    x = post_act(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: in-place 'post_act' changes a tensor that 'at::relu' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
    // CHECK-MESSAGES: :[[@LINE-3]]:9: note: 'at::relu' saves its result for the backward pass here
    return fc2(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the result of forward() is backpropagated by its caller
  }
};

struct SafeMLPImpl : torch::nn::Module {
  torch::nn::Linear fc1{4, 4}, fc2{4, 4};
  std::function<torch::Tensor(torch::Tensor)> post_act;
  explicit SafeMLPImpl(bool relu) {
    if (relu)
      post_act = [](torch::Tensor t) { return torch::relu(t); };
    else
      post_act = [](torch::Tensor t) { return torch::tanh(t); };
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1(x));
    x = post_act(x);
    return fc2(x);
  }
};

// In place on a fresh copy: nothing saved is changed.
struct CloneMLPImpl : torch::nn::Module {
  torch::nn::Linear fc1{4, 4}, fc2{4, 4};
  std::function<torch::Tensor(torch::Tensor)> post_act;
  explicit CloneMLPImpl(bool relu) {
    if (relu)
      post_act = [](torch::Tensor t) { return t.relu_(); };
    else
      post_act = [](torch::Tensor t) { return torch::tanh(t); };
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1(x));
    x = post_act(x.clone());
    return fc2(x);
  }
};
