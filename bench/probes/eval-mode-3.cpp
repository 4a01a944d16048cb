// Report: https://github.com/joeynmt/joeynmt/issues/184
// What went wrong: the training loop validated on the dev set every `validation_freq`
// steps; validation called the prediction function, which set model.eval(), and training
// resumed in eval mode until the next epoch reset it.
#include <torch/torch.h>

struct TransformerImpl : torch::nn::Module {
  torch::nn::Linear proj{nullptr};
  TransformerImpl() { proj = register_module("proj", torch::nn::Linear(512, 512)); }
  torch::Tensor forward(const torch::Tensor &x) { return proj(x); }
};
TORCH_MODULE(Transformer);

using Data = std::vector<torch::data::Example<>>;

double predict(Transformer &model, const Data &data) {
  model->eval(); // EXPECT: torch-eval-mode-not-restored
  torch::NoGradGuard no_grad;
  double score = 0;
  for (const auto &b : data)
    score += torch::mse_loss(model(b.data), b.target).item<double>();
  return score;
}

double validate_on_data(Transformer &model, const Data &dev) { return predict(model, dev); }

void train_and_validate(Transformer &model, torch::optim::Adam &opt, const Data &train,
                        const Data &dev, int epochs, int64_t validation_freq) {
  int64_t steps = 0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    model->train();
    for (const auto &b : train) {
      auto loss = torch::mse_loss(model(b.data), b.target);
      opt.zero_grad();
      loss.backward();
      opt.step();
      if (++steps % validation_freq == 0)
        validate_on_data(model, dev);
    }
  }
}
