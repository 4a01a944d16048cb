// Tensors a method of a struct or class stores into the object's members
// from its arguments (`baseline.update(values)`): the object's members take
// the arguments' graphs, so a running average of a value with history
// carries each iteration's graph into the next.
// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct RunningBaseline {
  torch::Tensor value = torch::zeros({});
  double momentum = 0.9;
  void update(const torch::Tensor &v) {
    value = momentum * value + (1 - momentum) * v.mean();
  }
};

struct DetachedBaseline {
  torch::Tensor value = torch::zeros({});
  void update(const torch::Tensor &v) {
    value = (0.9 * value + 0.1 * v.mean()).detach();
  }
};

struct GuardedBaseline {
  torch::Tensor value = torch::zeros({});
  void update(const torch::Tensor &v) {
    torch::NoGradGuard no_grad;
    value = 0.9 * value + 0.1 * v.mean();
  }
};

struct LastValue {
  torch::Tensor last;
  bool ready = false;
  void remember(int step, torch::Tensor v) {
    if (step % 2 == 0)
      last = v;
    ready = true;
  }
};

// --- Positive ------------------------------------------------------------------

void emaAfterBackward(torch::nn::Linear critic, torch::optim::Adam &opt) {
  RunningBaseline baseline;
  int it = 0;
  while (it < 300) {
    auto states = torch::randn({16, 6});
    auto returns = torch::randn({16});
    auto values = critic->forward(states).sum(1);
    auto advantage = returns - baseline.value;
    auto loss = (values - advantage).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'baseline.value' from the previous iteration, which that iteration's backward pass freed; detach 'baseline.value' where it is carried into the next iteration, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE+2]]:5: note: 'baseline.value' is computed here from its value in the previous iteration
    opt.step();
    baseline.update(values);
    ++it;
  }
}

// Updated before the pass: the average still holds last iteration's graph.
void emaBeforeBackward(torch::nn::Linear critic, torch::optim::Adam &opt,
                       torch::Tensor states, torch::Tensor returns) {
  RunningBaseline baseline;
  for (int it = 0; it < 100; ++it) {
    auto values = critic->forward(states).sum(1);
    baseline.update(values);
    auto loss = (returns - baseline.value).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'baseline.value' from the previous iteration, which that iteration's backward pass freed; detach 'baseline.value' where it is carried into the next iteration, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: 'baseline.value' is computed here from its value in the previous iteration
    opt.step();
  }
}

// A member kept from an earlier iteration, stored as it is on some paths.
void keptOnSomeSteps(torch::nn::Linear net, torch::optim::SGD &opt,
                     torch::Tensor x) {
  LastValue memo;
  memo.last = torch::zeros({4, 4});
  for (int step = 0; step < 10; ++step) {
    auto y = net(x);
    auto loss = (y - memo.last).pow(2).sum();
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'memo.last' from the previous iteration, which that iteration's backward pass freed; {{.*}} [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE+1]]:5: note: 'memo.last' is computed here from its value in the previous iteration
    memo.remember(step, y);
    opt.step();
  }
}

// A trainer whose member struct keeps the baseline.
class Trainer {
public:
  explicit Trainer(torch::nn::Linear critic)
      : critic_(critic), opt_(critic->parameters(), 0.01) {}
  void fit(torch::Tensor states, torch::Tensor returns, int epochs) {
    for (int e = 0; e < epochs; ++e) {
      auto values = critic_->forward(states).sum(1);
      auto loss = (values - (returns - baseline_.value)).pow(2).mean();
      opt_.zero_grad();
      loss.backward();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: backward pass in a loop reaches the graph of 'baseline_.value' from the previous iteration, which that iteration's backward pass freed; {{.*}} [torch-backward-twice-without-retain-graph]
      // CHECK-MESSAGES: :[[@LINE+2]]:7: note: 'baseline_.value' is computed here from its value in the previous iteration
      opt_.step();
      baseline_.update(values);
    }
  }

private:
  torch::nn::Linear critic_;
  torch::optim::SGD opt_;
  RunningBaseline baseline_;
};

// --- Negative twins ---------------------------------------------------------------

void emaOfDetached(torch::nn::Linear critic, torch::optim::Adam &opt,
                   torch::Tensor states, torch::Tensor returns) {
  RunningBaseline baseline;
  for (int it = 0; it < 100; ++it) {
    auto values = critic->forward(states).sum(1);
    auto loss = (values - (returns - baseline.value)).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    baseline.update(values.detach());
  }
}

void emaDetachedInside(torch::nn::Linear critic, torch::optim::Adam &opt,
                       torch::Tensor states, torch::Tensor returns) {
  DetachedBaseline baseline;
  for (int it = 0; it < 100; ++it) {
    auto values = critic->forward(states).sum(1);
    auto loss = (values - (returns - baseline.value)).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    baseline.update(values);
  }
}

void emaGuardedInside(torch::nn::Linear critic, torch::optim::Adam &opt,
                      torch::Tensor states, torch::Tensor returns) {
  GuardedBaseline baseline;
  for (int it = 0; it < 100; ++it) {
    auto values = critic->forward(states).sum(1);
    auto loss = (values - (returns - baseline.value)).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    baseline.update(values);
  }
}

void emaUpdatedUnderGuard(torch::nn::Linear critic, torch::optim::Adam &opt,
                          torch::Tensor states, torch::Tensor returns) {
  RunningBaseline baseline;
  for (int it = 0; it < 100; ++it) {
    auto values = critic->forward(states).sum(1);
    auto loss = (values - (returns - baseline.value)).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    {
      torch::NoGradGuard no_grad;
      baseline.update(values);
    }
  }
}

// A struct of the iteration: the average starts afresh every time.
void baselinePerIteration(torch::nn::Linear critic, torch::optim::Adam &opt,
                          torch::Tensor states, torch::Tensor returns) {
  for (int it = 0; it < 100; ++it) {
    RunningBaseline baseline;
    auto values = critic->forward(states).sum(1);
    baseline.update(values);
    auto loss = (returns - baseline.value).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}
