// Report: https://github.com/ZantFoundation/Z-Ant/issues/107
// What went wrong: the trainer declared the optimizer inside the epoch loop; it must be
// declared once, out of the training loop.
#include <torch/torch.h>
#include <memory>

struct MlpImpl : torch::nn::Module {
  torch::nn::Linear l1{nullptr}, l2{nullptr};
  MlpImpl(int64_t hidden = 32) {
    l1 = register_module("l1", torch::nn::Linear(784, hidden));
    l2 = register_module("l2", torch::nn::Linear(hidden, 10));
  }
  torch::Tensor forward(const torch::Tensor &x) { return l2(torch::relu(l1(x))); }
};
TORCH_MODULE(Mlp);

void train_loop(Mlp &model, const std::vector<torch::data::Example<>> &batches, int epochs,
                double lr) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    auto optimizer = std::make_unique<torch::optim::Adam>(model->parameters(), torch::optim::AdamOptions(lr)); // EXPECT: torch-optimizer-created-in-loop
    for (const auto &b : batches) {
      optimizer->zero_grad();
      auto loss = torch::nn::functional::cross_entropy(model(b.data), b.target);
      loss.backward();
      optimizer->step();
    }
  }
}

// Look-alike: a fresh model per trial of a hyper-parameter search (fine).
void search(const std::vector<torch::data::Example<>> &batches, const std::vector<int64_t> &sizes) {
  for (int64_t hidden : sizes) {
    Mlp model(hidden);
    torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
    for (const auto &b : batches) {
      optimizer.zero_grad();
      torch::nn::functional::cross_entropy(model(b.data), b.target).backward();
      optimizer.step();
    }
  }
}
