// Report: https://github.com/TRI-ML/packnet-sfm/pull/51
// What went wrong: each training step's output record (with the loss in it) was appended
// to the epoch's output list without detaching the loss, keeping every step's graph.
#include <torch/torch.h>

struct DepthNetImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  DepthNetImpl() { conv = register_module("conv", torch::nn::Conv2d(3, 1, 3)); }
  torch::Tensor forward(const torch::Tensor &x) { return torch::sigmoid(conv(x)); }
};
TORCH_MODULE(DepthNet);

struct StepOutput {
  torch::Tensor loss;
  int64_t batch_idx;
};

torch::Tensor training_step(DepthNet &model, torch::optim::Optimizer &opt,
                            const torch::data::Example<> &batch) {
  opt.zero_grad();
  auto depth = model(batch.data);
  auto loss = (depth - batch.target).abs().mean();
  loss.backward();
  opt.step();
  return loss;
}

std::vector<StepOutput> train_epoch(DepthNet &model, torch::optim::Optimizer &opt,
                                    const std::vector<torch::data::Example<>> &batches) {
  std::vector<StepOutput> outputs;
  int64_t i = 0;
  for (const auto &batch : batches) {
    auto loss = training_step(model, opt, batch);
    outputs.push_back(StepOutput{loss, i}); // EXPECT: torch-loss-accumulated-without-item
    ++i;
  }
  return outputs;
}
