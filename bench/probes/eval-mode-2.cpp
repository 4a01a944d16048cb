// Report: https://github.com/optuna/optuna/pull/1725
// What went wrong: the example called model.train() once before the epoch loop while the
// validation at the end of each epoch called model.eval(), so every epoch after the first
// trained in evaluation mode; the fix calls train() at the start of every epoch.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  NetImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(784, 128));
    fc2 = register_module("fc2", torch::nn::Linear(128, 10));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    return torch::log_softmax(fc2(torch::relu(fc1(x.flatten(1)))), 1);
  }
};
TORCH_MODULE(Net);

double objective(int epochs, double lr) {
  Net model;
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(lr));
  auto train_set = torch::data::datasets::MNIST("data").map(torch::data::transforms::Stack<>());
  auto valid_set = torch::data::datasets::MNIST("data").map(torch::data::transforms::Stack<>());
  auto train_loader = torch::data::make_data_loader(std::move(train_set), 128);
  auto valid_loader = torch::data::make_data_loader(std::move(valid_set), 128);
  double accuracy = 0;
  model->train();
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (auto &batch : *train_loader) {
      optimizer.zero_grad();
      auto loss = torch::nll_loss(model->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
    }
    model->eval(); // EXPECT: torch-eval-mode-not-restored
    torch::NoGradGuard no_grad;
    double correct = 0;
    for (auto &batch : *valid_loader)
      correct += model->forward(batch.data).argmax(1).eq(batch.target).sum().item<double>();
    accuracy = correct / 10000;
  }
  return accuracy;
}
