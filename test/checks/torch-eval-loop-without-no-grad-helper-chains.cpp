// A forward in a helper that a loop runs through other helpers (`run()`
// loops over `inference()`, which calls `process()`), a helper that puts the
// module into evaluation mode itself before its forward, and a validation
// lambda whose epoch loop also trains through another lambda in a sibling
// loop. The warning goes at the call in the evaluation loop, the helper's
// forward into a note.
// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

#include <functional>
#include <memory>
#include <torch/torch.h>

class Processor {
public:
  torch::Tensor process(torch::Tensor in) {
    return module_->forward(in);
  }

private:
  torch::nn::Linear module_{4, 4};
};

class InferenceThread {
public:
  void run(std::vector<torch::Tensor> &pending) {
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
    while (!pending.empty()) {
      auto in = pending.back();
      pending.pop_back();
      inference(in);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: module forward through this call in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
      // CHECK-MESSAGES: :[[@LINE-16]]:12: note: the module forward that the call runs
    }
  }
  void runGuarded(std::vector<torch::Tensor> &pending) {
    torch::NoGradGuard no_grad;
    while (!pending.empty()) {
      inference(pending.back());
      pending.pop_back();
    }
  }

private:
  void inference(torch::Tensor in) { outputs_.push_back(processor_.process(in)); }
  Processor processor_;
  std::vector<torch::Tensor> outputs_;
};

double scoreBatch(torch::nn::Linear &module, const torch::Tensor &x) {
  module->eval();
  auto out = module->forward(x);
  return out.sum().item<double>();
}

void scoreAll(torch::nn::Linear module, torch::Tensor x) {
  double total = 0;
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  for (int i = 0; i < 10; ++i)
    total += scoreBatch(module, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward through this call in an evaluation loop without a gradient-disabling guard{{.*}} [torch-eval-loop-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-10]]:14: note: the module forward that the call runs
  // CHECK-MESSAGES: :[[@LINE-12]]:3: note: module put into evaluation mode here
}

void scoreAllGuarded(torch::nn::Linear module, torch::Tensor x) {
  double total = 0;
  torch::NoGradGuard no_grad;
  for (int i = 0; i < 10; ++i)
    total += scoreBatch(module, x);
}

void fitWithCallbacks(torch::nn::Linear module, torch::optim::Adam &optimizer,
                      torch::Tensor x) {
  std::function<double(const torch::Tensor &)> train_step =
      [&](const torch::Tensor &xi) {
        module->train();
        optimizer.zero_grad();
        auto loss = module->forward(xi).sum();
        loss.backward();
        optimizer.step();
        return loss.item<double>();
      };
  std::function<double(const torch::Tensor &)> validation_step =
      [&](const torch::Tensor &xi) {
        module->eval();
        auto y = module->forward(xi);
        return y.sum().item<double>();
      };
  for (int epoch = 0; epoch < 10; ++epoch) {
    double t = 0, v = 0;
    for (int i = 0; i < 10; ++i)
      t += train_step(x);
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
    for (int i = 0; i < 10; ++i)
      v += validation_step(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: module forward through this call in an evaluation loop without a gradient-disabling guard{{.*}} [torch-eval-loop-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-11]]:18: note: the module forward that the call runs
    // CHECK-MESSAGES: :[[@LINE-13]]:9: note: module put into evaluation mode here
  }
}

// The same lambdas called in one loop: the loop trains, it is not an
// evaluation loop.
void fitInterleaved(torch::nn::Linear module, torch::optim::Adam &optimizer,
                    torch::Tensor x) {
  auto train_step = [&](const torch::Tensor &xi) {
    module->train();
    optimizer.zero_grad();
    module->forward(xi).sum().backward();
    optimizer.step();
  };
  auto probe = [&](const torch::Tensor &xi) {
    module->eval();
    return module->forward(xi).sum().item<double>();
  };
  for (int i = 0; i < 10; ++i) {
    train_step(x);
    probe(x);
  }
}
