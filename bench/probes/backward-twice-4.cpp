// Report: https://github.com/pytorch/pytorch/issues/91542
// What went wrong (SAC case in the thread): the log-probabilities sampled for the actor
// loss are reused for the entropy-temperature loss; after the actor's backward the second
// backward reaches the freed graph.
#include <torch/torch.h>

struct Sample {
  torch::Tensor action;
  torch::Tensor log_prob;
};

struct GaussianPolicyImpl : torch::nn::Module {
  torch::nn::Linear mu{nullptr};
  GaussianPolicyImpl() { mu = register_module("mu", torch::nn::Linear(6, 2)); }
  torch::Tensor forward(const torch::Tensor &s) { return torch::tanh(mu(s)); }
  Sample sample(const torch::Tensor &s) {
    auto a = forward(s);
    return Sample{a, -(a * a).sum(-1)};
  }
};
TORCH_MODULE(GaussianPolicy);

torch::Tensor q_value(const torch::Tensor &s, const torch::Tensor &a);

void sac_update(GaussianPolicy &policy, torch::optim::Adam &actor_opt,
                torch::optim::Adam &alpha_opt, torch::Tensor &log_alpha,
                const torch::Tensor &states, double target_entropy) {
  Sample smp = policy->sample(states);
  auto alpha = log_alpha.exp().detach();
  auto actor_loss = (alpha * smp.log_prob - q_value(states, smp.action)).mean();
  actor_opt.zero_grad();
  actor_loss.backward();
  actor_opt.step();

  auto alpha_loss = -(log_alpha * (smp.log_prob + target_entropy)).mean();
  alpha_opt.zero_grad();
  alpha_loss.backward(); // EXPECT: torch-backward-twice-without-retain-graph
  alpha_opt.step();
}
