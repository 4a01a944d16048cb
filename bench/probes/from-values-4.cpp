// Report: https://github.com/pytorch/examples/issues/151
// What went wrong (in the report): REINFORCE's finish_episode backpropagated saved log
// probabilities; here only correct look-alikes of building tensors from host values:
// returns and baselines used as constants beside log-probabilities that keep the graph.
// CHECKS: torch-tensor-from-values-breaks-graph
#include <torch/torch.h>

struct PolicyImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  PolicyImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(const torch::Tensor &s) { return torch::softmax(fc(s), -1); }
};
TORCH_MODULE(Policy);

void finish_episode(Policy &policy, torch::optim::Adam &opt,
                    std::vector<torch::Tensor> &saved_log_probs, std::vector<float> &rewards,
                    float gamma) {
  std::vector<float> returns(rewards.size());
  float r = 0;
  for (int64_t i = static_cast<int64_t>(rewards.size()) - 1; i >= 0; --i) {
    r = rewards[i] + gamma * r;
    returns[i] = r;
  }
  auto ret = torch::tensor(returns);
  ret = (ret - ret.mean()) / (ret.std() + 1e-6);
  auto loss = -(torch::stack(saved_log_probs) * ret).sum();
  opt.zero_grad();
  loss.backward();
  opt.step();
  saved_log_probs.clear();
  rewards.clear();
}

// The critic's values read on the host are a baseline, not something to train through.
void actor_step(Policy &policy, torch::optim::Adam &opt, const torch::Tensor &states,
                const torch::Tensor &actions, const std::vector<float> &critic_values,
                const std::vector<float> &returns) {
  std::vector<float> adv;
  for (size_t i = 0; i < returns.size(); ++i)
    adv.push_back(returns[i] - critic_values[i]);
  auto probs = policy->forward(states);
  auto logp = torch::log(probs.gather(1, actions) + 1e-8);
  auto loss = -(logp * torch::tensor(adv)).mean();
  opt.zero_grad();
  loss.backward();
  opt.step();
}
