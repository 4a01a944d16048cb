// Report: https://github.com/pytorch/pytorch/issues/52186
// What went wrong (as answered): the LSTM model was moved to the GPU, but its forward made
// the initial states with torch::zeros(...) on the CPU: the tensors were not on the right
// device.
#include <torch/torch.h>
#include <tuple>

struct LstmRegressorImpl : torch::nn::Module {
  torch::nn::LSTM lstm{nullptr};
  torch::nn::Linear fc{nullptr};
  int64_t num_layers = 2, hidden = 64;
  LstmRegressorImpl() {
    lstm = register_module("lstm", torch::nn::LSTM(8, 64));
    fc = register_module("fc", torch::nn::Linear(64, 1));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    auto h0 = torch::zeros({num_layers, x.size(0), hidden});
    auto c0 = torch::zeros({num_layers, x.size(0), hidden});
    auto out = std::get<0>(lstm(x, std::make_tuple(h0, c0))); // EXPECT: torch-device-mismatch
    return fc(out);
  }
};
TORCH_MODULE(LstmRegressor);

void train(torch::Device device, const std::vector<torch::data::Example<>> &data) {
  LstmRegressor model;
  model->to(device);
  torch::optim::Adam opt(model->parameters());
  for (const auto &b : data) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(b.data.to(device)), b.target.to(device));
    loss.backward();
    opt.step();
  }
}
