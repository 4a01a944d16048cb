// Report: https://github.com/yastrebksv/TennisCourtDetector/issues/7
// What went wrong: the base trainer's train loop called backward() and step() but never
// optimizer.zero_grad(), so gradients of all earlier batches were applied again.
#include <torch/torch.h>

struct CourtNetImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  CourtNetImpl() { conv = register_module("conv", torch::nn::Conv2d(3, 15, 3)); }
  torch::Tensor forward(const torch::Tensor &x) { return conv(x); }
};
TORCH_MODULE(CourtNet);

template <typename Loader>
double train_epoch(CourtNet &model, Loader &loader, torch::optim::Adam &optimizer,
                   torch::Device device) {
  model->train();
  double running = 0;
  int64_t n = 0;
  for (auto &batch : *loader) {
    auto out = model->forward(batch.data.to(device));
    auto loss = torch::mse_loss(out, batch.target.to(device));
    loss.backward();
    optimizer.step(); // EXPECT: torch-missing-zero-grad
    running += loss.template item<double>();
    ++n;
  }
  return running / n;
}

void train_main(CourtNet &model, torch::optim::Adam &optimizer, torch::Device device) {
  auto dataset = torch::data::datasets::MNIST("data").map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 8);
  for (int epoch = 0; epoch < 10; ++epoch)
    train_epoch(model, loader, optimizer, device);
}
