// A validation step written as a lambda (called directly, or kept in a
// std::function) acts on the modules it captured: the caller's own.
// RUN: %check_torch_tidy %s torch-eval-mode-not-restored %t -- -- -isystem %mock_torch

#include <functional>
#include <torch/torch.h>
#include <vector>

// --- Positive ------------------------------------------------------------------

void lambdaValidation(torch::nn::Linear model, torch::optim::SGD &opt,
                      const std::vector<torch::Tensor> &xs) {
  auto validate = [&]() {
    torch::NoGradGuard guard;
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
    // CHECK-MESSAGES: :[[@LINE+14]]:5: note: evaluation mode set by this call inside the training loop
    // CHECK-MESSAGES: :[[@LINE+10]]:7: note: trained here without train() on some path since
    double sum = 0;
    for (const auto &x : xs)
      sum += model->forward(x).sum().item<double>();
    return sum;
  };
  model->train();
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    validate();
  }
}

void callbackValidation(torch::nn::Linear model, torch::optim::SGD &opt,
                        const std::vector<torch::Tensor> &xs) {
  std::function<void()> on_epoch_end = [&]() {
    torch::NoGradGuard guard;
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
    // CHECK-MESSAGES: :[[@LINE+12]]:5: note: evaluation mode set by this call inside the training loop
    // CHECK-MESSAGES: :[[@LINE+8]]:7: note: trained here without train() on some path since
    for (const auto &x : xs)
      model->forward(x);
  };
  model->train();
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    on_epoch_end();
  }
}

// --- Negative ------------------------------------------------------------------

// The lambda puts the model back into training mode.
void lambdaRestores(torch::nn::Linear model, torch::optim::SGD &opt,
                    const std::vector<torch::Tensor> &xs) {
  auto validate = [&]() {
    torch::NoGradGuard guard;
    model->eval();
    for (const auto &x : xs)
      model->forward(x);
    model->train();
  };
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    validate();
  }
}

// The lambda evaluates another module (an EMA copy) that is never trained.
void lambdaOtherModel(torch::nn::Linear model, torch::nn::Linear ema,
                      torch::optim::SGD &opt,
                      const std::vector<torch::Tensor> &xs) {
  auto validate = [&]() {
    torch::NoGradGuard guard;
    ema->eval();
    for (const auto &x : xs)
      ema->forward(x);
  };
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    validate();
  }
}

// train() at the start of every epoch.
void trainEachEpoch(torch::nn::Linear model, torch::optim::SGD &opt,
                    const std::vector<torch::Tensor> &xs) {
  auto validate = [&]() {
    torch::NoGradGuard guard;
    model->eval();
    for (const auto &x : xs)
      model->forward(x);
  };
  for (int epoch = 0; epoch < 10; ++epoch) {
    model->train();
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    validate();
  }
}

// --- Callbacks kept in a container (Keras-style epoch-end hooks) -----------------

void callbackVector(torch::nn::Linear model, torch::optim::SGD &opt,
                    const std::vector<torch::Tensor> &xs) {
  std::vector<std::function<void(int)>> on_epoch_end;
  on_epoch_end.push_back([&](int epoch) {
    torch::NoGradGuard guard;
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
    // CHECK-MESSAGES: :[[@LINE+12]]:7: note: evaluation mode set by this call inside the training loop
    // CHECK-MESSAGES: :[[@LINE+7]]:7: note: trained here without train() on some path since
    for (const auto &x : xs)
      model->forward(x);
  });
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    for (auto &cb : on_epoch_end)
      cb(epoch);
  }
}

void callbackByIndex(torch::nn::Linear model, torch::optim::SGD &opt,
                     const std::vector<torch::Tensor> &xs) {
  std::vector<std::function<void()>> hooks = {
      [&]() { model->eval(); model->forward(xs[0]); }};
      // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
      // CHECK-MESSAGES: :[[@LINE+9]]:7: note: evaluation mode set by this call inside the training loop
      // CHECK-MESSAGES: :[[@LINE+4]]:7: note: trained here without train() on some path since
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    for (size_t i = 0; i < hooks.size(); ++i)
      hooks[i]();
  }
}

// Negative: the hook restores the mode itself.
void callbackRestores(torch::nn::Linear model, torch::optim::SGD &opt,
                      const std::vector<torch::Tensor> &xs) {
  std::vector<std::function<void(int)>> on_epoch_end;
  on_epoch_end.push_back([&](int epoch) {
    model->eval();
    for (const auto &x : xs)
      model->forward(x);
    model->train();
  });
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    for (auto &cb : on_epoch_end)
      cb(epoch);
  }
}

// Negative: a hook that comes from elsewhere is not known.
std::function<void(int)> make_hook();
void callbackFromElsewhere(torch::nn::Linear model, torch::optim::SGD &opt,
                           const std::vector<torch::Tensor> &xs) {
  std::vector<std::function<void(int)>> on_epoch_end;
  on_epoch_end.push_back(make_hook());
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    for (auto &cb : on_epoch_end)
      cb(epoch);
  }
}

// The module is a local of the function that holds the callback.
void callbackOnLocalModel(torch::optim::SGD &opt, const std::vector<torch::Tensor> &xs) {
  torch::nn::Linear model(4, 1);
  std::vector<std::function<void(int)>> on_epoch_end;
  on_epoch_end.push_back([&](int epoch) {
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
    // CHECK-MESSAGES: :[[@LINE+11]]:7: note: evaluation mode set by this call inside the training loop
    // CHECK-MESSAGES: :[[@LINE+6]]:7: note: trained here without train() on some path since
    model->forward(xs[0]);
  });
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    for (auto &cb : on_epoch_end)
      cb(epoch);
  }
}

// --- A std::function member initialised with a lambda that captured `this` ---------

struct MemberValidator {
  torch::nn::Linear model{4, 1};
  torch::optim::SGD opt{model->parameters(), 0.1};
  std::function<double()> validate = [this] {
    model->eval();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it
    // CHECK-MESSAGES: :[[@LINE+19]]:7: note: evaluation mode set by this call inside the training loop
    // CHECK-MESSAGES: :[[@LINE+15]]:9: note: trained here without train() on some path since
    torch::NoGradGuard guard;
    return model->forward(torch::ones({1, 4})).item<double>();
  };
  std::function<double()> validateAndRestore = [this] {
    model->eval();
    double v = model->forward(torch::ones({1, 4})).item<double>();
    model->train();
    return v;
  };
  void fit(const std::vector<torch::Tensor> &xs) {
    model->train();
    for (int epoch = 0; epoch < 10; ++epoch) {
      for (const auto &x : xs) {
        opt.zero_grad();
        model->forward(x).sum().backward();
        opt.step();
      }
      validate();
    }
  }
  void fitRestored(const std::vector<torch::Tensor> &xs) {
    for (int epoch = 0; epoch < 10; ++epoch) {
      for (const auto &x : xs) {
        opt.zero_grad();
        model->forward(x).sum().backward();
        opt.step();
      }
      validateAndRestore();
    }
  }
};

// --- A helper that returns early between eval() and its train() -------------------

double validateEarly(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  model->eval();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it
  // CHECK-MESSAGES: :[[@LINE+28]]:5: note: evaluation mode set by this call inside the training loop
  // CHECK-MESSAGES: :[[@LINE+25]]:5: note: trained here without train() on some path since
  torch::NoGradGuard guard;
  if (xs.empty())
    return 0.0;
  double sum = 0;
  for (const auto &x : xs)
    sum += model->forward(x).sum().item<double>();
  model->train();
  return sum;
}

// The early return comes before eval(): train() runs on every path after it.
double validateGuarded(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  if (xs.empty())
    return 0.0;
  model->eval();
  double v = model->forward(xs[0]).sum().item<double>();
  model->train();
  return v;
}

void trainWithEarlyValidation(torch::nn::Linear &model, torch::optim::SGD &opt,
                              const std::vector<torch::Tensor> &xs) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    opt.zero_grad();
    model->forward(xs[0]).sum().backward();
    opt.step();
    validateEarly(model, xs);
  }
}

void trainWithGuardedValidation(torch::nn::Linear &model, torch::optim::SGD &opt,
                                const std::vector<torch::Tensor> &xs) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    opt.zero_grad();
    model->forward(xs[0]).sum().backward();
    opt.step();
    validateGuarded(model, xs);
  }
}
