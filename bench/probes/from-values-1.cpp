// Report: https://github.com/isayev/ReLeaSE/issues/39
// What went wrong: the policy-gradient loss was accumulated from `log_probs[...].item()`
// values, so the loss had no graph: every layer's grad was None and the weights never
// changed.
#include <torch/torch.h>

struct GeneratorImpl : torch::nn::Module {
  torch::nn::Linear out{nullptr};
  GeneratorImpl() { out = register_module("out", torch::nn::Linear(32, 40)); }
  torch::Tensor forward(const torch::Tensor &h) { return out(h); }
};
TORCH_MODULE(Generator);

float reward_of(const std::vector<int64_t> &tokens);

void policy_gradient_step(Generator &gen, torch::optim::Adam &opt,
                          const std::vector<torch::Tensor> &states,
                          const std::vector<int64_t> &actions, float gamma) {
  float rl_loss = 0.0f;
  float discounted_reward = reward_of(actions);
  for (size_t t = 0; t < states.size(); ++t) {
    auto log_probs = torch::log_softmax(gen->forward(states[t]), 1);
    rl_loss -= log_probs[0][actions[t]].item<float>() * discounted_reward;
    discounted_reward *= gamma;
  }
  opt.zero_grad();
  auto loss = torch::tensor(rl_loss); // EXPECT: torch-tensor-from-values-breaks-graph
  loss.backward();
  opt.step();
}
