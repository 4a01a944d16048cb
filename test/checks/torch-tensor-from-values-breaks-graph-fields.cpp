// Values read out of a tensor with history travel through the fields of
// structs as through variables: a field assignment, a container that is a
// field, a field of a container's element, a struct a helper returns.
// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

struct Step {
  float value;
  float reward;
};

struct Rollout {
  std::vector<float> values;
  float ret = 0;
};

// --- Positive ------------------------------------------------------------------

void fieldAssignment(torch::nn::Linear critic, torch::Tensor s) {
  Step st;
  st.value = critic(s).item<float>();
  st.reward = 1.0f;
  auto v = torch::tensor(st.value);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-4]]:24: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: the new tensor is backpropagated here, with no other autograd history
  auto loss = (v - st.reward).pow(2);
  loss.backward();
}

void fieldContainer(torch::nn::Linear critic, torch::Tensor s) {
  Rollout r;
  for (int t = 0; t < 4; ++t)
    r.values.push_back(critic(s).item<float>());
  auto loss = torch::tensor(r.values).pow(2).mean();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:34: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is backpropagated here, with no other autograd history
  loss.backward();
}

void elementField(torch::nn::Linear critic, torch::Tensor s) {
  std::vector<Step> steps(4);
  for (int t = 0; t < 4; ++t)
    steps[t].value = critic(s).item<float>();
  std::vector<float> v;
  for (const auto &x : steps)
    v.push_back(x.value);
  auto pred = torch::tensor(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-6]]:32: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:15: note: the new tensor is the prediction of this loss
  auto loss = torch::mse_loss(pred, torch::zeros({4}));
  loss.backward();
}

Step evaluateStep(torch::nn::Linear critic, torch::Tensor s) {
  Step st;
  st.value = critic(s).item<float>();
  st.reward = 0;
  return st;
}

void returnedStruct(torch::nn::Linear critic, torch::Tensor s) {
  auto st = evaluateStep(critic, s);
  auto loss = torch::tensor(st.value).pow(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:13: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is backpropagated here, with no other autograd history
  loss.backward();
}

// --- Negative ------------------------------------------------------------------

// The value was read out of a detached tensor.
void detachedField(torch::nn::Linear critic, torch::Tensor s) {
  Step st;
  st.value = critic(s).detach().item<float>();
  auto loss = torch::tensor(st.value).pow(2);
  loss.backward();
}

// The rebuilt tensor is only a target.
void targetField(torch::nn::Linear critic, torch::Tensor s) {
  Rollout r;
  r.values.push_back(critic(s).item<float>());
  auto loss = torch::mse_loss(critic(s), torch::tensor(r.values));
  loss.backward();
}

// The struct's fields are logged, never rebuilt into something backpropagated.
void loggedOnly(torch::nn::Linear critic, torch::Tensor s,
                std::vector<Step> &log) {
  Step st;
  st.value = critic(s).item<float>();
  log.push_back(st);
  critic(s).sum().backward();
}

// --- A member a method fills with read-out values, rebuilt in another method --------

struct Agent {
  torch::nn::Linear policy{4, 2};
  torch::optim::Adam opt{policy->parameters(), 1e-3};
  std::vector<float> log_probs_;
  std::vector<float> rewards_;
  std::vector<double> seen_;
  int act(const torch::Tensor &s) {
    auto logp = torch::log_softmax(policy(s), -1);
    float lp = logp[0].item<float>();
    log_probs_.push_back(lp);
    seen_.push_back(s.sum().item<double>());
    return 0;
  }
  void finishEpisode() {
    auto lp = torch::tensor(log_probs_);
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it
    // CHECK-MESSAGES: :[[@LINE-8]]:24: note: values read out of a tensor with autograd history here
    auto loss = -(lp * torch::tensor(rewards_)).sum();
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the new tensor is backpropagated here, with no other autograd history
    opt.step();
  }
  // Negative: values of the inputs (no history), and rewards the caller gives.
  void finishQuiet(torch::Tensor scores) {
    auto loss = (scores * torch::tensor(seen_)).sum() * torch::tensor(rewards_).mean();
    loss.backward();
  }
  // Negative: the read-out values only logged.
  double meanLogProb() { return torch::tensor(log_probs_).mean().item<double>(); }
};
