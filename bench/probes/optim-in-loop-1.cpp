// Report: https://github.com/alan-turing-institute/deepsensor/issues/47
// What went wrong: train_epoch() re-instantiated the Adam optimiser at the start of every
// epoch, throwing away the momentum gathered in earlier epochs.
#include <torch/torch.h>

struct ConvNPImpl : torch::nn::Module {
  torch::nn::Linear enc{nullptr};
  ConvNPImpl() { enc = register_module("enc", torch::nn::Linear(10, 10)); }
  torch::Tensor forward(const torch::Tensor &x) { return enc(x); }
};
TORCH_MODULE(ConvNP);

std::vector<double> train_epoch(ConvNP &model, const std::vector<torch::data::Example<>> &tasks,
                                double lr) {
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr)); // EXPECT: torch-optimizer-created-in-loop
  std::vector<double> losses;
  for (const auto &task : tasks) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(task.data), task.target);
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

void fit(ConvNP &model, const std::vector<torch::data::Example<>> &tasks, int n_epochs) {
  for (int epoch = 0; epoch < n_epochs; ++epoch) {
    auto batch_losses = train_epoch(model, tasks, 5e-5);
  }
}
