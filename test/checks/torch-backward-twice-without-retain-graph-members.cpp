// State kept in an object between calls: a module (or any class) whose method
// computes a member from the member's previous value carries that value's
// graph from one call into the next; once a backward pass freed it, the next
// pass through the method's result fails.
// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <tuple>

// --- Positive: the module keeps its recurrent state and never detaches it ------

struct TinyRNNImpl : torch::nn::Module {
  torch::nn::Linear in{4, 8}, rec{8, 8}, out{8, 1};
  torch::Tensor h_;
  TinyRNNImpl() { h_ = torch::zeros({1, 8}); }
  torch::Tensor forward(torch::Tensor x) {
    h_ = torch::tanh(in(x) + rec(h_));
    return out(h_);
  }
};
TORCH_MODULE(TinyRNN);

void trainTiny(TinyRNN model, torch::optim::SGD &opt) {
  for (int step = 0; step < 100; ++step) {
    auto loss = model->forward(torch::randn({1, 4})).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'TinyRNNImpl::h_' that 'model' keeps from the previous iteration, which that iteration's backward pass freed; detach 'h_' between iterations, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-12]]:5: note: 'forward' computes 'h_' from its value in the previous call
    opt.step();
  }
}

// The holder called like a function; the state comes out of a GRU's result.
struct EncoderImpl : torch::nn::Module {
  torch::nn::GRU gru{4, 8};
  torch::nn::Linear head{8, 2};
  torch::Tensor hidden;
  torch::Tensor forward(const torch::Tensor &x) {
    auto result = gru->forward(x, hidden);
    hidden = std::get<1>(result);
    return head(std::get<0>(result));
  }
};
TORCH_MODULE(Encoder);

void trainEncoder(Encoder encoder, torch::optim::Adam &opt) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (int batch = 0; batch < 32; ++batch) {
      auto logits = encoder(torch::randn({5, 1, 4}));
      auto loss = torch::nn::functional::cross_entropy(logits, torch::zeros({5}, torch::kLong));
      opt.zero_grad();
      loss.backward();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: backward pass in a loop reaches the graph of 'EncoderImpl::hidden' that 'encoder' keeps from the previous iteration, which that iteration's backward pass freed; detach 'hidden' between iterations, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
      // CHECK-MESSAGES: :[[@LINE-14]]:5: note: 'forward' computes 'hidden' from its value in the previous call
      opt.step();
    }
  }
}

// State created lazily on the first call; a plain object, not a holder.
struct LazyCell : torch::nn::Module {
  torch::nn::RNNCell cell{4, 8};
  torch::Tensor state;
  torch::Tensor forward(torch::Tensor x) {
    if (!state.defined())
      state = torch::zeros({1, 8});
    state = cell(x, state);
    return state;
  }
};

void trainLazy(LazyCell &net, torch::optim::SGD &opt) {
  for (int i = 0; i < 100; ++i) {
    auto y = net.forward(torch::randn({1, 4}));
    auto loss = torch::mse_loss(y, torch::ones({1, 8}));
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'LazyCell::state' that 'net' keeps from the previous iteration, which that iteration's backward pass freed; detach 'state' between iterations, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-11]]:5: note: 'forward' computes 'state' from its value in the previous call
    opt.step();
  }
}

// Not a module at all: an agent that keeps an LSTM's (h, c) between steps.
class Agent {
public:
  torch::Tensor act(const torch::Tensor &obs) {
    auto [y, hc] = lstm->forward(obs, hc_);
    hc_ = hc;
    return policy(y);
  }
  torch::nn::LSTM lstm{4, 8};
  torch::nn::Linear policy{8, 2};

private:
  std::tuple<torch::Tensor, torch::Tensor> hc_;
};

void trainAgent(torch::optim::Adam &opt) {
  Agent agent;
  for (int t = 0; t < 1000; ++t) {
    auto logits = agent.act(torch::randn({1, 1, 4}));
    auto loss = -torch::log_softmax(logits, -1).mean();
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'Agent::hc_' that 'agent' keeps from the previous iteration, which that iteration's backward pass freed; detach 'hc_' between iterations, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-18]]:5: note: 'act' computes 'hc_' from its value in the previous call
    opt.step();
  }
}

// --- Negative: the state is detached or reset, or no graph is kept -------------

// Truncated back-propagation: forward detaches the state it was left.
struct TruncatedImpl : torch::nn::Module {
  torch::nn::RNNCell cell{4, 8};
  torch::Tensor h;
  torch::Tensor forward(torch::Tensor x) {
    h = h.detach();
    h = cell(x, h);
    return h;
  }
};
TORCH_MODULE(Truncated);

void trainTruncated(Truncated model, torch::optim::SGD &opt) {
  for (int i = 0; i < 100; ++i) {
    auto loss = model(torch::randn({1, 4})).sum();
    loss.backward();
    opt.step();
  }
}

// Forward keeps a detached copy of the state for the next call.
struct KeepsDetached : torch::nn::Module {
  torch::nn::RNNCell cell{4, 8};
  torch::Tensor h;
  torch::Tensor forward(torch::Tensor x) {
    auto next = cell(x, h);
    h = next.detach();
    return next;
  }
};

void trainKeepsDetached(KeepsDetached &model, torch::optim::SGD &opt) {
  for (int i = 0; i < 100; ++i) {
    auto loss = model.forward(torch::randn({1, 4})).sum();
    loss.backward();
    opt.step();
  }
}

// The caller resets the state, or detaches it, every iteration.
struct StatefulImpl : torch::nn::Module {
  torch::nn::RNNCell cell{4, 8};
  torch::Tensor h;
  torch::Tensor forward(torch::Tensor x) {
    h = cell(x, h);
    return h;
  }
  void reset_state() { h = torch::zeros({1, 8}); }
  void detach_state() { h = h.detach(); }
};
TORCH_MODULE(Stateful);

void resetEachSequence(Stateful model, torch::optim::SGD &opt) {
  for (int seq = 0; seq < 10; ++seq) {
    model->reset_state();
    torch::Tensor loss = torch::zeros({});
    for (int t = 0; t < 20; ++t)
      loss = loss + model->forward(torch::randn({1, 4})).sum();
    loss.backward();
    opt.step();
  }
}

void detachEachStep(Stateful model, torch::optim::SGD &opt) {
  for (int t = 0; t < 100; ++t) {
    auto loss = model->forward(torch::randn({1, 4})).sum();
    loss.backward();
    opt.step();
    model->detach_state();
  }
}

void detachByHand(Stateful model, torch::optim::SGD &opt) {
  for (int t = 0; t < 100; ++t) {
    auto loss = model->forward(torch::randn({1, 4})).sum();
    loss.backward();
    opt.step();
    model->h = model->h.detach();
  }
}

// A fresh model every iteration (a search over seeds).
void freshModel(torch::optim::SGD &opt) {
  for (int trial = 0; trial < 5; ++trial) {
    Stateful model;
    auto loss = model->forward(torch::randn({1, 4})).sum();
    loss.backward();
  }
}

// retain_graph keeps the previous graph alive.
void retained(Stateful model) {
  for (int t = 0; t < 10; ++t) {
    auto loss = model->forward(torch::randn({1, 4})).sum();
    loss.backward({}, /*retain_graph=*/true);
  }
}

// Evaluation only: no backward pass.
void evaluate(Stateful model) {
  torch::NoGradGuard guard;
  for (int t = 0; t < 10; ++t)
    model->forward(torch::randn({1, 4}));
}

// A running statistic updated without recording history.
struct NormalizerImpl : torch::nn::Module {
  torch::nn::Linear fc{4, 4};
  torch::Tensor running_mean = torch::zeros({4});
  torch::Tensor forward(torch::Tensor x) {
    auto y = fc(x);
    {
      torch::NoGradGuard no_grad;
      running_mean = 0.9 * running_mean + 0.1 * y.mean(0);
    }
    return y - running_mean;
  }
};
TORCH_MODULE(Normalizer);

void trainNormalizer(Normalizer model, torch::optim::SGD &opt) {
  for (int i = 0; i < 100; ++i) {
    auto loss = model(torch::randn({8, 4})).pow(2).mean();
    loss.backward();
    opt.step();
  }
}

// A member written from the input only, never from itself.
struct RemembersLast : torch::nn::Module {
  torch::nn::Linear fc{4, 1};
  torch::Tensor last;
  torch::Tensor forward(torch::Tensor x) {
    last = fc(x);
    return last;
  }
};

void trainRemembersLast(RemembersLast &model, torch::optim::SGD &opt) {
  for (int i = 0; i < 100; ++i) {
    auto loss = model.forward(torch::randn({2, 4})).sum();
    loss.backward();
    opt.step();
  }
}

// The state is carried, but what forward returns does not depend on it.
struct CountsCalls : torch::nn::Module {
  torch::nn::Linear fc{4, 1};
  torch::Tensor total = torch::zeros({});
  torch::Tensor forward(torch::Tensor x) {
    auto y = fc(x);
    total = total + y.sum();
    return y;
  }
};

void trainCountsCalls(CountsCalls &model, torch::optim::SGD &opt) {
  for (int i = 0; i < 100; ++i) {
    auto loss = model.forward(torch::randn({2, 4})).sum();
    loss.backward();
    opt.step();
  }
}

// --- A method that keeps the state and backpropagates through it itself -------

// Positive: every call after the first reaches the graph the previous call's
// backward pass freed.
class SequenceTrainer {
public:
  float train_step(const torch::Tensor &x, const torch::Tensor &y) {
    auto out = gru->forward(x, hidden_);
    hidden_ = std::get<1>(out);
    auto loss = torch::mse_loss(head(std::get<0>(out)), y);
    opt_.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass reaches the graph of 'SequenceTrainer::hidden_' as the previous call of 'train_step' left it, which that call's backward pass freed; detach 'hidden_' where it is kept for the next call, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: 'train_step' computes 'hidden_' from its value in the previous call
    opt_.step();
    return loss.item<float>();
  }

private:
  torch::nn::GRU gru{4, 8};
  torch::nn::Linear head{8, 1};
  torch::Tensor hidden_;
  torch::optim::SGD opt_{gru->parameters(), 0.1};
};

// Negative: the step detaches what it keeps.
class DetachingTrainer {
public:
  void train_step(const torch::Tensor &x) {
    auto out = gru->forward(x, hidden_);
    hidden_ = std::get<1>(out).detach();
    std::get<0>(out).sum().backward();
  }

private:
  torch::nn::GRU gru{4, 8};
  torch::Tensor hidden_;
};

// Negative: the step starts from a detached state.
class TruncatingTrainer {
public:
  void train_step(const torch::Tensor &x) {
    hidden_ = hidden_.detach();
    auto out = gru->forward(x, hidden_);
    hidden_ = std::get<1>(out);
    std::get<0>(out).sum().backward();
  }

private:
  torch::nn::GRU gru{4, 8};
  torch::Tensor hidden_;
};

// Negative: the state is detached where it is present; where it is absent it
// holds no graph either (`if (h) h = h.detach();`, as a repackage_hidden).
class PresenceTestingTrainer {
public:
  void train_step(const torch::Tensor &x) {
    if (hidden_.defined())
      hidden_ = hidden_.detach();
    auto out = gru->forward(x, hidden_);
    hidden_ = std::get<1>(out);
    std::get<0>(out).sum().backward();
  }

private:
  torch::nn::GRU gru{4, 8};
  torch::Tensor hidden_;
};

class OptionalStateTrainer {
public:
  void train_step(const torch::Tensor &x) {
    if (state_) {
      state_ = state_->detach();
    }
    auto out = gru->forward(x, *state_);
    state_ = std::get<1>(out);
    std::get<0>(out).sum().backward();
  }

private:
  torch::nn::GRU gru{4, 8};
  c10::optional<torch::Tensor> state_;
};

// Positive twin: detached on some calls only (every tenth step); the calls
// between backpropagate into the graph the previous call freed.
class SometimesTruncatingTrainer {
public:
  void train_step(const torch::Tensor &x) {
    if (++step_ % 10 == 0)
      hidden_ = hidden_.detach();
    auto out = gru->forward(x, hidden_);
    hidden_ = std::get<1>(out);
    std::get<0>(out).sum().backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass reaches the graph of 'SometimesTruncatingTrainer::hidden_' as the previous call of 'train_step' left it, which that call's backward pass freed; detach 'hidden_' where it is kept for the next call, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: 'train_step' computes 'hidden_' from its value in the previous call
  }

private:
  torch::nn::GRU gru{4, 8};
  torch::Tensor hidden_;
  int step_ = 0;
};

// Negative: the class offers a reset the caller may call between steps.
class ResettableTrainer {
public:
  void train_step(const torch::Tensor &x) {
    auto out = gru->forward(x, hidden_);
    hidden_ = std::get<1>(out);
    std::get<0>(out).sum().backward();
  }
  void reset() { hidden_ = torch::zeros({1, 1, 8}); }

private:
  torch::nn::GRU gru{4, 8};
  torch::Tensor hidden_;
};

// Negative: the pass keeps its graph.
class RetainingTrainer {
public:
  void train_step(const torch::Tensor &x) {
    auto out = gru->forward(x, hidden_);
    hidden_ = std::get<1>(out);
    std::get<0>(out).sum().backward({}, /*retain_graph=*/true);
  }

private:
  torch::nn::GRU gru{4, 8};
  torch::Tensor hidden_;
};

// --- The module is a member of a trainer class ----------------------------------

class RecurrentTrainer {
public:
  void fit(int steps) {
    for (int step = 0; step < steps; ++step) {
      auto loss = model_->forward(torch::randn({1, 4})).pow(2).mean();
      opt_.zero_grad();
      loss.backward();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: backward pass in a loop reaches the graph of 'StatefulImpl::h' that 'model_' keeps from the previous iteration, which that iteration's backward pass freed; detach 'h' between iterations, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
      // CHECK-MESSAGES: :158:5: note: 'forward' computes 'h' from its value in the previous call
      opt_.step();
    }
  }
  // Negative: the state is reset at every step.
  void fitWithReset(int steps) {
    for (int step = 0; step < steps; ++step) {
      model_->reset_state();
      auto loss = model_->forward(torch::randn({1, 4})).pow(2).mean();
      opt_.zero_grad();
      loss.backward();
      opt_.step();
    }
  }

private:
  Stateful model_;
  torch::optim::SGD opt_{model_->parameters(), 0.1};
};

// Negative: the LSTM's (h, c) kept in a tuple member, each element detached
// by a method the loop calls after every step.
struct TupleStateImpl : torch::nn::Module {
  torch::nn::LSTM lstm{4, 8};
  torch::nn::Linear out{8, 1};
  std::tuple<torch::Tensor, torch::Tensor> hidden;
  torch::Tensor forward(const torch::Tensor &x) {
    auto result = lstm->forward(x, hidden);
    hidden = std::get<1>(result);
    return out(std::get<0>(result));
  }
  void detachHidden() {
    std::get<0>(hidden) = std::get<0>(hidden).detach();
    std::get<1>(hidden) = std::get<1>(hidden).detach();
  }
};
TORCH_MODULE(TupleState);

void trainTupleState(TupleState model, torch::optim::SGD &opt) {
  for (int i = 0; i < 100; ++i) {
    auto loss = model->forward(torch::randn({3, 1, 4})).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    model->detachHidden();
  }
}
