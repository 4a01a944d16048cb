// A tensor member that one method fills with values with history (an
// agent's log-probabilities kept in act()) has that history where another
// method reads it: values read out of it and rebuilt into the loss cut the
// graph.
// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>

class Agent {
public:
  void act(torch::Tensor state) {
    auto log_prob = torch::log_softmax(net_(state), 0)[0];
    log_probs_.push_back(log_prob);
  }
  void learn(float reward) {
    std::vector<float> lp;
    for (const auto &t : log_probs_)
      lp.push_back(t.item<float>());
    auto loss = -(torch::tensor(lp) * reward).sum();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it{{.*}} [torch-tensor-from-values-breaks-graph]
    // CHECK-MESSAGES: :[[@LINE-3]]:22: note: values read out of a tensor with autograd history here
    // CHECK-MESSAGES: :[[@LINE+1]]:5: note: the new tensor is backpropagated here, with no other autograd history
    loss.backward();
    log_probs_.clear();
  }
  // Stacked: the graph is kept.
  void learnStacked(float reward) {
    auto loss = -(torch::stack(log_probs_) * reward).sum();
    loss.backward();
    log_probs_.clear();
  }

private:
  torch::nn::Linear net_{4, 2};
  std::vector<torch::Tensor> log_probs_;
};

// Filled with detached values: nothing to cut.
class DetachedAgent {
public:
  void act(torch::Tensor state) { values_.push_back(net_(state).detach()); }
  void learn() {
    std::vector<float> v;
    for (const auto &t : values_)
      v.push_back(t.item<float>());
    auto target = torch::tensor(v);
    (net_(target.unsqueeze(1)) - target).pow(2).mean().backward();
  }

private:
  torch::nn::Linear net_{1, 1};
  std::vector<torch::Tensor> values_;
};
