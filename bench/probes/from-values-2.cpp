// Report: https://github.com/paiml/aprender/issues/3034
// What went wrong: a SmoothL1 loss computed its elementwise values on the host and built a
// fresh tensor from them, detached from the autograd graph: models trained with it got zero
// gradient from it.
#include <torch/torch.h>
#include <cmath>

torch::Tensor smooth_l1(const torch::Tensor &pred, const torch::Tensor &target, float beta) {
  auto diff = (pred - target).contiguous();
  const float *d = diff.data_ptr<float>();
  std::vector<float> values(diff.numel());
  for (int64_t i = 0; i < diff.numel(); ++i) {
    float a = std::fabs(d[i]);
    values[i] = a < beta ? 0.5f * a * a / beta : a - 0.5f * beta;
  }
  return torch::tensor(values).mean(); // EXPECT: torch-tensor-from-values-breaks-graph
}

struct ForecasterImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  ForecasterImpl() { fc = register_module("fc", torch::nn::Linear(24, 1)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Forecaster);

// A metric computed the same way, only logged: fine.
double mae_for_log(const torch::Tensor &pred, const torch::Tensor &target) {
  auto diff = (pred - target).abs().contiguous();
  std::vector<float> host(diff.data_ptr<float>(), diff.data_ptr<float>() + diff.numel());
  return torch::tensor(host).mean().item<double>();
}

void fit(Forecaster &model, torch::optim::Adam &opt,
         const std::vector<torch::data::Example<>> &loader) {
  for (const auto &batch : loader) {
    auto pred = model(batch.data);
    auto loss = smooth_l1(pred, batch.target, 1.0f);
    opt.zero_grad();
    loss.backward();
    opt.step();
    double mae = mae_for_log(pred, batch.target);
    (void)mae;
  }
}
