#include <torch/torch.h>

struct Net : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

void train(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  torch::Tensor flipped = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    opt.zero_grad();
    loss.backward();
    opt.step();
    total += loss;
    flipped = loss * 2 + flipped;
  }
}

double accuracy(torch::nn::Linear &model, const Batches &batches) {
  model->eval();
  double correct = 0;
  for (const auto &batch : batches) {
    auto out = model->forward(batch.first);
    correct += out.argmax(1).eq(batch.second).sum().item<double>();
  }
  return correct;
}

torch::Tensor distance(const torch::Tensor &a, const torch::Tensor &b) {
  return (a - b).pow(2).sum(1).sqrt();
}

torch::Tensor log_probabilities(const torch::Tensor &logits) {
  return torch::log(torch::softmax(logits, 1));
}

void restore(Net &net, const std::string &path) { torch::load(net, path); }
