// A closure handed to an optimizer's step() is called more than once: LBFGS
// evaluates it several times per step, and any optimizer calls it once per
// iteration of a loop around the step. A backward pass in it through a loss
// computed outside it frees that graph on the first call.
// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Positive ------------------------------------------------------------------

void lbfgsLossOutside(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  torch::optim::LBFGS opt(model->parameters(), torch::optim::LBFGSOptions(1.0).max_iter(20));
  for (int epoch = 0; epoch < 5; ++epoch) {
    auto loss = torch::mse_loss(model(x), y);
    opt.step([&]() -> torch::Tensor {
      opt.zero_grad();
      loss.backward();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: the optimizer calls this closure more than once (LBFGS evaluates it several times per step), and each backward pass reaches the graph of 'loss', computed outside the closure, which the first call frees; compute 'loss' inside the closure [torch-backward-twice-without-retain-graph]
      // CHECK-MESSAGES: :[[@LINE-5]]:10: note: 'loss' is computed here, outside the closure
      return loss;
    });
  }
}

void sgdClosureLossBeforeLoop(torch::nn::Linear model, torch::optim::SGD &opt,
                              torch::Tensor x, torch::Tensor y) {
  auto loss = torch::mse_loss(model(x), y);
  auto closure = [&]() -> torch::Tensor {
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the optimizer calls this closure more than once (once per iteration of the loop around the step), and each backward pass reaches the graph of 'loss', computed outside the closure, which the first call frees; compute 'loss' inside the closure [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'loss' is computed here, outside the closure
    return loss;
  };
  for (int step = 0; step < 10; ++step)
    opt.step(closure);
}

// --- Negative twins ---------------------------------------------------------------

// The loss is computed inside the closure, as LBFGS needs.
void lbfgsLossInside(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  torch::optim::LBFGS opt(model->parameters(), torch::optim::LBFGSOptions(1.0).max_iter(20));
  for (int epoch = 0; epoch < 5; ++epoch)
    opt.step([&]() -> torch::Tensor {
      opt.zero_grad();
      auto loss = torch::mse_loss(model(x), y);
      loss.backward();
      return loss;
    });
}

// SGD calls the closure once per step, and the loss is computed anew in
// each iteration before it.
void sgdClosureLossPerIteration(torch::nn::Linear model, torch::optim::SGD &opt,
                                torch::Tensor x, torch::Tensor y) {
  for (int step = 0; step < 10; ++step) {
    auto loss = torch::mse_loss(model(x), y);
    opt.step([&]() -> torch::Tensor {
      opt.zero_grad();
      loss.backward();
      return loss;
    });
  }
}

// The closure keeps the graph.
void lbfgsRetained(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  torch::optim::LBFGS opt(model->parameters(), torch::optim::LBFGSOptions(1.0));
  auto loss = torch::mse_loss(model(x), y);
  opt.step([&]() -> torch::Tensor {
    opt.zero_grad();
    loss.backward({}, /*retain_graph=*/true);
    return loss;
  });
}
