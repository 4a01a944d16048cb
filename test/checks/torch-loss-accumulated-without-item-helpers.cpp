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
