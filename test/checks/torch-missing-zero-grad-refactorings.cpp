// Found by bench/metamorphic.py (docs/precision.md, "Refactoring invariance"):
// the same training loop, refactored without changing what it does, gets the
// same verdict. A step moved into a helper is judged with the optimizer the
// call passes; a step written in both branches of an if runs on every
// iteration, as one step outside the if would.
// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

bool opaque();

// --- Negative: the loop clears the optimizer the helper steps ------------------------

static void apply(torch::optim::SGD &o) { o.step(); }

void cleared_step_in_helper(Net &model, torch::optim::SGD &opt,
                            const std::vector<torch::Tensor> &inputs) {
  for (const auto &x : inputs) {
    opt.zero_grad();
    torch::Tensor loss = model->forward(x).sum();
    loss.backward();
    apply(opt);
  }
}

// --- Positive: ... and one that clears another optimizer ----------------------------

static void apply_other(torch::optim::SGD &o) { o.step(); }
// CHECK-MESSAGES: :[[@LINE-1]]:49: warning: optimizer step in 'apply_other', which a training loop calls, and nothing in that loop clears gradients

void other_cleared_step_in_helper(Net &model, torch::optim::SGD &opt,
                                  torch::optim::SGD &other,
                                  const std::vector<torch::Tensor> &inputs) {
  for (const auto &x : inputs) {
    other.zero_grad();
    torch::Tensor loss = model->forward(x).sum();
    loss.backward();
    apply_other(opt);
  }
}

// --- Positive: a step on both branches is a step on every iteration ------------------

void step_in_both_branches(Net &model, torch::optim::SGD &opt,
                           const std::vector<torch::Tensor> &inputs) {
  for (const auto &x : inputs) {
    torch::Tensor loss = model->forward(x).sum();
    loss.backward();
    if (opaque()) {
      opt.step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer step in a training loop that never clears gradients
    } else {
      opt.step();
    }
  }
}

// --- Negative: a step on one branch only is a schedule (accumulation on purpose) -----

void step_in_one_branch(Net &model, torch::optim::SGD &opt,
                        const std::vector<torch::Tensor> &inputs) {
  int i = 0;
  for (const auto &x : inputs) {
    torch::Tensor loss = model->forward(x).sum();
    loss.backward();
    if (++i % 4 == 0) {
      opt.step();
      opt.zero_grad();
    } else {
      loss = loss * 1;
    }
  }
}
