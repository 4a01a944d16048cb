// Report: https://github.com/bubbliiiing/yolo3-pytorch/issues/3
// What went wrong: fit_one_epoch accumulated `total_loss += loss` (and the validation loss)
// as tensors; with the graph attached the GPU ran out of memory after some epochs.
#include <torch/torch.h>

struct DetectorImpl : torch::nn::Module {
  torch::nn::Conv2d head{nullptr};
  DetectorImpl() { head = register_module("head", torch::nn::Conv2d(3, 18, 1)); }
  torch::Tensor forward(const torch::Tensor &x) { return head(x); }
};
TORCH_MODULE(Detector);

torch::Tensor yolo_loss(const torch::Tensor &out, const torch::Tensor &target);

class Trainer {
public:
  Trainer(Detector net, torch::optim::SGD &opt) : net_(net), opt_(opt) {}

  template <typename Loader> void fit_one_epoch(Loader &train_loader, Loader &val_loader) {
    train_loss_ = torch::zeros({});
    for (auto &batch : train_loader) {
      opt_.zero_grad();
      auto outputs = net_(batch.data);
      auto loss = yolo_loss(outputs, batch.target);
      loss.backward();
      opt_.step();
      train_loss_ += loss; // EXPECT: torch-loss-accumulated-without-item
    }
    // Validation under a guard: no graph is recorded, nothing to keep alive.
    torch::Tensor val_loss = torch::zeros({});
    {
      torch::NoGradGuard no_grad;
      for (auto &batch : val_loader) {
        auto loss = yolo_loss(net_(batch.data), batch.target);
        val_loss += loss;
      }
    }
    last_val_ = val_loss.item<double>();
  }

private:
  Detector net_;
  torch::optim::SGD &opt_;
  torch::Tensor train_loss_;
  double last_val_ = 0;
};

using Batches = std::vector<torch::data::Example<>>;
void run(Trainer &trainer, Batches &train, Batches &val) {
  trainer.fit_one_epoch(train, val);
}
