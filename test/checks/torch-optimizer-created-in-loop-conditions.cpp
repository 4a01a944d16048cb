// An optimizer made under a condition inside the training loop is made on
// some iterations only when the condition may change: `if (!opt)`, `if
// (epoch == 0)`, a flag the loop sets. A periodic condition (`epoch % 20 ==
// 0`, a learning-rate schedule by reconstruction) or one the loop never
// changes (`if (cfg.reset_optimizer)`) throws the state away again and again.
// The training loop may step through a helper of the user's code.
// RUN: %check_torch_tidy %s torch-optimizer-created-in-loop %t -- -- -isystem %mock_torch

#include <memory>
#include <torch/torch.h>

struct Config {
  bool reset_optimizer = true;
  double lr = 0.1;
};

void trainEpoch(torch::nn::Linear &model, torch::optim::Optimizer &opt,
                torch::Tensor x) {
  for (int b = 0; b < 10; ++b) {
    opt.zero_grad();
    model(x).sum().backward();
    opt.step();
  }
}

// --- Positive ------------------------------------------------------------------

void periodicRebuild(torch::nn::Linear model, torch::Tensor x) {
  std::unique_ptr<torch::optim::SGD> optimizer;
  double lr = 0.1;
  for (int epoch = 0; epoch < 90; ++epoch) {
    if (epoch % 20 == 0) {
      optimizer = std::make_unique<torch::optim::SGD>(
          model->parameters(), torch::optim::SGDOptions(lr).momentum(0.9));
      // CHECK-MESSAGES: :[[@LINE-2]]:19: warning: optimizer reconstructed periodically inside the training loop starts from fresh state every time (moments, momentum buffers, step count); construct it once before the loop and change the learning rate in its param_groups() options [torch-optimizer-created-in-loop]
      // CHECK-MESSAGES: :[[@LINE-8]]:40: note: its parameters come from 'model', which outlives the loop
      lr *= 0.2;
    }
    trainEpoch(model, *optimizer, x);
  }
}

// `opt.reset(new ...)` every ten epochs.
void periodicReset(torch::nn::Linear model, torch::Tensor x) {
  std::unique_ptr<torch::optim::Adam> opt;
  for (int epoch = 0; epoch < 100; ++epoch) {
    if (epoch % 10 == 0)
      opt.reset(new torch::optim::Adam(model->parameters()));
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: optimizer reconstructed periodically{{.*}} [torch-optimizer-created-in-loop]
    // CHECK-MESSAGES: :[[@LINE-6]]:38: note: its parameters come from 'model', which outlives the loop
    trainEpoch(model, *opt, x);
  }
}

void configFlag(torch::nn::Linear model, torch::Tensor x, Config cfg) {
  auto make_optimizer = [&]() {
    return std::make_unique<torch::optim::Adam>(
        model->parameters(), torch::optim::AdamOptions(cfg.lr));
  };
  auto optimizer = make_optimizer();
  for (int epoch = 0; epoch < 12; ++epoch) {
    if (cfg.reset_optimizer)
      optimizer = make_optimizer();
    // CHECK-MESSAGES: :[[@LINE-7]]:12: warning: optimizer constructed in a function called inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop and pass it in [torch-optimizer-created-in-loop]
    // CHECK-MESSAGES: :[[@LINE-2]]:19: note: called inside the training loop here
    // CHECK-MESSAGES: :[[@LINE-11]]:35: note: its parameters come from 'model'{{.*}}
    trainEpoch(model, *optimizer, x);
  }
}

void invariantLocalFlag(torch::nn::Linear model, torch::Tensor x,
                        bool use_adam) {
  std::unique_ptr<torch::optim::Optimizer> opt;
  for (int epoch = 0; epoch < 12; ++epoch) {
    if (use_adam)
      opt = std::make_unique<torch::optim::Adam>(model->parameters());
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: optimizer constructed inside the training loop starts from fresh state on every iteration{{.*}} [torch-optimizer-created-in-loop]
    trainEpoch(model, *opt, x);
  }
}

// --- Negative twins ---------------------------------------------------------------

void lazyInit(torch::nn::Linear model, torch::Tensor x) {
  std::unique_ptr<torch::optim::Adam> opt;
  for (int epoch = 0; epoch < 12; ++epoch) {
    if (!opt)
      opt = std::make_unique<torch::optim::Adam>(model->parameters());
    trainEpoch(model, *opt, x);
  }
}

void firstEpoch(torch::nn::Linear model, torch::Tensor x) {
  std::unique_ptr<torch::optim::Adam> opt;
  for (int epoch = 0; epoch < 12; ++epoch) {
    if (epoch == 0)
      opt = std::make_unique<torch::optim::Adam>(model->parameters());
    trainEpoch(model, *opt, x);
  }
}

// A flag the loop sets: a restart on a plateau, now and then.
void onPlateau(torch::nn::Linear model, torch::Tensor x) {
  bool restart = true;
  std::unique_ptr<torch::optim::Adam> opt;
  for (int epoch = 0; epoch < 12; ++epoch) {
    if (restart) {
      opt = std::make_unique<torch::optim::Adam>(model->parameters());
      restart = false;
    }
    trainEpoch(model, *opt, x);
    restart = epoch > 6 && epoch % 3 == 1;
  }
}

void factoryOnStageChange(torch::nn::Linear model, torch::Tensor x) {
  auto make_optimizer = [&]() {
    return std::make_unique<torch::optim::Adam>(model->parameters());
  };
  auto optimizer = make_optimizer();
  int stage = 0;
  for (int epoch = 0; epoch < 12; ++epoch) {
    if (epoch / 3 != stage) {
      stage = epoch / 3;
      optimizer = make_optimizer();
    }
    trainEpoch(model, *optimizer, x);
  }
}
