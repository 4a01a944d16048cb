// Gradient accumulation: a step every few iterations is deliberate, but the
// gradients must still be cleared after each step, somewhere in the loops
// around it.
// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Positive ----------------------------------------------------------------

void everyK(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  const int accum = 4;
  for (int i = 0; i < 100; ++i) {
    auto loss = model(torch::randn({2, 4})).sum() / accum;
    loss.backward();
    if ((i + 1) % accum == 0)
      opt.step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer step every few iterations, but gradients are never cleared: after the first step each backward() adds to gradients that were already applied; call zero_grad() on the optimizer after each step() [torch-missing-zero-grad]
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate here
  }
}

// Cleared once, before training: after the first step nothing clears.
void clearedOnceBefore(torch::nn::Linear model) {
  torch::optim::Adam opt(model->parameters());
  opt.zero_grad();
  int n = 0;
  for (int epoch = 0; epoch < 10; ++epoch)
    for (int b = 0; b < 8; ++b) {
      model(torch::randn({2, 4})).sum().backward();
      if (++n == 4) {
        opt.step();
        // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: optimizer step every few iterations, but gradients are never cleared: after the first step each backward() adds to gradients that were already applied; call zero_grad() on the optimizer after each step() [torch-missing-zero-grad]
        // CHECK-MESSAGES: :[[@LINE-4]]:7: note: gradients accumulate here
        n = 0;
      }
    }
}

// --- Negative twins -------------------------------------------------------------

void clearedAfterStep(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  for (int i = 0; i < 100; ++i) {
    model(torch::randn({2, 4})).sum().backward();
    if ((i + 1) % 4 == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
}

// One step per epoch, at the last batch; cleared once per epoch.
void perEpoch(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  for (int epoch = 0; epoch < 10; ++epoch) {
    opt.zero_grad();
    for (int b = 0; b < 8; ++b) {
      model(torch::randn({2, 4})).sum().backward();
      if (b == 7)
        opt.step();
    }
  }
}

// The module clears.
void moduleClears(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  for (int i = 0; i < 100; ++i) {
    model(torch::randn({2, 4})).sum().backward();
    if (i % 4 == 3) {
      opt.step();
      model->zero_grad();
    }
  }
}

// The optimizer belongs to the caller, which may clear around the call.
void withCallersOptimizer(torch::nn::Linear model, torch::optim::SGD &opt) {
  for (int b = 0; b < 8; ++b) {
    model(torch::randn({2, 4})).sum().backward();
    if (b == 7)
      opt.step();
  }
}
