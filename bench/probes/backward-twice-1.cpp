// Report: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
// What went wrong: a Conv1d that reshaped the data to the network's input was applied once,
// outside the training loop; the first backward freed its graph and the second batch failed
// with "Trying to backward through the graph a second time".
#include <torch/torch.h>

struct DenoiserImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  DenoiserImpl() { fc = register_module("fc", torch::nn::Linear(64, 64)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Denoiser);

void train(Denoiser &model, torch::nn::Linear &adapter, torch::optim::Adam &opt,
           const torch::Tensor &raw, int steps) {
  auto data = adapter(raw); // trainable projection, computed once
  for (int step = 0; step < steps; ++step) {
    auto noise = torch::randn({64});
    auto loss = torch::mse_loss(model(data + noise), noise);
    opt.zero_grad();
    loss.backward(); // EXPECT: torch-backward-twice-without-retain-graph
    opt.step();
  }
}
