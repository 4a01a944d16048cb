// Report: https://github.com/Kostis-S-Z/exploring_meta/issues/16
// What went wrong: the PPO loss had to be manually set to requires_grad=True to avoid
// "element 0 of tensors does not require grad and does not have a grad_fn": it was built
// from plain numbers, so backward trained nothing.
#include <torch/torch.h>
#include <algorithm>
#include <cmath>

struct ActorImpl : torch::nn::Module {
  torch::nn::Linear pi{nullptr};
  ActorImpl() { pi = register_module("pi", torch::nn::Linear(8, 4)); }
  torch::Tensor forward(const torch::Tensor &s) { return torch::log_softmax(pi(s), -1); }
};
TORCH_MODULE(Actor);

struct Rollout {
  std::vector<float> ratios;
  std::vector<float> advantages;
};

void ppo_update(Actor &actor, torch::optim::Adam &opt, const std::vector<torch::Tensor> &states,
                const std::vector<int64_t> &actions, const std::vector<float> &old_logp,
                const std::vector<float> &adv, float clip) {
  Rollout ro;
  for (size_t i = 0; i < states.size(); ++i) {
    auto logp = actor->forward(states[i])[actions[i]];
    float ratio = std::exp(logp.item<float>() - old_logp[i]);
    ro.ratios.push_back(ratio);
    ro.advantages.push_back(adv[i]);
  }
  std::vector<float> surrogate;
  for (size_t i = 0; i < ro.ratios.size(); ++i) {
    float clipped = std::min(std::max(ro.ratios[i], 1 - clip), 1 + clip);
    surrogate.push_back(-std::min(ro.ratios[i] * ro.advantages[i], clipped * ro.advantages[i]));
  }
  auto loss = torch::tensor(surrogate, torch::requires_grad()).mean(); // EXPECT: torch-tensor-from-values-breaks-graph
  opt.zero_grad();
  loss.backward();
  opt.step();
}
