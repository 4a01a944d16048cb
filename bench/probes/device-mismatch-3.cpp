// Report: https://github.com/lschmiddey/deep_tabular_augmentation/issues/11
// What went wrong: the autoencoder was moved with `.to(DEVICE)`, but the library's data
// loaders produced CPU tensors, so fit() failed with "Expected all tensors to be on the same
// device ... (when checking argument for argument mat1 in method wrapper_addmm)".
#include <torch/torch.h>
#include <memory>

struct AutoencoderImpl : torch::nn::Module {
  torch::nn::Linear enc{nullptr}, dec{nullptr};
  AutoencoderImpl(int64_t d_in, int64_t d_lat) {
    enc = register_module("enc", torch::nn::Linear(d_in, d_lat));
    dec = register_module("dec", torch::nn::Linear(d_lat, d_in));
  }
  torch::Tensor forward(const torch::Tensor &x) { return dec(torch::relu(enc(x))); }
};

struct Learner {
  std::shared_ptr<AutoencoderImpl> model;
  std::vector<torch::Tensor> train_batches;
  std::unique_ptr<torch::optim::Adam> opt;
};

void fit(Learner &learn, int epochs) {
  for (int e = 0; e < epochs; ++e) {
    for (const auto &xb : learn.train_batches) {
      auto recon = learn.model->forward(xb);
      auto loss = torch::mse_loss(recon, xb);
      learn.opt->zero_grad();
      loss.backward();
      learn.opt->step();
    }
  }
}

void main_run(const std::vector<std::vector<float>> &table) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  Learner learn;
  learn.model = std::make_shared<AutoencoderImpl>(20, 4);
  learn.model->to(device);
  std::vector<torch::Tensor> rows;
  for (const auto &r : table)
    rows.push_back(torch::tensor(r));
  for (size_t i = 0; i + 256 <= rows.size(); i += 256)
    learn.train_batches.push_back(torch::stack(std::vector<torch::Tensor>(rows.begin() + i, rows.begin() + i + 256)));
  learn.opt = std::make_unique<torch::optim::Adam>(learn.model->parameters());
  fit(learn, 10); // EXPECT: torch-device-mismatch
}
