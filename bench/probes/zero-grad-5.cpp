// Report: https://github.com/marrrcin/pytorch-resnet-mnist/issues/2
// What went wrong (as reported): the loop cleared with model.zero_grad() and the reporter
// thought it should be optimizer.zero_grad(); both clear the same parameters here. Correct
// look-alikes only (no diagnostic expected).
// CHECKS: torch-missing-zero-grad
#include <torch/torch.h>

struct ResNetImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  ResNetImpl() { conv = register_module("conv", torch::nn::Conv2d(1, 10, 3)); }
  torch::Tensor forward(const torch::Tensor &x) { return conv(x).mean(-1).mean(-1); }
};
TORCH_MODULE(ResNet);

void train_model_zero_grad(ResNet &model, const std::vector<torch::data::Example<>> &loader) {
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  for (const auto &batch : loader) {
    model->zero_grad();
    auto loss = torch::nn::functional::cross_entropy(model->forward(batch.data), batch.target);
    loss.backward();
    optimizer.step();
  }
}

// Gradient accumulation with the clearing after the step (ultralytics#11217 style).
void train_accumulate(ResNet &model, torch::optim::Adam &optimizer,
                      const std::vector<torch::data::Example<>> &loader, int accumulate) {
  int i = 0;
  for (const auto &batch : loader) {
    auto loss = torch::nn::functional::cross_entropy(model(batch.data), batch.target);
    (loss / accumulate).backward();
    if (++i % accumulate == 0) {
      optimizer.step();
      optimizer.zero_grad();
    }
  }
}

// Clearing inside the training step helper.
void step(torch::optim::Optimizer &opt, const torch::Tensor &loss) {
  opt.zero_grad();
  loss.backward();
  opt.step();
}
void train_with_helper(ResNet &model, torch::optim::Adam &opt,
                       const std::vector<torch::data::Example<>> &loader) {
  for (const auto &batch : loader)
    step(opt, torch::nn::functional::cross_entropy(model(batch.data), batch.target));
}
