// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

// A clearing counts only if the iterations that reach the step pass through
// it: one in a branch that leaves the iteration (continue, break, return,
// throw) clears only the iterations that skip the step.

#include <torch/torch.h>

bool finite(const torch::Tensor &t);
void log_skip(int it);

// --- Positive ----------------------------------------------------------------

void skipNonFinite(torch::nn::Linear &model, torch::optim::Adam &opt,
                   torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    if (!finite(loss)) {
      log_skip(it);
      opt.zero_grad();
      continue;
    }
    loss.backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that clears gradients only on iterations that skip the step: each backward() that reaches the step adds to the gradients of all earlier iterations; call zero_grad() in every iteration before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-6]]:7: note: gradients are cleared only here, on a path that leaves the iteration
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

// The clearing in the else branch of a test that stops training; a while
// loop; the module's zero_grad().
void stopOnDivergence(torch::nn::Linear &model, torch::optim::SGD &opt,
                      torch::Tensor x, torch::Tensor y) {
  int step = 0;
  while (step < 1000) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    if (loss.item<float>() > 1e6) {
      model->zero_grad();
      break;
    }
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that clears gradients only on iterations that skip the step
    // CHECK-MESSAGES: :[[@LINE-5]]:7: note: gradients are cleared only here, on a path that leaves the iteration
    // CHECK-MESSAGES: :[[@LINE-8]]:5: note: gradients accumulate across iterations here
    ++step;
  }
}

// --- Negative twins ------------------------------------------------------------

// Cleared on every iteration as well (after the step).
void skipAndClearEachStep(torch::nn::Linear &model, torch::optim::Adam &opt,
                          torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    if (!finite(loss)) {
      opt.zero_grad();
      continue;
    }
    loss.backward();
    opt.step();
    opt.zero_grad();
  }
}

// The branch that leaves the iteration holds the step too.
void stepInTheBranch(torch::nn::Linear &model, torch::optim::Adam &opt,
                     torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    if (finite(loss)) {
      opt.zero_grad();
      loss.backward();
      opt.step();
      continue;
    }
    log_skip(it);
  }
}

// A clearing at the top of each iteration, and the skip branch's own.
void clearedFirst(torch::nn::Linear &model, torch::optim::Adam &opt,
                  torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    if (!finite(loss)) {
      opt.zero_grad();
      return;
    }
    loss.backward();
    opt.step();
  }
}
