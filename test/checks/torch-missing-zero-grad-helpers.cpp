// The step (and often the backward pass) in a helper, a member function or a
// lambda that a training loop calls: nothing in the helper or in the loop
// clears gradients.
// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

#include <torch/torch.h>

#include <functional>
#include <utility>
#include <vector>

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// --- Positive ------------------------------------------------------------------

class Trainer {
public:
  float train_step(const torch::Tensor &x, const torch::Tensor &y) {
    auto loss = torch::mse_loss(model_(x), y);
    loss.backward();
    opt_.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in 'train_step', which a training loop calls, and nothing in that loop clears gradients: each backward() adds to the gradients of all earlier iterations; call zero_grad() before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE+6]]:7: note: called in the training loop here
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
    return loss.item<float>();
  }
  void fit(const Batches &data) {
    for (const auto &b : data)
      train_step(b.first, b.second);
  }

private:
  torch::nn::Linear model_{4, 1};
  torch::optim::SGD opt_{model_->parameters(), 0.01};
};

void lambdaStep(torch::nn::Linear model, const Batches &data) {
  torch::optim::Adam opt(model->parameters());
  auto step = [&](const torch::Tensor &x, const torch::Tensor &y) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a lambda, which a training loop calls, and nothing in that loop clears gradients: each backward() adds to the gradients of all earlier iterations; call zero_grad() before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE+5]]:7: note: called in the training loop here
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  };
  for (int epoch = 0; epoch < 5; ++epoch)
    for (const auto &b : data)
      step(b.first, b.second);
}

void clipAndStep(torch::nn::Linear &model, torch::optim::Optimizer &opt) {
  opt.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: optimizer step in 'clipAndStep', which a training loop calls, and nothing in that loop clears gradients: each backward() adds to the gradients of all earlier iterations; call zero_grad() before backward() [torch-missing-zero-grad]
  // CHECK-MESSAGES: :[[@LINE+8]]:5: note: called in the training loop here
  // CHECK-MESSAGES: :[[@LINE+6]]:5: note: gradients accumulate across iterations here
}

void backwardInLoopStepInHelper(torch::nn::Linear model, const Batches &data) {
  torch::optim::Adam opt(model->parameters());
  for (const auto &b : data) {
    torch::mse_loss(model(b.first), b.second).backward();
    clipAndStep(model, opt);
  }
}

// A step callback handed to the function that runs the loop: a std::function
// parameter, and a template parameter.
using StepFn = std::function<float(const torch::Tensor &)>;

void runEpochs(const Batches &data, const StepFn &step, int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch)
    for (const auto &b : data)
      step(b.first);
}

template <typename Step> void runSteps(const Batches &data, Step step) {
  for (const auto &b : data)
    step(b.first);
}

void callbackStep(torch::nn::Linear model, const Batches &data) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  StepFn step = [&](const torch::Tensor &x) {
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a lambda, which a training loop calls, and nothing in that loop clears gradients: each backward() adds to the gradients of all earlier iterations; call zero_grad() before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-15]]:7: note: called in the training loop here
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
    return loss.item<float>();
  };
  runEpochs(data, step, 10);
}

void templateCallbackStep(torch::nn::Linear model, const Batches &data) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  runSteps(data, [&](const torch::Tensor &x) {
    model->forward(x).sum().backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a lambda, which a training loop calls, and nothing in that loop clears gradients: each backward() adds to the gradients of all earlier iterations; call zero_grad() before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-23]]:5: note: called in the training loop here
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  });
}

// --- Negative ------------------------------------------------------------------

// The helper clears.
void clearingStep(torch::nn::Linear &model, torch::optim::Optimizer &opt,
                  const torch::Tensor &x, const torch::Tensor &y) {
  opt.zero_grad();
  torch::mse_loss(model(x), y).backward();
  opt.step();
}

void callsClearingStep(torch::nn::Linear model, const Batches &data) {
  torch::optim::Adam opt(model->parameters());
  for (const auto &b : data)
    clearingStep(model, opt, b.first, b.second);
}

// The loop clears before calling the helper.
void clearsAroundHelper(torch::nn::Linear model, const Batches &data) {
  torch::optim::Adam opt(model->parameters());
  auto step = [&](const torch::Tensor &x, const torch::Tensor &y) {
    torch::mse_loss(model(x), y).backward();
    opt.step();
  };
  for (const auto &b : data) {
    opt.zero_grad();
    step(b.first, b.second);
  }
}

// A fresh optimizer in every call (torch-optimizer-created-in-loop's
// business).
void freshOptimizerStep(torch::nn::Linear &model, const torch::Tensor &x,
                        const torch::Tensor &y) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  torch::mse_loss(model(x), y).backward();
  opt.step();
}

void callsFreshOptimizerStep(torch::nn::Linear model, const Batches &data) {
  for (const auto &b : data)
    freshOptimizerStep(model, b.first, b.second);
}

// The helper is called once, not in a loop.
void oneStep(torch::nn::Linear model, const torch::Tensor &x,
             const torch::Tensor &y) {
  torch::optim::Adam opt(model->parameters());
  auto step = [&]() {
    torch::mse_loss(model(x), y).backward();
    opt.step();
  };
  step();
}

// A step callback that clears, handed to the same loops.
void clearingCallbackStep(torch::nn::Linear model, const Batches &data) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  runEpochs(data, [&](const torch::Tensor &x) {
    opt.zero_grad();
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    return loss.item<float>();
  }, 10);
}
