// Report: https://github.com/bmsookim/wide-resnet.pytorch/issues/8
// What went wrong (as asked in the report): the optimizer (SGD with momentum) is declared
// inside train(), which runs once per epoch, instead of once at the start of training.
#include <torch/torch.h>

struct WideResNetImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  WideResNetImpl() { conv = register_module("conv", torch::nn::Conv2d(3, 16, 3)); }
  torch::Tensor forward(const torch::Tensor &x) { return conv(x).mean(-1).mean(-1); }
};
TORCH_MODULE(WideResNet);

double learning_rate(double init, int epoch);

class CifarTrainer {
public:
  void train(int epoch) {
    net_->train();
    torch::optim::SGD optimizer(net_->parameters(), torch::optim::SGDOptions(learning_rate(0.1, epoch)).momentum(0.9)); // EXPECT: torch-optimizer-created-in-loop
    for (const auto &batch : train_data_) {
      optimizer.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(net_->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
    }
  }
  void run(int epochs) {
    for (int epoch = 1; epoch <= epochs; ++epoch)
      train(epoch);
  }

private:
  WideResNet net_;
  std::vector<torch::data::Example<>> train_data_;
};
