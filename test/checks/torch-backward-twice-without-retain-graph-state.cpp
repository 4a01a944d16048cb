// Values carried from one iteration into the next: a recurrent state computed
// from its own previous value keeps the graph that the previous iteration's
// backward pass freed.
// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <tuple>
#include <vector>

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

// --- Losses kept in a container and backpropagated one by one -----------------

// Positive: the losses share the trunk computed once per iteration.
void sharedTrunkInVector(torch::nn::Linear trunk, torch::nn::Linear a,
                         torch::nn::Linear b, torch::optim::SGD &opt) {
  auto x = torch::randn({8, 4});
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    auto h = torch::relu(trunk(x));
    std::vector<torch::Tensor> losses;
    losses.push_back(a(h).pow(2).mean());
    losses.push_back(b(h).abs().mean());
    for (auto &l : losses)
      l.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: backward pass in a loop reaches the graph of 'h', which was built before the loop and is freed by the first iteration; compute 'h' inside the loop, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-7]]:10: note: 'h' is computed here, outside the loop
    opt.step();
  }
}

// Negative: independent losses, one per model of an ensemble.
void independentLossesInVector(std::vector<torch::nn::Linear> &members,
                               torch::optim::SGD &opt) {
  auto x = torch::randn({8, 4});
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    std::vector<torch::Tensor> losses;
    for (auto &m : members)
      losses.push_back(m(x).pow(2).mean());
    for (auto &l : losses)
      l.backward();
    opt.step();
  }
}

// Negative: the same with each loss in a variable first.
void independentLossVariables(std::vector<torch::nn::Linear> &members,
                              torch::optim::SGD &opt) {
  auto x = torch::randn({8, 4});
  std::vector<torch::Tensor> losses;
  for (auto &m : members) {
    auto loss = m(x).pow(2).mean();
    losses.push_back(loss);
  }
  for (auto &l : losses)
    l.backward();
  opt.step();
}

// The same walked with an explicit iterator: `it->backward()` is a pass
// through one element.
void sharedTrunkIterator(torch::nn::Linear trunk, torch::nn::Linear a,
                         torch::nn::Linear b) {
  auto h = torch::relu(trunk(torch::randn({8, 4})));
  std::vector<torch::Tensor> heads = {a(h).pow(2).mean(), b(h).abs().mean()};
  for (auto it = heads.begin(); it != heads.end(); ++it)
    it->backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'h', which was built before the loop and is freed by the first iteration; compute 'h' inside the loop, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
  // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'h' is computed here, outside the loop
}

// Negative: independent losses walked with an iterator.
void independentLossesIterator(std::vector<torch::nn::Linear> &members) {
  auto x = torch::randn({8, 4});
  std::vector<torch::Tensor> losses;
  for (auto &m : members)
    losses.push_back(m(x).pow(2).mean());
  for (auto it = losses.begin(); it != losses.end(); ++it)
    (*it).backward();
}

// Negative: truncated back-propagation with the state detached in place.
void detachedInPlace(torch::nn::RNNCell cell, torch::nn::Linear out,
                     torch::optim::SGD &opt) {
  auto h = torch::zeros({2, 8});
  for (int chunk = 0; chunk < 20; ++chunk) {
    h = cell(torch::randn({2, 4}), h);
    auto loss = out(h).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    h.detach_();
  }
}
