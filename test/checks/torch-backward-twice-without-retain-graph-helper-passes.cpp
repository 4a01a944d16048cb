// A helper that runs two backward passes, each through values it computes
// from its own arguments (`update(log_probs, values)` with a policy loss and
// a value loss), fails when the caller hands it arguments that share a graph
// (an actor and a critic on one trunk).
// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>

void update(torch::Tensor log_probs, torch::Tensor values,
            torch::optim::Adam &opt) {
  auto policy_loss = -(log_probs * 2).sum();
  auto value_loss = (values * values).sum();
  opt.zero_grad();
  policy_loss.backward();
  value_loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: backward pass through 'value_loss' reaches the graph of 'h', whose buffers an earlier backward pass freed; pass retain_graph=true to the first pass, or backpropagate once through the sum: '(policy_loss + value_loss).backward()' [torch-backward-twice-without-retain-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass, which frees the graph, is here
  // CHECK-MESSAGES: :[[@LINE+14]]:5: note: both passes run in this call, whose arguments share the graph of 'h'
  // CHECK-FIXES: {{^}}  policy_loss.backward({}, true);{{$}}
  opt.step();
}

// --- Positive ------------------------------------------------------------------

void sharedTrunk(torch::nn::Linear trunk, torch::nn::Linear actor,
                 torch::nn::Linear critic, torch::optim::Adam &opt,
                 torch::Tensor x) {
  for (int e = 0; e < 10; ++e) {
    auto h = trunk(x);
    auto p = actor(h);
    auto v = critic(h);
    update(p, v, opt);
  }
}

// --- Negative twins ---------------------------------------------------------------

void separateNetworks(torch::nn::Linear actor, torch::nn::Linear critic,
                      torch::optim::Adam &opt, torch::Tensor x) {
  for (int e = 0; e < 10; ++e)
    update(actor(x), critic(x), opt);
}

void criticOnDetachedFeatures(torch::nn::Linear trunk, torch::nn::Linear actor,
                              torch::nn::Linear critic, torch::optim::Adam &opt,
                              torch::Tensor x) {
  for (int e = 0; e < 10; ++e) {
    auto h = trunk(x);
    update(actor(h), critic(h.detach()), opt);
  }
}

// One pass through the sum: the shared graph is freed once.
void updateSummed(torch::Tensor log_probs, torch::Tensor values,
                  torch::optim::Adam &opt) {
  auto policy_loss = -(log_probs * 2).sum();
  auto value_loss = (values * values).sum();
  opt.zero_grad();
  (policy_loss + value_loss).backward();
  opt.step();
}

void sharedTrunkSummed(torch::nn::Linear trunk, torch::nn::Linear actor,
                       torch::nn::Linear critic, torch::optim::Adam &opt,
                       torch::Tensor x) {
  for (int e = 0; e < 10; ++e) {
    auto h = trunk(x);
    updateSummed(actor(h), critic(h), opt);
  }
}

// The first pass keeps the graph.
void updateRetaining(torch::Tensor log_probs, torch::Tensor values,
                     torch::optim::Adam &opt) {
  auto policy_loss = -(log_probs * 2).sum();
  auto value_loss = (values * values).sum();
  policy_loss.backward({}, true);
  value_loss.backward();
  opt.step();
}

void sharedTrunkRetaining(torch::nn::Linear trunk, torch::nn::Linear actor,
                          torch::nn::Linear critic, torch::optim::Adam &opt,
                          torch::Tensor x) {
  for (int e = 0; e < 10; ++e) {
    auto h = trunk(x);
    updateRetaining(actor(h), critic(h), opt);
  }
}
