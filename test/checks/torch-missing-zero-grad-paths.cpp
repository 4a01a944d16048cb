// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

// A clearing counts only if the iterations that reach the step pass through
// it: one in a branch that leaves the iteration (continue, break, return,
// throw) clears only the iterations that skip the step.

#include <torch/torch.h>

#include <cmath>

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

// --- Guards that skip a bad step (zero_grad() on every iteration) -------------

// The step under a test of the loss: a skipped step, not accumulation.
void skipNanStep(torch::nn::Linear &model, torch::optim::Adam &opt,
                 torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    if (!loss.isnan().item<bool>())
      opt.step();
  }
}

void skipNonFiniteStep(torch::nn::Linear &model, torch::Tensor x,
                       torch::Tensor y) {
  torch::optim::Adam opt(model->parameters());
  for (int it = 0; it < 100; ++it) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    double l = loss.item<double>();
    if (std::isfinite(l)) {
      opt.step();
    }
  }
}

// The skipping branch discards the bad gradients after backward(): it does
// not reach the step, so nothing is cleared between backward() and step().
void discardBadGradients(torch::nn::Linear &model, torch::optim::Adam &opt,
                         torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    if (!std::isfinite(loss.item<double>())) {
      opt.zero_grad();
      continue;
    }
    opt.step();
    opt.zero_grad();
  }
}

void discardAndStop(torch::nn::Linear &model, torch::optim::Adam &opt,
                    torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    if (loss.isnan().item<bool>()) {
      opt.zero_grad();
      break;
    }
    opt.step();
  }
}

// A skipping switch case that clears, and a clearing on every iteration.
void skipCaseClearsToo(torch::nn::Linear &model, torch::optim::Adam &opt,
                       torch::Tensor x, torch::Tensor y, int mode) {
  for (int it = 0; it < 100; ++it) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    switch (mode) {
    case 1:
      opt.zero_grad();
      continue;
    default:
      break;
    }
    opt.step();
  }
}

// Twin, positive: a clearing between backward() and step() on the path that
// reaches the step is still reported, under a test or not.
void clearedBeforeStepOnSomePath(torch::nn::Linear &model,
                                 torch::optim::Adam &opt, torch::Tensor x,
                                 torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    if (!std::isfinite(loss.item<double>()))
      log_skip(it);
    opt.zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: gradients cleared between backward() and step(): the step applies zero gradients and the model never learns; clear them before backward() [torch-missing-zero-grad]
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the step that finds them cleared
  }
}

// --- Clearing only on paths that leave the iteration (not syntactic tails) ----

[[noreturn]] void fail(const char *why);

// A switch case that clears and continues.
void skipCase(torch::nn::Linear &model, torch::optim::Adam &opt,
              torch::Tensor x, torch::Tensor y, int mode) {
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    switch (mode) {
    case 1:
      opt.zero_grad();
      continue;
    default:
      break;
    }
    loss.backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that clears gradients only on iterations that skip the step
    // CHECK-MESSAGES: :[[@LINE-8]]:7: note: gradients are cleared only here, on a path that leaves the iteration
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

// The branch ends in a call that does not return.
void clearThenFail(torch::nn::Linear &model, torch::optim::Adam &opt,
                   torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    if (!finite(loss)) {
      opt.zero_grad();
      fail("diverged");
    }
    loss.backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that clears gradients only on iterations that skip the step
    // CHECK-MESSAGES: :[[@LINE-6]]:7: note: gradients are cleared only here, on a path that leaves the iteration
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

// The branch leaves the iteration on both arms of a nested test.
void clearThenRetryOrStop(torch::nn::Linear &model, torch::optim::Adam &opt,
                          torch::Tensor x, torch::Tensor y) {
  int skipped = 0;
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    if (!finite(loss)) {
      opt.zero_grad();
      if (++skipped > 10)
        break;
      else
        continue;
    }
    loss.backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that clears gradients only on iterations that skip the step
    // CHECK-MESSAGES: :[[@LINE-9]]:7: note: gradients are cleared only here, on a path that leaves the iteration
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

// Twin, negative: the nested test may fall through to the step.
void clearThenMaybeRetry(torch::nn::Linear &model, torch::optim::Adam &opt,
                         torch::Tensor x, torch::Tensor y) {
  int skipped = 0;
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    if (!finite(loss)) {
      opt.zero_grad();
      if (++skipped > 10)
        continue;
    }
    loss.backward();
    opt.step();
  }
}

// A `break` that leaves an inner loop or a switch, not the iteration: the
// clearing is on the path to the step.
void clearInRetryLoop(torch::nn::Linear &model, torch::optim::Adam &opt,
                      torch::Tensor x, torch::Tensor y, bool ready) {
  for (int it = 0; it < 100; ++it) {
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (ready) {
        opt.zero_grad();
        break;
      }
      log_skip(attempt);
    }
    torch::mse_loss(model(x), y).backward();
    opt.step();
  }
}

void clearInSwitch(torch::nn::Linear &model, torch::optim::Adam &opt,
                   torch::Tensor x, torch::Tensor y, int mode) {
  for (int it = 0; it < 100; ++it) {
    switch (mode) {
    case 0:
      if (it > 0) {
        opt.zero_grad();
        break;
      }
      model->zero_grad();
      break;
    default:
      opt.zero_grad();
      break;
    }
    torch::mse_loss(model(x), y).backward();
    opt.step();
  }
}

// --- Guards that skip a bad step are not accumulation -------------------------

// Twin of skipNanStep without the clearing: the guard is no schedule, the
// loop never clears (the optimizer is the caller's all the same).
void skipNanNeverClears(torch::nn::Linear &model, torch::optim::Adam &opt,
                        torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    if (!loss.isnan().item<bool>())
      opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer step in a training loop that never clears gradients
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

// The clearing between backward() and the guarded step.
void clearedBeforeGuardedStep(torch::nn::Linear &model,
                              torch::optim::Adam &opt, torch::Tensor x,
                              torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: gradients cleared between backward() and step()
    if (std::isfinite(loss.item<double>()))
      opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:7: note: the step that finds them cleared
  }
}

// Negative twins: a schedule (accumulation over 4 batches) with the
// caller's optimizer, and a guarded step that clears after stepping.
void accumulateFour(torch::nn::Linear &model, torch::optim::Adam &opt,
                    torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    torch::mse_loss(model(x), y).backward();
    if ((it + 1) % 4 == 0)
      opt.step();
  }
}

void guardedStepThenClear(torch::nn::Linear &model, torch::optim::Adam &opt,
                          torch::Tensor x, torch::Tensor y) {
  for (int it = 0; it < 100; ++it) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    if (torch::isfinite(loss).all().item<bool>()) {
      opt.step();
      opt.zero_grad();
    }
  }
}
