// Report: https://github.com/pytorch/tutorials/pull/1890
// What went wrong: the test loop ran `model(x)` on batches that were never moved to the
// device the model was on: "Expected all tensors to be on the same device".
#include <torch/torch.h>

struct NeuralNetworkImpl : torch::nn::Module {
  torch::nn::Linear l1{nullptr}, l2{nullptr};
  NeuralNetworkImpl() {
    l1 = register_module("l1", torch::nn::Linear(784, 512));
    l2 = register_module("l2", torch::nn::Linear(512, 10));
  }
  torch::Tensor forward(const torch::Tensor &x) { return l2(torch::relu(l1(x.flatten(1)))); }
};
TORCH_MODULE(NeuralNetwork);

template <typename Loader>
void train_loop(Loader &loader, NeuralNetwork &model, torch::optim::SGD &opt, torch::Device device) {
  for (auto &batch : *loader) {
    auto pred = model(batch.data.to(device));
    auto loss = torch::nn::functional::cross_entropy(pred, batch.target.to(device));
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

template <typename Loader>
double test_loop(Loader &loader, NeuralNetwork &model) {
  torch::NoGradGuard no_grad;
  double correct = 0;
  for (auto &batch : *loader) {
    auto pred = model(batch.data);
    correct += pred.argmax(1).eq(batch.target).sum().template item<double>();
  }
  return correct;
}

void run() {
  torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  NeuralNetwork model;
  model->to(device);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(1e-3));
  auto train_set = torch::data::datasets::MNIST("data").map(torch::data::transforms::Stack<>());
  auto test_set = torch::data::datasets::MNIST("data").map(torch::data::transforms::Stack<>());
  auto train_loader = torch::data::make_data_loader(std::move(train_set), 64);
  auto test_loader = torch::data::make_data_loader(std::move(test_set), 64);
  for (int epoch = 0; epoch < 5; ++epoch) {
    train_loop(train_loader, model, opt, device);
    test_loop(test_loader, model); // EXPECT: torch-device-mismatch
  }
}
