// Report: https://github.com/MultimediaTechLab/YOLO/pull/83
// What went wrong: per-component losses were summed into a dict of tensors
// (total_loss[name] += loss_value) over the epoch: ~1-2 MB of CPU memory leaked per batch.
#include <torch/torch.h>
#include <map>
#include <string>

struct YoloImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  YoloImpl() { conv = register_module("conv", torch::nn::Conv2d(3, 8, 3)); }
  torch::Tensor forward(const torch::Tensor &x) { return conv(x); }
};
TORCH_MODULE(Yolo);

std::map<std::string, torch::Tensor> compute_losses(const torch::Tensor &pred,
                                                    const torch::Tensor &target) {
  std::map<std::string, torch::Tensor> losses;
  losses["box"] = torch::mse_loss(pred, target);
  losses["cls"] = torch::binary_cross_entropy(torch::sigmoid(pred), target);
  return losses;
}

void train_one_epoch(Yolo &model, torch::optim::Adam &opt,
                     const std::vector<std::pair<torch::Tensor, torch::Tensor>> &data,
                     std::map<std::string, torch::Tensor> &epoch_totals) {
  for (const auto &sample : data) {
    auto losses = compute_losses(model(sample.first), sample.second);
    // The sum that is backpropagated: fine.
    auto loss = torch::zeros({});
    for (auto &kv : losses)
      loss = loss + kv.second;
    opt.zero_grad();
    loss.backward();
    opt.step();
    for (auto &kv : losses)
      epoch_totals[kv.first] += kv.second; // EXPECT: torch-loss-accumulated-without-item
  }
}
