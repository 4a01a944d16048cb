// Report: https://github.com/google/brax/pull/152
// What went wrong: the training example summed `total_loss += loss` with the loss tensor
// itself, so every step's autograd graph stayed reachable from total_loss ("memory leak").
#include <torch/torch.h>

struct PolicyImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  PolicyImpl() { fc = register_module("fc", torch::nn::Linear(8, 2)); }
  torch::Tensor forward(const torch::Tensor &obs) { return fc(obs); }
};
TORCH_MODULE(Policy);

double run_updates(Policy &policy, torch::optim::Adam &opt,
                   const std::vector<torch::Tensor> &obs,
                   const std::vector<torch::Tensor> &targets, int steps) {
  torch::nn::MSELoss criterion;
  torch::Tensor total_loss = torch::zeros({});
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    auto pred = policy(obs[i % obs.size()]);
    auto loss = criterion(pred, targets[i % targets.size()]);
    loss.backward();
    opt.step();
    total_loss += loss; // EXPECT: torch-loss-accumulated-without-item
  }
  return total_loss.item<double>() / steps;
}

// The fix from the report: accumulate a number.
double run_updates_fixed(Policy &policy, torch::optim::Adam &opt,
                         const std::vector<torch::Tensor> &obs,
                         const std::vector<torch::Tensor> &targets, int steps) {
  torch::nn::MSELoss criterion;
  double total_loss = 0.0;
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();
    auto loss = criterion(policy(obs[i % obs.size()]), targets[i % targets.size()]);
    loss.backward();
    opt.step();
    total_loss += loss.item<double>();
  }
  return total_loss / steps;
}
