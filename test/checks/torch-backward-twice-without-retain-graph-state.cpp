// Values carried from one iteration into the next: a recurrent state computed
// from its own previous value keeps the graph that the previous iteration's
// backward pass freed.
// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <tuple>

// --- Positive: the state is never detached --------------------------------------

void cellLoop(torch::nn::RNNCell cell, torch::nn::Linear head,
              torch::optim::SGD &opt) {
  auto h = torch::zeros({1, 8});
  for (int step = 0; step < 100; ++step) {
    h = cell(torch::randn({1, 4}), h);
    auto loss = head(h).mean();
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'h' from the previous iteration, which that iteration's backward pass freed; detach 'h' where it is carried into the next iteration, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: 'h' is computed here from its value in the previous iteration
    opt.step();
  }
}

// The state computed by hand from itself.
void handwritten(torch::nn::Linear in, torch::nn::Linear rec,
                 torch::optim::SGD &opt) {
  torch::Tensor h = torch::zeros({1, 8});
  for (int step = 0; step < 100; ++step) {
    h = torch::sigmoid(in(torch::randn({1, 8})) + rec(h));
    auto loss = h.sum();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'h' from the previous iteration, which that iteration's backward pass freed; detach 'h' where it is carried into the next iteration, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: 'h' is computed here from its value in the previous iteration
    opt.step();
  }
}

// A GRU's hidden state, taken out of its result tuple.
void gruGet(torch::nn::GRU gru, torch::optim::SGD &opt) {
  auto hidden = torch::zeros({1, 1, 8});
  for (int epoch = 0; epoch < 5; ++epoch) {
    auto out = gru->forward(torch::randn({3, 1, 4}), hidden);
    hidden = std::get<1>(out);
    auto loss = std::get<0>(out).sum();
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'hidden' from the previous iteration, which that iteration's backward pass freed; detach 'hidden' where it is carried into the next iteration, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: 'hidden' is computed here from its value in the previous iteration
    opt.step();
  }
}

// The same with a structured binding.
void gruBinding(torch::nn::GRU gru, torch::optim::SGD &opt) {
  auto hidden = torch::zeros({1, 1, 8});
  for (int epoch = 0; epoch < 5; ++epoch) {
    auto [y, h] = gru->forward(torch::randn({3, 1, 4}), hidden);
    hidden = h;
    auto loss = y.sum();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'hidden' from the previous iteration, which that iteration's backward pass freed; detach 'hidden' where it is carried into the next iteration, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: 'hidden' is computed here from its value in the previous iteration
    opt.step();
  }
}

// An LSTM's (h, c), tied back and handed in as an optional tuple.
void lstmTie(torch::nn::LSTM lstm, torch::optim::SGD &opt) {
  torch::Tensor h = torch::zeros({1, 1, 8}), c = torch::zeros({1, 1, 8});
  for (int i = 0; i < 10; ++i) {
    auto res = lstm->forward(torch::randn({3, 1, 4}), std::make_tuple(h, c));
    std::tie(h, c) = std::get<1>(res);
    auto loss = std::get<0>(res).mean();
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'c' from the previous iteration, which that iteration's backward pass freed; detach 'c' where it is carried into the next iteration, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: 'c' is computed here from its value in the previous iteration
    opt.step();
  }
}

// --- Negative twins: the state is detached, re-created or retained -----------------

void detachedInput(torch::nn::RNNCell cell, torch::nn::Linear head,
                   torch::optim::SGD &opt) {
  auto h = torch::zeros({1, 8});
  for (int step = 0; step < 100; ++step) {
    h = cell(torch::randn({1, 4}), h.detach());
    auto loss = head(h).mean();
    loss.backward();
    opt.step();
  }
}

// Truncated backpropagation: several steps, one pass, then detach.
void truncated(torch::nn::RNNCell cell, torch::nn::Linear head,
               torch::optim::SGD &opt) {
  auto h = torch::zeros({1, 8});
  for (int step = 0; step < 100; ++step) {
    auto loss = torch::zeros({});
    for (int t = 0; t < 5; ++t) {
      h = cell(torch::randn({1, 4}), h);
      loss = loss + head(h).sum();
    }
    loss.backward();
    opt.step();
    h = h.detach();
  }
}

// A fresh state for every sequence.
void freshState(torch::nn::RNNCell cell, torch::nn::Linear head,
                torch::optim::SGD &opt) {
  torch::Tensor h;
  for (int step = 0; step < 100; ++step) {
    h = torch::zeros({1, 8});
    for (int t = 0; t < 5; ++t)
      h = cell(torch::randn({1, 4}), h);
    auto loss = head(h).sum();
    loss.backward();
    opt.step();
  }
}

void retained(torch::nn::RNNCell cell, torch::nn::Linear head,
              torch::optim::SGD &opt) {
  auto h = torch::zeros({1, 8});
  for (int step = 0; step < 100; ++step) {
    h = cell(torch::randn({1, 4}), h);
    auto loss = head(h).mean();
    loss.backward({}, /*retain_graph=*/true);
    opt.step();
  }
}

void gruDetached(torch::nn::GRU gru, torch::optim::SGD &opt) {
  auto hidden = torch::zeros({1, 1, 8});
  for (int epoch = 0; epoch < 5; ++epoch) {
    auto [y, h] = gru->forward(torch::randn({3, 1, 4}), hidden);
    hidden = h.detach();
    auto loss = y.sum();
    loss.backward();
    opt.step();
  }
}

void lstmDetached(torch::nn::LSTM lstm, torch::optim::SGD &opt) {
  std::tuple<torch::Tensor, torch::Tensor> state{torch::zeros({1, 1, 8}),
                                                 torch::zeros({1, 1, 8})};
  for (int i = 0; i < 3; ++i) {
    auto res = lstm->forward(torch::randn({3, 1, 4}), state);
    auto [h, c] = std::get<1>(res);
    state = std::make_tuple(h.detach(), c.detach());
    auto loss = std::get<0>(res).mean();
    loss.backward();
    opt.step();
  }
}
