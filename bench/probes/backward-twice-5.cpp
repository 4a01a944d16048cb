// Report: https://github.com/lucidrains/PaLM-rlhf-pytorch/issues/61
// What went wrong (as reported): the actor and the critic losses share one forward pass;
// backpropagating the first without retain_graph frees the graph the second needs.
#include <torch/torch.h>

struct ActorCriticImpl : torch::nn::Module {
  torch::nn::Linear trunk{nullptr}, pi{nullptr}, v{nullptr};
  ActorCriticImpl() {
    trunk = register_module("trunk", torch::nn::Linear(16, 32));
    pi = register_module("pi", torch::nn::Linear(32, 4));
    v = register_module("v", torch::nn::Linear(32, 1));
  }
  torch::Tensor forward(const torch::Tensor &x) { return torch::relu(trunk(x)); }
};
TORCH_MODULE(ActorCritic);

class PPOLearner {
public:
  PPOLearner(ActorCritic model, torch::optim::Adam &actor_opt, torch::optim::Adam &critic_opt)
      : model_(model), actor_opt_(actor_opt), critic_opt_(critic_opt) {}

  void learn(const torch::Tensor &obs, const torch::Tensor &actions,
             const torch::Tensor &returns) {
    auto h = model_->forward(obs);
    auto logp = torch::log_softmax(model_->pi(h), -1).gather(1, actions);
    auto values = model_->v(h);
    auto actor_loss = -(logp * (returns - values.detach())).mean();
    auto critic_loss = torch::mse_loss(values, returns);
    apply(actor_opt_, actor_loss);
    apply(critic_opt_, critic_loss); // EXPECT: torch-backward-twice-without-retain-graph
  }

private:
  void apply(torch::optim::Optimizer &opt, const torch::Tensor &loss) {
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  ActorCritic model_;
  torch::optim::Adam &actor_opt_;
  torch::optim::Adam &critic_opt_;
};
