// Report: https://github.com/wkentaro/pytorch-fcn/issues/57
// What went wrong: train_epoch() validated every `interval` iterations and validate() put
// the model into eval mode without switching back; the rest of the epoch trained in
// evaluation mode and the loss jumped at each new epoch.
#include <torch/torch.h>
#include <algorithm>

struct FCNImpl : torch::nn::Module {
  torch::nn::Conv2d score{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  FCNImpl() {
    score = register_module("score", torch::nn::Conv2d(3, 21, 1));
    bn = register_module("bn", torch::nn::BatchNorm2d(21));
  }
  torch::Tensor forward(const torch::Tensor &x) { return bn(score(x)); }
};
TORCH_MODULE(FCN);

class Trainer {
public:
  void validate() {
    model_->eval(); // EXPECT: torch-eval-mode-not-restored
    torch::NoGradGuard no_grad;
    double total = 0;
    for (const auto &b : val_)
      total += torch::nll_loss(torch::log_softmax(model_(b.data), 1), b.target).item<double>();
    best_ = std::min(best_, total);
  }

  void train_epoch() {
    model_->train();
    for (const auto &b : train_) {
      if (iteration_ % interval_ == 0)
        validate();
      optim_.zero_grad();
      auto loss = torch::nll_loss(torch::log_softmax(model_(b.data), 1), b.target);
      loss.backward();
      optim_.step();
      ++iteration_;
    }
  }

private:
  FCN model_;
  torch::optim::SGD optim_{model_->parameters(), torch::optim::SGDOptions(1e-10).momentum(0.99)};
  std::vector<torch::data::Example<>> train_, val_;
  int64_t iteration_ = 0, interval_ = 4000;
  double best_ = 1e30;
};
