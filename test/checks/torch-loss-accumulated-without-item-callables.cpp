// A training step written as a lambda, or kept in a std::function: what it
// returns is known from its body, as for a named function.
// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

#include <functional>
#include <torch/torch.h>
#include <utility>
#include <vector>

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// --- Positive ------------------------------------------------------------------

void lambdaStep(torch::nn::Linear model, torch::optim::SGD &opt,
                const Batches &data) {
  torch::Tensor epoch_loss = torch::zeros({});
  auto step = [&](const torch::Tensor &x, const torch::Tensor &y) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    return loss;
  };
  for (const auto &b : data)
    epoch_loss += step(b.first, b.second);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'epoch_loss' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: epoch_loss += step(b.first, b.second).detach();
}

void callbackStep(torch::nn::Linear model, torch::optim::SGD &opt,
                  const Batches &data) {
  std::function<torch::Tensor(const torch::Tensor &, const torch::Tensor &)>
      step = [&](const torch::Tensor &x, const torch::Tensor &y) {
        opt.zero_grad();
        auto loss = torch::mse_loss(model(x), y);
        loss.backward();
        opt.step();
        return loss;
      };
  torch::Tensor running = torch::zeros({});
  for (const auto &b : data)
    running += step(b.first, b.second);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'running' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: running += step(b.first, b.second).detach();
}

// --- Negative ------------------------------------------------------------------

// The lambda returns the loss detached.
void lambdaDetached(torch::nn::Linear model, torch::optim::SGD &opt,
                    const Batches &data) {
  torch::Tensor epoch_loss = torch::zeros({});
  auto step = [&](const torch::Tensor &x, const torch::Tensor &y) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    return loss.detach();
  };
  for (const auto &b : data)
    epoch_loss += step(b.first, b.second);
}

// The lambda returns a number.
void lambdaItem(torch::nn::Linear model, torch::optim::SGD &opt,
                const Batches &data) {
  double epoch_loss = 0;
  auto step = [&](const torch::Tensor &x, const torch::Tensor &y) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    return loss.item<double>();
  };
  for (const auto &b : data)
    epoch_loss += step(b.first, b.second);
}

// Evaluation: the lambda runs under a guard and nothing trains.
void lambdaEval(torch::nn::Linear model, const Batches &data) {
  torch::NoGradGuard guard;
  torch::Tensor total = torch::zeros({});
  auto eval = [&](const torch::Tensor &x, const torch::Tensor &y) {
    return torch::mse_loss(model(x), y);
  };
  for (const auto &b : data)
    total += eval(b.first, b.second);
}

// --- A lambda that stores its argument into a vector of its caller it captured ---

void capturedLogger(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  std::vector<torch::Tensor> losses;
  auto log = [&](const torch::Tensor &l) { losses.push_back(l); };
  // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: tensor with autograd history accumulated into 'losses' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
  // CHECK-MESSAGES: :[[@LINE+6]]:5: note: called from a training loop with a tensor that has autograd history here
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    log(loss);
  }
}

void capturedCallback(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  std::vector<torch::Tensor> epoch_losses;
  std::function<void(int, const torch::Tensor &)> on_batch_end;
  on_batch_end = [&](int, const torch::Tensor &loss) { epoch_losses.push_back(loss); };
  // CHECK-MESSAGES: :[[@LINE-1]]:56: warning: tensor with autograd history accumulated into 'epoch_losses' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
  // CHECK-MESSAGES: :[[@LINE+6]]:5: note: called from a training loop with a tensor that has autograd history here
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    on_batch_end(i, loss);
  }
}

// Negative: the logger keeps a detached copy.
void capturedLoggerDetached(torch::nn::Linear model, torch::optim::SGD &opt,
                            torch::Tensor x) {
  std::vector<torch::Tensor> losses;
  auto log = [&](const torch::Tensor &l) { losses.push_back(l.detach()); };
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    log(loss);
  }
}

// Negative: the captured vector lives for one iteration.
void capturedPerIteration(torch::nn::Linear model, torch::optim::SGD &opt,
                          torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    std::vector<torch::Tensor> parts;
    auto keep = [&](const torch::Tensor &l) { parts.push_back(l); };
    opt.zero_grad();
    auto loss = model->forward(x).sum();
    keep(loss);
    loss.backward();
    opt.step();
  }
}

// --- A logger kept in a member of a callbacks struct, called by the loop ----------

struct Callbacks {
  std::function<void(int, const torch::Tensor &)> on_batch_end;
};

void fitWithCallbacks(torch::nn::Linear &model, torch::optim::SGD &opt,
                      torch::Tensor x, Callbacks &cb) {
  for (int step = 0; step < 10; ++step) {
    opt.zero_grad();
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    if (cb.on_batch_end)
      cb.on_batch_end(step, loss);
  }
}

void memberLogger(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  std::vector<torch::Tensor> batch_losses;
  Callbacks cb;
  cb.on_batch_end = [&batch_losses](int, const torch::Tensor &loss) {
    batch_losses.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'batch_losses' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-MESSAGES: :[[@LINE-10]]:7: note: called from a training loop with a tensor that has autograd history here
    // CHECK-FIXES: {{^}}    batch_losses.push_back(loss.detach());{{$}}
  };
  fitWithCallbacks(model, opt, x, cb);
}

// Negative: the member logger keeps numbers.
void memberLoggerItems(torch::nn::Linear model, torch::optim::SGD &opt,
                       torch::Tensor x) {
  std::vector<double> values;
  Callbacks cb;
  cb.on_batch_end = [&values](int, const torch::Tensor &loss) {
    values.push_back(loss.item<double>());
  };
  fitWithCallbacks(model, opt, x, cb);
}

// --- The same in a template loop: the member is called with a dependent loss --------

struct EpochHooks {
  std::function<void(int, const torch::Tensor &)> after_step;
  std::function<void(int)> after_epoch;
};

template <typename Model>
void fitAny(Model &model, torch::optim::SGD &opt, torch::Tensor x,
            EpochHooks &hooks) {
  for (int step = 0; step < 10; ++step) {
    opt.zero_grad();
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    hooks.after_step(step, loss);
  }
}

void templateLoopHooks(torch::nn::Linear model, torch::optim::SGD &opt,
                       torch::Tensor x) {
  std::vector<torch::Tensor> history;
  EpochHooks hooks;
  hooks.after_step = [&history](int, const torch::Tensor &loss) {
    history.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'history' keeps every training iteration's graph alive
    // CHECK-MESSAGES: :[[@LINE-11]]:5: note: called from a training loop with a tensor that has autograd history here
    // CHECK-FIXES: {{^}}    history.push_back(loss.detach());{{$}}
  };
  fitAny(model, opt, x, hooks);
}

// Negative: the hook of the template loop keeps numbers.
void templateLoopHookItems(torch::nn::Linear model, torch::optim::SGD &opt,
                           torch::Tensor x) {
  std::vector<float> history;
  EpochHooks hooks;
  hooks.after_step = [&history](int, const torch::Tensor &loss) {
    history.push_back(loss.item<float>());
  };
  fitAny(model, opt, x, hooks);
}
