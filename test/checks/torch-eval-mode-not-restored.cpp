// RUN: %check_torch_tidy %s torch-eval-mode-not-restored %t -- -- -isystem %mock_torch

#include <torch/torch.h>

#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc{4, 2};
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

double validate_inline(Net &model, const Batches &data);

// --- Flagged ---------------------------------------------------------------------

void no_train_at_all(Net &model, torch::optim::Optimizer &opt, const Batches &train,
                     const Batches &val) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &b : train) {
      opt.zero_grad();
      auto loss = torch::mse_loss(model->forward(b.first), b.second);
      loss.backward();
      opt.step();
    }
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
    // CHECK-MESSAGES: :[[@LINE-6]]:35: note: trained here without train() on some path since
    torch::NoGradGuard no_grad;
    for (const auto &b : val)
      model(b.first);
  }
}

// train() only on some paths.
void conditional_train(Net &model, torch::optim::Optimizer &opt, const Batches &train,
                       int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    if (epoch == 0)
      model->train();
    for (const auto &b : train) {
      auto out = model(b.first);
      torch::mse_loss(out, b.second).backward();
      opt.step();
    }
    if (epoch % 2 == 0) {
      model.ptr()->eval();
      (*model).eval();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: module put into evaluation mode in a training loop
      // CHECK-MESSAGES: :[[@LINE-8]]:18: note: trained here
    }
  }
}

// A while loop, a member module, a shared_ptr to the module.
struct Trainer {
  Net model;
  std::shared_ptr<NetImpl> other;
  torch::optim::Optimizer *opt;
  void fit(const Batches &train) {
    int epoch = 0;
    while (epoch++ < 5) {
      for (const auto &b : train) {
        torch::mse_loss(model(b.first), b.second).backward();
        opt->step();
      }
      this->model->eval();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: module put into evaluation mode in a training loop
      // CHECK-MESSAGES: :[[@LINE-5]]:25: note: trained here
    }
  }
  void fit_ptr(const Batches &train) {
    for (int epoch = 0; epoch < 5; ++epoch) {
      for (const auto &b : train) {
        torch::mse_loss(other->forward(b.first), b.second).backward();
        opt->step();
      }
      other->eval();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: module put into evaluation mode in a training loop
      // CHECK-MESSAGES: :[[@LINE-5]]:25: note: trained here
    }
  }
};

// Helpers of the translation unit: eval() on a parameter counts as eval() on
// the argument.
double evaluate(Net &net, const Batches &data) {
  net->eval();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: module put into evaluation mode in a training loop
  // CHECK-MESSAGES: :[[@LINE+21]]:5: note: evaluation mode set by this call inside the training loop
  // CHECK-MESSAGES: :[[@LINE+19]]:5: note: trained here
  torch::NoGradGuard no_grad;
  double total = 0;
  for (const auto &b : data)
    total += torch::mse_loss(net(b.first), b.second).item<double>();
  return total;
}

void train_epoch(Net &net, torch::optim::Optimizer &opt, const Batches &data) {
  for (const auto &b : data) {
    opt.zero_grad();
    torch::mse_loss(net(b.first), b.second).backward();
    opt.step();
  }
}

void helpers(Net &model, torch::optim::Optimizer &opt, const Batches &train,
             const Batches &val) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    train_epoch(model, opt, train);
    evaluate(model, val);
  }
}

// --- Not flagged -------------------------------------------------------------------

void train_at_top(Net &model, torch::optim::Optimizer &opt, const Batches &train,
                  const Batches &val) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    model->train();
    for (const auto &b : train) {
      torch::mse_loss(model(b.first), b.second).backward();
      opt.step();
    }
    model->eval();
    torch::NoGradGuard no_grad;
    for (const auto &b : val)
      model(b.first);
  }
}

void train_after_eval(Net &model, torch::optim::Optimizer &opt, const Batches &train) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &b : train) {
      torch::mse_loss(model(b.first), b.second).backward();
      opt.step();
    }
    model->eval();
    for (const auto &b : train)
      model(b.first);
    model->train(true);
  }
}

// train() inside the batch loop, before the forward.
void train_in_batch_loop(Net &model, torch::optim::Optimizer &opt, const Batches &train) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &b : train) {
      model->train();
      torch::mse_loss(model(b.first), b.second).backward();
      opt.step();
    }
    model->eval();
  }
}

void eval_after_loop(Net &model, torch::optim::Optimizer &opt, const Batches &train) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &b : train) {
      torch::mse_loss(model(b.first), b.second).backward();
      opt.step();
    }
  }
  model->eval();
}

void eval_other_module(Net &model, Net &teacher, torch::optim::Optimizer &opt,
                       const Batches &train) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    teacher->eval();
    for (const auto &b : train) {
      auto target = teacher(b.first);
      torch::mse_loss(model(b.first), target).backward();
      opt.step();
    }
  }
}

void never_trains(Net &model, const std::vector<Batches> &folds) {
  for (const auto &fold : folds) {
    model->eval();
    for (const auto &b : fold)
      model(b.first);
  }
}

// train(false) is eval(); a helper that calls train() on its parameter
// counts as train().
void set_training(Net &net) { net->train(); }
void helper_train(Net &model, torch::optim::Optimizer &opt, const Batches &train) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    set_training(model);
    for (const auto &b : train) {
      torch::mse_loss(model(b.first), b.second).backward();
      opt.step();
    }
    evaluate(model, train);
  }
}

// The training helper sets train() itself.
void train_epoch_sets_mode(Net &net, torch::optim::Optimizer &opt, const Batches &data) {
  net->train();
  for (const auto &b : data) {
    torch::mse_loss(net(b.first), b.second).backward();
    opt.step();
  }
}
void helper_sets_mode(Net &model, torch::optim::Optimizer &opt, const Batches &train) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    train_epoch_sets_mode(model, opt, train);
    evaluate(model, train);
  }
}

// --- Templates, macros, lambdas, NOLINT -----------------------------------------------

template <typename Model>
void templated(Model &model, torch::optim::Optimizer &opt, const Batches &train) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &b : train) {
      torch::mse_loss(model->forward(b.first), b.second).backward();
      opt.step();
    }
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop
    // CHECK-MESSAGES: :[[@LINE-5]]:23: note: trained here
  }
}
template void templated(Net &, torch::optim::Optimizer &, const Batches &);

template <typename Model>
void templated_fixed(Model &model, torch::optim::Optimizer &opt, const Batches &train) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    model->train();
    for (const auto &b : train) {
      torch::mse_loss(model->forward(b.first), b.second).backward();
      opt.step();
    }
    model->eval();
  }
}
template void templated_fixed(Net &, torch::optim::Optimizer &, const Batches &);

#define VALIDATE(m) (m)->eval()
void macro(Net &model, torch::optim::Optimizer &opt, const Batches &train) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &b : train) {
      torch::mse_loss(model(b.first), b.second).backward();
      opt.step();
    }
    VALIDATE(model);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop
    // CHECK-MESSAGES: :[[@LINE-5]]:23: note: trained here
  }
}

void lambda(Net &model, torch::optim::Optimizer &opt, const Batches &train) {
  auto run = [&] {
    for (int epoch = 0; epoch < 10; ++epoch) {
      for (const auto &b : train) {
        torch::mse_loss(model(b.first), b.second).backward();
        opt.step();
      }
      model->eval();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: module put into evaluation mode in a training loop
      // CHECK-MESSAGES: :[[@LINE-5]]:25: note: trained here
    }
  };
  run();
}

void suppressed(Net &model, torch::optim::Optimizer &opt, const Batches &train) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &b : train) {
      torch::mse_loss(model(b.first), b.second).backward();
      opt.step();
    }
    model->eval(); // NOLINT(torch-eval-mode-not-restored)
  }
}
