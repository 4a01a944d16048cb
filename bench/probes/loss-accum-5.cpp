// Report: https://github.com/microsoft/SpareNet/issues/12
// What went wrong: the runner fed the loss tensors (not their values) to its average
// meters' update(); GPU memory grew steadily until CUDA ran out of memory after 2 epochs.
#include <torch/torch.h>

class AverageMeter {
public:
  void update(const torch::Tensor &val, int64_t n = 1) {
    sum_ = sum_ + val * n; // EXPECT: torch-loss-accumulated-without-item
    count_ += n;
  }
  double avg() const { return sum_.item<double>() / count_; }

private:
  torch::Tensor sum_ = torch::zeros({});
  int64_t count_ = 0;
};

struct CompletionNetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  CompletionNetImpl() { fc = register_module("fc", torch::nn::Linear(3, 3)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(CompletionNet);

void train(CompletionNet &net, torch::optim::Adam &opt,
           const std::vector<torch::data::Example<>> &loader, int epochs) {
  AverageMeter coarse_meter;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (const auto &batch : loader) {
      auto out = net(batch.data);
      auto coarse_loss = torch::mse_loss(out, batch.target);
      opt.zero_grad();
      coarse_loss.backward();
      opt.step();
      coarse_meter.update(coarse_loss, batch.data.size(0));
    }
  }
}
