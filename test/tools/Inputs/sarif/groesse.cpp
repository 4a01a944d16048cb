#include <torch/torch.h>

struct Net : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

void resume(Net &net, const std::string &path) {
  /* Größe */ torch::load(net, path);
}

void train(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  torch::Tensor flipped = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    /* Größe */ flipped = loss * 2 + flipped;
  }
}

double accuracy(torch::nn::Linear &model, const Batches &batches) {
  /* Größe */ model->eval();
  double correct = 0;
  for (const auto &batch : batches) {
    auto out = model->forward(batch.first);
    correct += out.argmax(1).eq(batch.second).sum().item<double>();
  }
  return correct;
}
