// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

// Evidence from the functions of the translation unit: a training loop whose
// backward pass happens in a helper it calls still trains; a helper that
// returns a loss returns history; a helper that stores its argument into a
// member, or into a buffer the caller keeps, accumulates for the loop that
// calls it.

#include <torch/torch.h>

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// --- Positive ----------------------------------------------------------------

torch::Tensor train_step(torch::nn::Linear &model, torch::optim::SGD &opt,
                         const torch::Tensor &x, const torch::Tensor &y) {
  opt.zero_grad();
  auto loss = torch::mse_loss(model->forward(x), y);
  loss.backward();
  opt.step();
  return loss;
}

void train(torch::nn::Linear &model, torch::optim::SGD &opt,
           const Batches &batches) {
  torch::Tensor epoch_loss = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = train_step(model, opt, batch.first, batch.second);
    epoch_loss += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'epoch_loss'
    // CHECK-FIXES: {{^}}    epoch_loss += loss.detach();{{$}}
  }
}

torch::Tensor compute_loss(torch::nn::Linear &model, const torch::Tensor &x,
                           const torch::Tensor &y) {
  return torch::mse_loss(model->forward(x), y);
}

class Trainer {
public:
  void fit(const Batches &batches) {
    for (const auto &batch : batches) {
      auto loss = compute_loss(model, batch.first, batch.second);
      opt->zero_grad();
      loss.backward();
      opt->step();
      history.push_back(loss);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor with autograd history accumulated into 'history'
      // CHECK-FIXES: {{^}}      history.push_back(loss.detach());{{$}}
      record(loss);
    }
  }
  void record(const torch::Tensor &loss) { all_losses.push_back(loss); }
  // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: tensor with autograd history accumulated into 'all_losses'
  // CHECK-FIXES: {{^}}  void record(const torch::Tensor &loss) { all_losses.push_back(loss.detach()); }{{$}}
  // CHECK-MESSAGES: :[[@LINE-6]]:7: note: called from a training loop with a tensor that has autograd history here

private:
  torch::nn::Linear model{nullptr};
  torch::optim::SGD *opt = nullptr;
  std::vector<torch::Tensor> history, all_losses;
};

// A buffer that lives for the whole run, filled through a helper.
void store(torch::Tensor &buffer, const torch::Tensor &loss) {
  buffer.add_(loss);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: tensor with autograd history accumulated into 'buffer'
  // CHECK-FIXES: {{^}}  buffer.add_(loss.detach());{{$}}
}
void train_with_buffer(torch::nn::Linear &model, torch::optim::SGD &opt,
                       const Batches &batches) {
  torch::Tensor running = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    store(running, loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: called from a training loop with a tensor that has autograd history here
  }
}

// A meter that scales what it is given (`sum = sum + val * n`).
struct AverageMeter {
  torch::Tensor sum = torch::zeros({});
  int64_t count = 0;
  void update(const torch::Tensor &val, int64_t n) {
    sum = sum + val * n;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'sum' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-MESSAGES: :[[@LINE+10]]:5: note: called from a training loop with a tensor that has autograd history here
    // CHECK-FIXES: {{^}}    sum = sum + (val * n).detach();{{$}}
    count += n;
  }
};

void train_with_meter(torch::nn::Linear &model, torch::optim::SGD &opt,
                      const Batches &batches, AverageMeter &losses) {
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
    losses.update(loss, batch.first.size(0));
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// A step that adds its own loss to a member, called from a training loop on
// an object that outlives it.
class EpochTrainer {
public:
  void train_step(const torch::Tensor &x, const torch::Tensor &y) {
    opt_.zero_grad();
    auto loss = torch::mse_loss(model_->forward(x), y);
    loss.backward();
    opt_.step();
    epoch_loss_ = epoch_loss_ + loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'epoch_loss_' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-MESSAGES: :[[@LINE+5]]:7: note: called from a training loop here
    // CHECK-FIXES: {{^}}    epoch_loss_ = epoch_loss_ + loss.detach();{{$}}
  }
  void fit(const Batches &batches) {
    for (const auto &batch : batches)
      train_step(batch.first, batch.second);
  }

private:
  torch::nn::Linear model_{4, 1};
  torch::optim::SGD opt_{model_->parameters(), 0.1};
  torch::Tensor epoch_loss_ = torch::zeros({});
};

torch::Tensor global_total = torch::zeros({});

void add_own_loss(torch::nn::Linear &model, torch::optim::SGD &opt,
                  const torch::Tensor &x) {
  auto loss = model->forward(x).sum();
  loss.backward();
  opt.step();
  global_total += loss;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: tensor with autograd history accumulated into 'global_total' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
  // CHECK-MESSAGES: :[[@LINE+7]]:5: note: called from a training loop here
  // CHECK-FIXES: {{^}}  global_total += loss.detach();{{$}}
}

void train_into_global(torch::nn::Linear &model, torch::optim::SGD &opt,
                       const Batches &batches) {
  for (const auto &batch : batches)
    add_own_loss(model, opt, batch.first);
}

// --- Negative ----------------------------------------------------------------

// A helper that returns a detached loss: nothing to keep alive.
torch::Tensor detached_loss(torch::nn::Linear &model, const torch::Tensor &x) {
  return torch::mse_loss(model->forward(x), x).detach();
}
void train_detached(torch::nn::Linear &model, torch::optim::SGD &opt,
                    const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = train_step(model, opt, batch.first, batch.second);
    total += detached_loss(model, batch.first);
  }
}

// A helper called under a guard, or outside any training loop, or per
// iteration into a buffer of the iteration.
void log_value(torch::Tensor &sink, const torch::Tensor &value) {
  sink.add_(value);
}
void evaluate(torch::nn::Linear &model, const Batches &batches) {
  torch::Tensor sink = torch::zeros({});
  torch::NoGradGuard no_grad;
  for (const auto &batch : batches)
    log_value(sink, model->forward(batch.first));
}
void once(torch::nn::Linear &model, const torch::Tensor &x) {
  torch::Tensor sink = torch::zeros({});
  log_value(sink, model->forward(x));
}
void per_iteration(torch::nn::Linear &model, torch::optim::SGD &opt,
                   const Batches &batches) {
  for (const auto &batch : batches) {
    torch::Tensor sink = torch::zeros({});
    auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
    log_value(sink, loss);
    loss.backward();
    opt.step();
  }
}

// The accumulated buffer is itself backpropagated: a multi-term loss.
void add_term(torch::Tensor &total, const torch::Tensor &term) {
  total.add_(term);
}
void multi_term(torch::nn::Linear &model, torch::optim::SGD &opt,
                const Batches &batches) {
  for (int epoch = 0; epoch < 2; ++epoch) {
    torch::Tensor total = torch::zeros({});
    for (const auto &batch : batches)
      add_term(total, torch::mse_loss(model->forward(batch.first), batch.second));
    total.backward();
    opt.step();
  }
}

// The member is a loss built over several calls and backpropagated by
// another method (gradient accumulation).
class AccumulatingTrainer {
public:
  void add(const torch::Tensor &x, const torch::Tensor &y) {
    pending_ = pending_ + torch::mse_loss(model_->forward(x), y);
  }
  void apply() {
    pending_.backward();
    opt_.step();
    opt_.zero_grad();
    pending_ = torch::zeros({});
  }
  void fit(const Batches &batches) {
    for (const auto &batch : batches) {
      add(batch.first, batch.second);
      apply();
    }
  }

private:
  torch::nn::Linear model_{4, 1};
  torch::optim::SGD opt_{model_->parameters(), 0.1};
  torch::Tensor pending_ = torch::zeros({});
};

// The step adds the item of its loss; a meter given a detached loss.
class ItemTrainer {
public:
  void train_step(const torch::Tensor &x, const torch::Tensor &y) {
    opt_.zero_grad();
    auto loss = torch::mse_loss(model_->forward(x), y);
    loss.backward();
    opt_.step();
    epoch_loss_ = epoch_loss_ + loss.item<double>();
    detached_ = detached_ + loss.detach();
  }
  void fit(const Batches &batches, AverageMeter &meter) {
    for (const auto &batch : batches) {
      train_step(batch.first, batch.second);
      meter.update(torch::mse_loss(model_->forward(batch.first), batch.second).detach(), 1);
    }
  }

private:
  torch::nn::Linear model_{4, 1};
  torch::optim::SGD opt_{model_->parameters(), 0.1};
  double epoch_loss_ = 0;
  torch::Tensor detached_ = torch::zeros({});
};
