// RUN: %check_torch_tidy %s torch-eval-mode-not-restored %t -- -- -isystem %mock_torch

// Paths that leave the training loop: a module left in eval() only on the
// last iteration is never trained again, whichever way the code says "last".

#include <torch/torch.h>

#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc{4, 2};
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

void test(Net &model, const Batches &data);

void train_epoch(Net &model, torch::optim::Optimizer &opt, const Batches &data) {
  for (const auto &b : data) {
    opt.zero_grad();
    torch::mse_loss(model->forward(b.first), b.second).backward();
    opt.step();
  }
}

// --- Not flagged: train() on every iteration but the last --------------------

void restore_unless_last_le(Net &model, torch::optim::Optimizer &opt,
                            const Batches &data, int epochs) {
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    train_epoch(model, opt, data);
    model->eval();
    test(model, data);
    if (epoch != epochs)
      model->train();
  }
}

void restore_unless_last_lt(Net &model, torch::optim::Optimizer &opt,
                            const Batches &data, int epochs) {
  for (int epoch = 0; epoch < epochs; epoch++) {
    train_epoch(model, opt, data);
    model->eval();
    test(model, data);
    if (epoch < epochs - 1) {
      model->train();
    }
  }
}

void restore_unless_last_plus_one(Net &model, torch::optim::Optimizer &opt,
                                  const Batches &data, size_t n) {
  for (size_t i = 0; i < n; i += 1) {
    train_epoch(model, opt, data);
    model->eval();
    test(model, data);
    if (!(i + 1 == n))
      model->train();
  }
}

void restore_unless_last_constant_bound(Net &model, torch::optim::Optimizer &opt,
                                        const Batches &data) {
  for (int epoch = 0; 20 > epoch; epoch = epoch + 1) {
    train_epoch(model, opt, data);
    model->eval();
    test(model, data);
    epoch + 1 < 20 ? model->train() : model->eval();
  }
}

void restore_else_branch(Net &model, torch::optim::Optimizer &opt,
                         const Batches &data, int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    train_epoch(model, opt, data);
    model->eval();
    test(model, data);
    if (epoch >= epochs - 1 && !data.empty()) {
      // Kept in evaluation mode for what follows the loop.
    } else {
      model->train();
    }
  }
}

void break_on_last(Net &model, torch::optim::Optimizer &opt, const Batches &data,
                   int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    train_epoch(model, opt, data);
    model->eval();
    test(model, data);
    if (epoch + 1 == epochs)
      break;
    model->train();
  }
}

void eval_only_on_last(Net &model, torch::optim::Optimizer &opt,
                       const Batches &data, int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    train_epoch(model, opt, data);
    if (epoch == epochs - 1) {
      model->eval();
      test(model, data);
    }
  }
}

void eval_after_continue(Net &model, torch::optim::Optimizer &opt,
                         const Batches &data, int epochs) {
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    train_epoch(model, opt, data);
    if (epoch < epochs)
      continue;
    model->eval();
    test(model, data);
  }
}

// --- Flagged: the same shapes with a test that is not "last iteration" --------

void restore_unless_first(Net &model, torch::optim::Optimizer &opt,
                          const Batches &data, int epochs) {
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    train_epoch(model, opt, data);
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: trained here without train() on some path since
    test(model, data);
    if (epoch != 1)
      model->train();
  }
}

void restore_unless_second_to_last(Net &model, torch::optim::Optimizer &opt,
                                   const Batches &data, int epochs) {
  for (int epoch = 0; epoch < epochs; epoch++) {
    train_epoch(model, opt, data);
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: trained here without train()
    test(model, data);
    if (epoch < epochs - 2)
      model->train();
  }
}

void restore_unless_other_bound(Net &model, torch::optim::Optimizer &opt,
                                const Batches &data, int epochs, int best) {
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    train_epoch(model, opt, data);
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: trained here without train()
    test(model, data);
    if (epoch != best)
      model->train();
  }
}

void break_on_other(Net &model, torch::optim::Optimizer &opt, const Batches &data,
                    int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    train_epoch(model, opt, data);
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: trained here without train()
    test(model, data);
    if (epoch % 10 == 0)
      continue;
    model->train();
  }
}

void eval_on_first(Net &model, torch::optim::Optimizer &opt, const Batches &data,
                   int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    train_epoch(model, opt, data);
    if (epoch == 0) {
      model->eval();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: module put into evaluation mode
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: trained here without train()
      test(model, data);
    }
  }
}

void eval_after_continue_counting_down(Net &model, torch::optim::Optimizer &opt,
                                       const Batches &data, int epochs) {
  // Counting down: which iteration is last is not worked out.
  for (int epoch = epochs; epoch > 0; --epoch) {
    train_epoch(model, opt, data);
    if (epoch < epochs)
      continue;
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: trained here without train()
    test(model, data);
  }
}
