// Autograd history as LibTorch records it: a recurrent state detached in
// place (`h.detach_()`) or replaced by `clone().detach()` before the next
// forward carries no graph from the previous iteration; an operation the
// operation table does not name (gelu, leaky_relu, silu) keeps the history
// of its operands.
// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

// --- Negative: the state is cut before each forward --------------------------------

void detach_in_place_first(torch::nn::RNNCell cell, torch::nn::Linear head,
                           torch::optim::SGD &opt) {
  auto h = torch::zeros({1, 8});
  for (int step = 0; step < 100; ++step) {
    h.detach_();
    h = cell(torch::randn({1, 4}), h);
    auto loss = head(h).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

void detach_in_place_last(torch::nn::RNNCell cell, torch::nn::Linear head,
                          torch::optim::SGD &opt) {
  auto state = torch::zeros({1, 8});
  for (int step = 0; step < 100; ++step) {
    state = cell(torch::randn({1, 4}), state);
    auto loss = head(state).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    state.detach_();
  }
}

void clone_detach(torch::nn::RNNCell cell, torch::nn::Linear head,
                  torch::optim::SGD &opt) {
  auto h = torch::zeros({1, 8});
  for (int step = 0; step < 100; ++step) {
    auto prev = h.clone().detach();
    h = cell(torch::randn({1, 4}), prev);
    auto loss = head(h).mean();
    loss.backward();
    opt.step();
  }
}

struct Recurrent : torch::nn::Module {
  torch::nn::RNNCell cell{nullptr};
  torch::nn::Linear head{nullptr};
  torch::Tensor state_;

  void train_step(torch::optim::SGD &opt, const torch::Tensor &x) {
    state_.detach_();
    state_ = cell(x, state_);
    auto loss = head(state_).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
};

// --- Positive: through an operation the table names, and ones it does not -----------

void through_relu(torch::optim::SGD &opt) {
  auto w = torch::randn({8}, torch::requires_grad());
  auto h = torch::ones({8});
  for (int step = 0; step < 10; ++step) {
    h = torch::relu(h * w);
    auto loss = h.sum();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'h' from the previous iteration
    opt.step();
  }
}

void through_gelu(torch::optim::SGD &opt) {
  auto w = torch::randn({8}, torch::requires_grad());
  auto h = torch::ones({8});
  for (int step = 0; step < 10; ++step) {
    h = torch::gelu(h * w);
    auto loss = h.sum();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'h' from the previous iteration
    opt.step();
  }
}

void through_silu(torch::optim::SGD &opt) {
  auto w = torch::randn({8}, torch::requires_grad());
  auto h = torch::ones({8});
  for (int step = 0; step < 10; ++step) {
    h = torch::silu(torch::leaky_relu(h * w));
    auto loss = h.sum();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'h' from the previous iteration
    opt.step();
  }
}
