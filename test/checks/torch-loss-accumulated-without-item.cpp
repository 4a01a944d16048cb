// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

#include <torch/script.h>
#include <deque>

struct Net : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// --- Positive: every accumulation form -------------------------------------

void plus_assign(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    opt.zero_grad();
    loss.backward();
    opt.step();
    total += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: {{^}}    total += loss.detach();{{$}}
  }
}

void assign_sum(torch::nn::Linear &model, torch::optim::Adam &opt,
                const Batches &batches) {
  torch::Tensor running = torch::zeros({});
  torch::Tensor flipped = torch::zeros({});
  for (size_t i = 0; i < batches.size(); ++i) {
    auto out = model(batches[i].first);
    auto loss = torch::nn::functional::cross_entropy(out, batches[i].second);
    loss.backward();
    opt.step();
    running = running + loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'running'
    // CHECK-FIXES: {{^}}    running = running + loss.detach();{{$}}
    flipped = loss * 2 + flipped;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'flipped'
    // CHECK-FIXES: {{^}}    flipped = (loss * 2).detach() + flipped;{{$}}
  }
}

void add_in_place(torch::nn::Linear &model, torch::optim::SGD &opt,
                  const Batches &batches) {
  auto total = torch::zeros({});
  size_t i = 0;
  while (i < batches.size()) {
    torch::nn::MSELoss criterion;
    auto loss = criterion(model->forward(batches[i].first), batches[i].second);
    loss.backward();
    opt.step();
    total.add_(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total'
    // CHECK-FIXES: {{^}}    total.add_(loss.detach());{{$}}
    ++i;
  }
}

void push_back_and_emplace_back(Net &net, torch::optim::SGD &opt,
                                const Batches &batches) {
  std::vector<torch::Tensor> history;
  std::deque<torch::Tensor> outputs;
  size_t i = 0;
  do {
    auto out = net.forward(batches[i].first);
    auto loss = torch::nll_loss(out, batches[i].second);
    loss.backward();
    opt.step();
    history.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'history'
    // CHECK-FIXES: {{^}}    history.push_back(loss.detach());{{$}}
    outputs.emplace_back(out);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'outputs'
    // CHECK-FIXES: {{^}}    outputs.emplace_back(out.detach());{{$}}
  } while (++i < batches.size());
}

// The loss's history is known from backward() alone (a user loss function).
torch::Tensor user_loss(const torch::Tensor &a, const torch::Tensor &b);

torch::Tensor epoch_loss_global;

class Trainer {
public:
  void epoch(const Batches &batches) {
    for (const auto &batch : batches) {
      torch::Tensor loss = user_loss(model_->forward(batch.first), batch.second);
      loss.backward();
      opt_.step();
      sum_ += loss;
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor with autograd history accumulated into 'sum_'
      // CHECK-FIXES: {{^}}      sum_ += loss.detach();{{$}}
      this->losses_.push_back(loss);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor with autograd history accumulated into 'losses_'
      // CHECK-FIXES: {{^}}      this->losses_.push_back(loss.detach());{{$}}
      epoch_loss_global += loss;
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor with autograd history accumulated into 'epoch_loss_global'
      // CHECK-FIXES: {{^}}      epoch_loss_global += loss.detach();{{$}}
    }
  }

private:
  torch::nn::Linear model_{2, 2};
  torch::optim::SGD opt_{model_->parameters(), 0.1};
  torch::Tensor sum_;
  std::vector<torch::Tensor> losses_;
};

// The epoch's accumulator is declared in the epoch loop, outside the batch loop.
void nested_epochs(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::Tensor epoch_loss = torch::zeros({});
    for (const auto &batch : batches) {
      auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
      loss.backward();
      opt.step();
      epoch_loss += loss;
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor with autograd history accumulated into 'epoch_loss'
      // CHECK-FIXES: {{^}}      epoch_loss += loss.detach();{{$}}
    }
  }
}

// An accumulated expression, not a variable: parenthesised by the fix-it.
void accumulated_expression(Net &net, torch::optim::SGD &opt,
                            const Batches &batches, torch::Tensor &total) {
  for (const auto &batch : batches) {
    auto out = net.forward(batch.first);
    auto loss = torch::mse_loss(out, batch.second);
    loss.backward();
    opt.step();
    total += torch::mse_loss(out, batch.second);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total'
    // CHECK-FIXES: {{^}}    total += torch::mse_loss(out, batch.second).detach();{{$}}
    total += loss + 0.5 * out.mean();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total'
    // CHECK-FIXES: {{^}}    total += (loss + 0.5 * out.mean()).detach();{{$}}
  }
}

// A TorchScript module's output.
void scripted(torch::jit::Module &module, torch::optim::SGD &opt,
              const Batches &batches) {
  std::vector<torch::Tensor> outputs;
  for (const auto &batch : batches) {
    torch::Tensor out = module.forward({batch.first}).toTensor();
    torch::mse_loss(out, batch.second).backward();
    opt.step();
    outputs.push_back(out);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'outputs'
    // CHECK-FIXES: {{^}}    outputs.push_back(out.detach());{{$}}
  }
}

// --- Negative ----------------------------------------------------------------

void item_and_detach(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  double total = 0;
  torch::Tensor detached = torch::zeros({});
  std::vector<torch::Tensor> kept;
  std::vector<double> values;
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    total += loss.item<double>();
    values.push_back(loss.item<double>());
    detached += loss.detach();
    detached = detached + loss.detach();
    detached.add_(loss.data());
    kept.push_back(loss.detach());
  }
}

void guarded_accumulation(Net &net, torch::optim::SGD &opt,
                          const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  torch::Tensor eval_total = torch::zeros({});
  std::vector<torch::Tensor> inference;
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    {
      torch::NoGradGuard no_grad;
      total += loss;
    }
    {
      at::NoGradGuard no_grad;
      eval_total += torch::mse_loss(net.forward(batch.first), batch.second);
    }
    {
      c10::InferenceMode guard;
      inference.push_back(net.forward(batch.first));
    }
    {
      torch::AutoGradMode enable_grad(false);
      total = total + loss;
    }
  }
}

// Computed under a guard, accumulated outside it: no history.
void computed_under_guard(Net &net, torch::optim::SGD &opt,
                          const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    torch::Tensor val;
    {
      torch::NoGradGuard no_grad;
      val = torch::mse_loss(net.forward(batch.first), batch.second);
    }
    total += val;
  }
}

// Multi-term losses: terms summed into a tensor that is backpropagated.
void multi_term_loss(std::vector<torch::nn::Linear> &heads,
                     torch::optim::SGD &opt, const Batches &batches) {
  for (const auto &batch : batches) {
    torch::Tensor total = torch::zeros({});
    for (auto &head : heads)
      total = total + torch::mse_loss(head(batch.first), batch.second);
    total.backward();
    opt.step();
  }
  torch::Tensor total;
  for (const auto &batch : batches) {
    total = torch::zeros({});
    for (auto &head : heads)
      total += torch::mse_loss(head(batch.first), batch.second);
    (total / 2).backward();
    opt.step();
  }
  std::vector<torch::Tensor> terms;
  for (const auto &batch : batches) {
    terms.clear();
    for (auto &head : heads)
      terms.push_back(torch::mse_loss(head(batch.first), batch.second));
    auto loss = torch::stack(terms).sum();
    loss.backward();
    opt.step();
  }
}

// Gradient accumulation: summed, backpropagated every few steps, reset.
void gradient_accumulation(Net &net, torch::optim::SGD &opt,
                           const Batches &batches) {
  torch::Tensor accumulated = torch::zeros({});
  for (size_t i = 0; i < batches.size(); ++i) {
    accumulated = accumulated + torch::mse_loss(net.forward(batches[i].first),
                                                batches[i].second);
    if (i % 4 == 3) {
      accumulated.backward();
      opt.step();
      accumulated = torch::zeros({});
    }
  }
}

// Not a training loop: nothing calls backward() or step() in it.
void not_training(Net &net, const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  std::vector<torch::Tensor> outs;
  for (const auto &batch : batches) {
    total += net.forward(batch.first);
    outs.push_back(net.forward(batch.first));
  }
}

// Declared inside the iteration: it dies with it.
void per_iteration(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  for (const auto &batch : batches) {
    torch::Tensor local = torch::zeros({});
    std::vector<torch::Tensor> parts;
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    local += loss;
    parts.push_back(loss);
  }
}

// No evidence of history: data, labels, parameters.
void no_history(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  torch::Tensor seen = torch::zeros({});
  std::vector<torch::Tensor> inputs;
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    seen += batch.second;
    inputs.push_back(batch.first);
    auto correct = net.forward(batch.first).argmax(1).eq(batch.second);
    seen += correct;
  }
}

// Types that merely share names with LibTorch's.
namespace user {
struct Tensor {
  Tensor &operator+=(const Tensor &) { return *this; }
  void backward() {}
  Tensor detach() const { return *this; }
};
struct Module {
  Tensor forward(const Tensor &t) { return t; }
};
struct Optimizer {
  void step() {}
};
} // namespace user

void lookalike_types(user::Module &m, user::Optimizer &opt,
                     const std::vector<user::Tensor> &xs) {
  user::Tensor total;
  std::vector<user::Tensor> all;
  for (const auto &x : xs) {
    user::Tensor loss = m.forward(x);
    loss.backward();
    opt.step();
    total += loss;
    all.push_back(loss);
  }
}

// A user container with push_back is not an accumulator we know.
struct Logger {
  void push_back(const torch::Tensor &t);
};
void user_container(Net &net, torch::optim::SGD &opt, const Batches &batches,
                    Logger &log) {
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    log.push_back(loss);
  }
}
