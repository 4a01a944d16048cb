// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct Net : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// A function template instantiated twice: one diagnostic, in the template.
template <typename Model>
torch::Tensor train_epoch(Model &model, torch::optim::Optimizer &opt,
                          const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    total += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total'
    // CHECK-FIXES: {{^}}    total += loss.detach();{{$}}
  }
  return total;
}

// A class template whose trainer keeps a history of losses.
template <typename Model> class Trainer {
public:
  void fit(const Batches &batches) {
    for (const auto &batch : batches) {
      auto loss = torch::nn::functional::mse_loss(model_(batch.first), batch.second);
      loss.backward();
      opt_->step();
      history_.push_back(loss);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor with autograd history accumulated into 'history_'
      // CHECK-FIXES: {{^}}      history_.push_back(loss.detach());{{$}}
    }
  }

private:
  Model model_;
  std::shared_ptr<torch::optim::Optimizer> opt_;
  std::vector<torch::Tensor> history_;
};

// A template whose loss is summed for one backward: fine in every
// instantiation.
template <typename Head>
void multi_head(std::vector<Head> &heads, torch::optim::Optimizer &opt,
                const Batches &batches) {
  for (const auto &batch : batches) {
    torch::Tensor total = torch::zeros({});
    for (auto &head : heads)
      total += torch::mse_loss(head(batch.first), batch.second);
    total.backward();
    opt.step();
  }
}

void instantiate(torch::nn::Linear &linear, torch::nn::Conv2d &conv,
                 torch::optim::SGD &opt, const Batches &batches,
                 std::vector<torch::nn::Linear> &heads) {
  train_epoch(linear, opt, batches);
  train_epoch(conv, opt, batches);
  Trainer<torch::nn::Linear> a;
  a.fit(batches);
  Trainer<torch::nn::Conv2d> b;
  b.fit(batches);
  multi_head(heads, opt, batches);
}

// A generic lambda: one diagnostic.
void generic_lambda(torch::nn::Linear &linear, torch::nn::Conv2d &conv,
                    torch::optim::SGD &opt, const Batches &batches) {
  std::vector<torch::Tensor> losses;
  auto epoch = [&](auto &model) {
    for (const auto &batch : batches) {
      auto loss = torch::mse_loss(model(batch.first), batch.second);
      loss.backward();
      opt.step();
      losses.emplace_back(loss);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor with autograd history accumulated into 'losses'
      // CHECK-FIXES: {{^}}      losses.emplace_back(loss.detach());{{$}}
    }
  };
  epoch(linear);
  epoch(conv);
}

// Macros: the accumulation inside a macro body is reported without a fix-it;
// a macro argument is fixed in place.
#define ACCUMULATE(acc, value) acc += value
#define LOSS_OF(net, batch) torch::mse_loss(net.forward(batch.first), batch.second)
void macros(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  torch::Tensor a = torch::zeros({});
  torch::Tensor b = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = LOSS_OF(net, batch);
    loss.backward();
    opt.step();
    ACCUMULATE(a, loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: tensor with autograd history accumulated into 'a'
    // CHECK-FIXES: {{^}}    ACCUMULATE(a, loss.detach());{{$}}
    b += LOSS_OF(net, batch);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'b'
    // CHECK-FIXES: {{^}}    b += LOSS_OF(net, batch);{{$}}
  }
}

// NOLINT is honoured.
void suppressed(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    total += loss; // NOLINT(torch-loss-accumulated-without-item)
  }
}
