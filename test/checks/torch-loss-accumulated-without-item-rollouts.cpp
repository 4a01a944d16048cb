// A member that an agent fills with tensors with history in act() and whose
// contents another method turns into the loss it backpropagates (a rollout
// memory: stacked in learn(), then cleared) holds the graph it needs, not a
// leak; a member only summed for logging is one.
// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

#include <torch/torch.h>

class Agent {
public:
  void act(torch::Tensor state) {
    auto value = net_(state);
    values_.push_back(value);
    logged_.push_back(value);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'logged_' keeps every training iteration's graph alive{{.*}} [torch-loss-accumulated-without-item]
    // CHECK-MESSAGES: :[[@LINE+24]]:7: note: called from a training loop here
    // CHECK-FIXES: {{^}}    logged_.push_back(value.detach());{{$}}
  }
  void learn() {
    std::vector<torch::Tensor> vals;
    for (const auto &v : values_)
      vals.push_back(v);
    auto loss = torch::stack(vals).pow(2).mean();
    optimizer_.zero_grad();
    loss.backward();
    optimizer_.step();
    values_.clear();
  }

private:
  torch::nn::Linear net_{4, 1};
  torch::optim::Adam optimizer_{net_->parameters()};
  std::vector<torch::Tensor> values_;
  std::vector<torch::Tensor> logged_;
};

void run(Agent &agent) {
  for (int ep = 0; ep < 20; ++ep) {
    for (int t = 0; t < 50; ++t)
      agent.act(torch::randn({4}));
    agent.learn();
  }
}
