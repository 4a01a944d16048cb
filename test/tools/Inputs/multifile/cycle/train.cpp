#include "cycle.h"

#include <vector>

// Trains only through ping(): a training loop when ping() trains.
void train(torch::nn::Linear &model, torch::optim::SGD &opt,
           const std::vector<torch::Tensor> &inputs) {
  torch::Tensor total = torch::zeros({1});
  for (const auto &x : inputs) {
    opt.zero_grad();
    auto loss = model->forward(x).sum();
    // WITH: :[[@LINE+1]]:5: warning: tensor with autograd history accumulated into 'total'
    total += loss;
    ping(opt, loss, 3);
  }
}
