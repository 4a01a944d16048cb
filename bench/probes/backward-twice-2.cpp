// Report: https://github.com/pytorch/examples/issues/151
// What went wrong: calling REINFORCE's finish_episode() more than once over the same saved
// log-probabilities (to replay experience) failed with "Trying to backward through the graph
// second time, but the buffers have already been freed".
#include <torch/torch.h>

struct PolicyImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  std::vector<torch::Tensor> saved_log_probs;
  std::vector<float> rewards;
  PolicyImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(const torch::Tensor &s) { return torch::softmax(fc(s), -1); }
};
TORCH_MODULE(Policy);

void finish_episode(Policy &policy, torch::optim::Adam &opt) {
  std::vector<torch::Tensor> terms;
  for (size_t i = 0; i < policy->saved_log_probs.size(); ++i)
    terms.push_back(-policy->saved_log_probs[i] * policy->rewards[i]);
  auto loss = torch::stack(terms).sum();
  opt.zero_grad();
  loss.backward(); // EXPECT: torch-backward-twice-without-retain-graph
  opt.step();
}

void run_episode(Policy &policy, torch::optim::Adam &opt, const std::vector<torch::Tensor> &obs,
                 int replays) {
  for (const auto &s : obs) {
    auto probs = policy->forward(s);
    policy->saved_log_probs.push_back(torch::log(probs[0]));
    policy->rewards.push_back(1.0f);
  }
  for (int k = 0; k < replays; ++k)
    finish_episode(policy, opt);
}
