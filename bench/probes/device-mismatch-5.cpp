// Report: https://github.com/Comfy-Org/ComfyUI/issues/2363
// The answer in the thread: move the model and the input data to the same device. Correct
// look-alikes only (no diagnostic expected).
// CHECKS: torch-device-mismatch
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  NetImpl() { fc = register_module("fc", torch::nn::Linear(16, 4)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Net);

void train(Net &model, const std::vector<torch::data::Example<>> &data) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  model->to(device);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  for (const auto &b : data) {
    auto input_data = b.data.to(device);
    auto target = b.target.to(device);
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(input_data), target);
    loss.backward();
    opt.step();
  }
  auto probe = torch::zeros({1, 16}, torch::TensorOptions().device(device));
  model->forward(probe);
  auto noise = torch::randn({1, 16}, torch::device(device));
  model->forward(noise);
}

// The model never leaves the CPU: CPU inputs are fine.
void cpu_only(const std::vector<torch::Tensor> &xs) {
  Net model;
  torch::NoGradGuard g;
  for (const auto &x : xs)
    model->forward(x);
}
