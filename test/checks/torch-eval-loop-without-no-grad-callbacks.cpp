// A validation callback (a lambda kept in a configuration's std::function)
// defined in a function that then calls a training helper: the helper's
// training is not on the callback's path, so the callback's evaluation loop
// still needs a guard. A backward pass written in that function, or a helper
// handed what the lambda computes, still means gradients may be wanted.
// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <functional>
#include <vector>

struct FitConfig {
  std::function<double()> validate;
};

void fit(torch::nn::Linear &model, torch::optim::SGD &opt,
         const std::vector<torch::Tensor> &train, const FitConfig &cfg) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : train) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    cfg.validate();
  }
}

torch::Tensor train_on(torch::optim::SGD &opt, const torch::Tensor &loss) {
  opt.zero_grad();
  loss.backward();
  opt.step();
  return loss;
}

// --- Positive ------------------------------------------------------------------

void validationHook(torch::nn::Linear model, torch::optim::SGD &opt,
                    const std::vector<torch::Tensor> &train,
                    const std::vector<torch::Tensor> &val) {
  FitConfig cfg;
  cfg.validate = [&]() {
    model->eval();
    double total = 0;
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
    // CHECK-FIXES-NEXT: {{^}}    for (const auto &x : val){{$}}
    for (const auto &x : val)
      total += model->forward(x).sum().item<double>();
      // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: module forward in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
      // CHECK-MESSAGES: :[[@LINE-7]]:5: note: module put into evaluation mode here
    model->train();
    return total;
  };
  fit(model, opt, train, cfg);
}

// --- Negative twins ---------------------------------------------------------------

// The lambda's outputs are handed to a helper that backpropagates them.
void gradientsThroughLambda(torch::nn::Linear model, torch::optim::SGD &opt,
                            const std::vector<torch::Tensor> &val) {
  auto perturbed = [&]() {
    model->eval();
    torch::Tensor total = torch::zeros({1});
    for (const auto &x : val)
      total = total + model->forward(x).sum();
    return total;
  };
  train_on(opt, perturbed());
}

// A backward pass written in the function around the lambda.
void backwardAround(torch::nn::Linear model, const std::vector<torch::Tensor> &val) {
  auto outputs = [&]() {
    model->eval();
    torch::Tensor total = torch::zeros({1});
    for (const auto &x : val)
      total = total + model->forward(x).sum();
    return total;
  };
  outputs().backward();
}
