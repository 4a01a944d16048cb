// RUN: %check_torch_tidy %s torch-optimizer-created-in-loop %t -- -- -isystem %mock_torch

// An optimizer built by a function (a per-epoch helper, a member function)
// that the training loop calls with the same model every iteration.

#include <torch/torch.h>

#include <memory>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

void train_epoch(Net &model, const Batches &data, double lr) {
  torch::optim::Adam opt(model->parameters(), lr);
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: optimizer constructed in a function called inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop and pass it in [torch-optimizer-created-in-loop]
  for (const auto &b : data) {
    opt.zero_grad();
    model->forward(b.first).sum().backward();
    opt.step();
  }
}

void train_epoch_with(Net &model, torch::optim::Optimizer &opt,
                      const Batches &data) {
  for (const auto &b : data) {
    opt.zero_grad();
    model->forward(b.first).sum().backward();
    opt.step();
  }
}

void fit(Net &model, const Batches &data, int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch)
    train_epoch(model, data, 1e-3);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: called inside the training loop here
  // CHECK-MESSAGES: :[[@LINE-4]]:15: note: its parameters come from 'model', which outlives the loop
}

// Not flagged: the optimizer made once and passed in; a fresh model each
// iteration; the helper called once.
void fit_once(Net &model, const Batches &data, int epochs) {
  torch::optim::Adam opt(model->parameters());
  for (int epoch = 0; epoch < epochs; ++epoch)
    train_epoch_with(model, opt, data);
}

void search(const Batches &data, const std::vector<double> &lrs) {
  for (double lr : lrs) {
    Net fresh;
    for (int epoch = 0; epoch < 3; ++epoch)
      train_epoch_with(fresh, *std::make_unique<torch::optim::SGD>(
                                  fresh->parameters(), 0.1), data);
  }
  for (double lr : lrs) {
    Net fresh;
    train_epoch(fresh, data, lr);
  }
}

void train_once(Net &model, const Batches &data) { train_epoch(model, data, 1e-3); }

struct Trainer {
  Net model_;
  std::unique_ptr<torch::optim::Adam> kept_;
  Batches data_;

  void epoch_member() {
    torch::optim::Adam opt(model_->parameters());
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed in a function called inside the training loop
    for (const auto &b : data_) {
      opt.zero_grad();
      model_->forward(b.first).sum().backward();
      opt.step();
    }
  }
  void epoch_kept() {
    if (!kept_)
      kept_ = std::make_unique<torch::optim::Adam>(model_->parameters());
    for (const auto &b : data_) {
      kept_->zero_grad();
      model_->forward(b.first).sum().backward();
      kept_->step();
    }
  }
  void run(int epochs) {
    for (int e = 0; e < epochs; ++e) {
      epoch_member();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: note: called inside the training loop here
      // CHECK-MESSAGES: :[[@LINE-26]]:7: note: its parameters come from 'model_', which outlives the loop
      epoch_kept();
    }
  }
};

// --- Factories: a function that returns a new optimizer ------------------------

torch::optim::Adam make_adam(Net &model, double lr) {
  return torch::optim::Adam(model->parameters(), torch::optim::AdamOptions(lr));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: optimizer constructed in a function called inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop and pass it in [torch-optimizer-created-in-loop]
  // CHECK-MESSAGES: :[[@LINE+13]]:16: note: called inside the training loop here
  // CHECK-MESSAGES: :[[@LINE+10]]:30: note: its parameters come from 'model', which outlives the loop
}

std::unique_ptr<torch::optim::Optimizer> make_rmsprop(Net &model) {
  return std::make_unique<torch::optim::RMSprop>(model->parameters(), 0.01);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: optimizer constructed in a function called inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop and pass it in [torch-optimizer-created-in-loop]
  // CHECK-MESSAGES: :[[@LINE+17]]:16: note: called inside the training loop here
  // CHECK-MESSAGES: :[[@LINE+14]]:29: note: its parameters come from 'model', which outlives the loop
}

void factory_each_epoch(Net &model, const Batches &data) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto opt = make_adam(model, 1e-3 / (epoch + 1));
    for (const auto &b : data) {
      opt.zero_grad();
      model->forward(b.first).sum().backward();
      opt.step();
    }
  }
}

void factory_each_step(Net &model, const Batches &data) {
  for (const auto &b : data) {
    auto opt = make_rmsprop(model);
    opt->zero_grad();
    model->forward(b.first).sum().backward();
    opt->step();
  }
}

// Negative: the factory is called once, before the loop.
void factory_once(Net &model, const Batches &data) {
  auto opt = make_adam(model, 1e-3);
  for (const auto &b : data) {
    opt.zero_grad();
    model->forward(b.first).sum().backward();
    opt.step();
  }
}

// Negative: a deliberate restart every 50 epochs, into an optimizer kept
// across iterations.
void factory_restart(Net &model, const Batches &data) {
  auto opt = make_rmsprop(model);
  for (int epoch = 0; epoch < 200; ++epoch) {
    if (epoch % 50 == 0)
      opt = make_rmsprop(model);
    for (const auto &b : data) {
      opt->zero_grad();
      model->forward(b.first).sum().backward();
      opt->step();
    }
  }
}

// Negative: a fresh model per trial, and its optimizer from the factory.
void factory_fresh_model(const Batches &data) {
  for (int trial = 0; trial < 5; ++trial) {
    Net model;
    auto opt = make_adam(model, 1e-3);
    for (const auto &b : data) {
      opt.zero_grad();
      model->forward(b.first).sum().backward();
      opt.step();
    }
  }
}

// A factory that picks the kind from a configuration: every return makes a
// new optimizer, so every call does.
struct OptimConfig {
  bool adam = true;
  double lr = 1e-3;
};

std::unique_ptr<torch::optim::Optimizer>
build_optimizer(const OptimConfig &cfg, std::vector<torch::Tensor> params) {
  if (cfg.adam)
    return std::make_unique<torch::optim::Adam>(std::move(params),
                                                torch::optim::AdamOptions(cfg.lr));
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: optimizer constructed in a function called inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop and pass it in [torch-optimizer-created-in-loop]
  // CHECK-MESSAGES: :[[@LINE+10]]:16: note: called inside the training loop here
  // CHECK-MESSAGES: :[[@LINE+7]]:8: note: its parameters come from 'params', which outlives the loop
  return std::make_unique<torch::optim::RMSprop>(std::move(params),
                                                 torch::optim::RMSpropOptions(cfg.lr));
}

void config_factory_each_epoch(Net &model, const Batches &data,
                               const OptimConfig &cfg) {
  auto params = model->parameters();
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto opt = build_optimizer(cfg, params);
    for (const auto &b : data) {
      opt->zero_grad();
      model->forward(b.first).sum().backward();
      opt->step();
    }
  }
}

// Negative: a factory that makes its optimizer once and hands it out again.
struct OptimizerCache {
  std::unique_ptr<torch::optim::Optimizer> kept;
  torch::optim::Optimizer *get(Net &model) {
    if (!kept)
      kept = std::make_unique<torch::optim::Adam>(model->parameters());
    return kept.get();
  }
};

void cached_factory_each_epoch(Net &model, const Batches &data) {
  OptimizerCache cache;
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::optim::Optimizer *opt = cache.get(model);
    for (const auto &b : data) {
      opt->zero_grad();
      model->forward(b.first).sum().backward();
      opt->step();
    }
  }
}

// --- A factory lambda ------------------------------------------------------------

void lambda_factory(Net &model, const Batches &data) {
  double lr = 1e-3;
  auto make_optimizer = [&]() {
    return torch::optim::Adam(model->parameters(), torch::optim::AdamOptions(lr));
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: optimizer constructed in a function called inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop and pass it in [torch-optimizer-created-in-loop]
    // CHECK-MESSAGES: :[[@LINE+4]]:16: note: called inside the training loop here
    // CHECK-MESSAGES: :[[@LINE-6]]:26: note: its parameters come from 'model', which outlives the loop
  };
  for (int epoch = 0; epoch < 50; ++epoch) {
    auto opt = make_optimizer();
    for (const auto &b : data) {
      opt.zero_grad();
      model->forward(b.first).sum().backward();
      opt.step();
    }
    lr *= 0.95;
  }
}

// Negative: the lambda is called once.
void lambda_factory_once(Net &model, const Batches &data) {
  auto make_optimizer = [&]() {
    return torch::optim::Adam(model->parameters(), torch::optim::AdamOptions(1e-3));
  };
  auto opt = make_optimizer();
  for (const auto &b : data) {
    opt.zero_grad();
    model->forward(b.first).sum().backward();
    opt.step();
  }
}

// --- A method that replaces a member optimizer, called every epoch ----------------

class EpochTrainer {
public:
  void resetOptimizer(double lr) {
    opt_ = std::make_unique<torch::optim::Adam>(
        model_->parameters(), torch::optim::AdamOptions(lr));
    // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: optimizer constructed in a function called inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop and pass it in [torch-optimizer-created-in-loop]
  }
  void restartIfMissing(double lr) {
    if (!opt_)
      opt_ = std::make_unique<torch::optim::Adam>(
          model_->parameters(), torch::optim::AdamOptions(lr));
  }
  void run(int epochs) {
    double lr = 1e-2;
    for (int e = 0; e < epochs; ++e) {
      resetOptimizer(lr);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: note: called inside the training loop here
      restartIfMissing(lr);
      lr *= 0.9;
      opt_->zero_grad();
      model_->forward(torch::randn({8, 4})).sum().backward();
      opt_->step();
    }
  }

private:
  torch::nn::Linear model_{4, 1};
  // CHECK-MESSAGES: :[[@LINE-1]]:21: note: its parameters come from 'model_', which outlives the loop
  std::unique_ptr<torch::optim::Adam> opt_;
};

// Negative: the same method called once, before the loop.
class OnceEpochTrainer {
public:
  void resetOptimizer(double lr) {
    opt_ = std::make_unique<torch::optim::Adam>(
        model_->parameters(), torch::optim::AdamOptions(lr));
  }
  void run(int epochs) {
    resetOptimizer(1e-2);
    for (int e = 0; e < epochs; ++e) {
      opt_->zero_grad();
      model_->forward(torch::randn({8, 4})).sum().backward();
      opt_->step();
    }
  }

private:
  torch::nn::Linear model_{4, 1};
  std::unique_ptr<torch::optim::Adam> opt_;
};
