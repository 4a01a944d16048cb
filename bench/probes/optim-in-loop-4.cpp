// Report: https://github.com/OpenNMT/OpenNMT-py/issues/617
// What went wrong (in the report): building the optimizer again after loading a checkpoint
// erased Adam's state; the fix builds it once. Correct look-alikes only (no diagnostic
// expected).
// CHECKS: torch-optimizer-created-in-loop
#include <torch/torch.h>
#include <memory>

struct Seq2SeqImpl : torch::nn::Module {
  torch::nn::Linear proj{nullptr};
  Seq2SeqImpl() { proj = register_module("proj", torch::nn::Linear(32, 32)); }
  torch::Tensor forward(const torch::Tensor &x) { return proj(x); }
};
TORCH_MODULE(Seq2Seq);

void train(Seq2Seq &model, const std::vector<torch::data::Example<>> &data, int epochs) {
  std::unique_ptr<torch::optim::Adam> optim;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    if (!optim)
      optim = std::make_unique<torch::optim::Adam>(model->parameters(), torch::optim::AdamOptions(1e-3));
    for (const auto &b : data) {
      optim->zero_grad();
      torch::mse_loss(model(b.data), b.target).backward();
      optim->step();
    }
  }
}

// Plain SGD (no momentum) rebuilt to change the learning rate: it keeps no state.
void train_decay(Seq2Seq &model, const std::vector<torch::data::Example<>> &data, int epochs) {
  double lr = 1.0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(lr));
    for (const auto &b : data) {
      sgd.zero_grad();
      torch::mse_loss(model(b.data), b.target).backward();
      sgd.step();
    }
    lr *= 0.5;
  }
}

// Built once, before the loop.
void train_once(Seq2Seq &model, const std::vector<torch::data::Example<>> &data, int epochs) {
  torch::optim::Adam optim(model->parameters(), torch::optim::AdamOptions(1e-3));
  for (int epoch = 0; epoch < epochs; ++epoch)
    for (const auto &b : data) {
      optim.zero_grad();
      torch::mse_loss(model(b.data), b.target).backward();
      optim.step();
    }
}
