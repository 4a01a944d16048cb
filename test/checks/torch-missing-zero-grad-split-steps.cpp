// Training split across methods and closures: the backward pass in one
// helper (training_step()), the step in another (optimizer_step()), the
// backward pass in an LBFGS closure handed to step(), and a trainer's step
// method that clears one optimizer's gradients and steps two.
// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

#include <memory>
#include <torch/torch.h>

class SplitTrainer {
public:
  void fit(torch::Tensor x, int steps) {
    int step = 0;
    do {
      auto loss = trainingStep(x);
      optimizerStep();
      // CHECK-MESSAGES: :[[@LINE+13]]:5: warning: optimizer step in 'optimizerStep', which a training loop calls, and nothing in that loop clears gradients: each backward() adds to the gradients of all earlier iterations; call zero_grad() before backward() [torch-missing-zero-grad]
      // CHECK-MESSAGES: :[[@LINE-2]]:7: note: called in the training loop here
      // CHECK-MESSAGES: :[[@LINE-4]]:19: note: gradients accumulate across iterations here
    } while (++step < steps);
  }

private:
  torch::Tensor trainingStep(torch::Tensor x) {
    auto loss = model_(x).sum();
    loss.backward();
    return loss.detach();
  }
  void optimizerStep() {
    optimizer_->step();
  }
  torch::nn::Linear model_{4, 4};
  std::unique_ptr<torch::optim::Adam> optimizer_ =
      std::make_unique<torch::optim::Adam>(model_->parameters());
};

// Clears after the step: the next iteration's backward starts from zero.
class SplitTrainerClears {
public:
  void fit(torch::Tensor x, int steps) {
    for (int step = 0; step < steps; ++step) {
      trainingStep(x);
      optimizerStep();
    }
  }

private:
  void trainingStep(torch::Tensor x) { model_(x).sum().backward(); }
  void optimizerStep() {
    optimizer_->step();
    optimizer_->zero_grad();
  }
  torch::nn::Linear model_{4, 4};
  std::unique_ptr<torch::optim::Adam> optimizer_ =
      std::make_unique<torch::optim::Adam>(model_->parameters());
};

struct GanTrainer {
  torch::nn::Linear g{4, 4}, d{4, 1};
  torch::optim::Adam opt_g{g->parameters()};
  torch::optim::Adam opt_d{d->parameters()};
  double trainStep(torch::Tensor x) {
    opt_g.zero_grad();
    auto loss_g = d(g(x)).sum();
    loss_g.backward();
    opt_g.step();
    auto loss_d = d(x).sum() - d(g(x).detach()).sum();
    loss_d.backward();
    opt_d.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in 'trainStep', which a training loop calls, clears other gradients but never those of 'opt_d': each backward() adds to the gradients of all earlier iterations; call opt_d.zero_grad() before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-8]]:5: note: this clears the gradients of another model or optimizer
    // CHECK-MESSAGES: :[[@LINE+16]]:32: note: called in the training loop here
    // CHECK-MESSAGES: :[[@LINE-8]]:5: note: gradients accumulate across iterations here
    return loss_d.item<double>();
  }
  double trainStepClearsBoth(torch::Tensor x) {
    opt_g.zero_grad();
    d(g(x)).sum().backward();
    opt_g.step();
    opt_d.zero_grad();
    d(x).sum().backward();
    opt_d.step();
    return 0;
  }
};

void runGan(GanTrainer &t, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) t.trainStep(x);
  for (int i = 0; i < 10; ++i) t.trainStepClearsBoth(x);
}

void lbfgsWithoutClearing(torch::nn::Linear model, torch::Tensor t, torch::Tensor y) {
  torch::optim::LBFGS optimizer(model->parameters(), torch::optim::LBFGSOptions(0.5));
  auto closure = [&]() -> torch::Tensor {
    auto loss = (model(t) - y).pow(2).mean();
    loss.backward();
    return loss;
  };
  for (int epoch = 0; epoch < 15; ++epoch)
    optimizer.step(closure);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that never clears gradients{{.*}} [torch-missing-zero-grad]
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: gradients accumulate across iterations here
}

void lbfgsClosureClears(torch::nn::Linear model, torch::Tensor t, torch::Tensor y) {
  torch::optim::LBFGS optimizer(model->parameters(), torch::optim::LBFGSOptions(0.5));
  auto closure = [&]() -> torch::Tensor {
    optimizer.zero_grad();
    auto loss = (model(t) - y).pow(2).mean();
    loss.backward();
    return loss;
  };
  for (int epoch = 0; epoch < 15; ++epoch)
    optimizer.step(closure);
}
