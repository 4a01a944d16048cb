// Report: https://github.com/tenstorrent/tt-blacksmith/pull/711
// What went wrong: the Trainer class for LoRA fine-tuning forgot to zero the gradients
// after each optimizer step.
#include <torch/torch.h>

struct LoraModelImpl : torch::nn::Module {
  torch::nn::Linear a{nullptr}, b{nullptr};
  LoraModelImpl() {
    a = register_module("a", torch::nn::Linear(64, 8));
    b = register_module("b", torch::nn::Linear(8, 64));
  }
  torch::Tensor forward(const torch::Tensor &x) { return x + b(a(x)); }
};
TORCH_MODULE(LoraModel);

class Trainer {
public:
  Trainer(LoraModel model, double lr)
      : model_(model), optimizer_(model->parameters(), torch::optim::AdamOptions(lr)) {}

  torch::Tensor training_step(const torch::data::Example<> &batch) {
    auto loss = torch::nn::functional::cross_entropy(model_(batch.data), batch.target);
    loss.backward();
    return loss;
  }

  void optimizer_step() {
    optimizer_.step(); // EXPECT: torch-missing-zero-grad
  }

  void fit(const std::vector<torch::data::Example<>> &loader, int epochs) {
    for (int e = 0; e < epochs; ++e) {
      for (const auto &batch : loader) {
        training_step(batch);
        optimizer_step();
      }
    }
  }

private:
  LoraModel model_;
  torch::optim::Adam optimizer_;
};
