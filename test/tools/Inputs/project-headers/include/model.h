// The project's own header: an evaluation loop written inline.
#pragma once
#include <torch/torch.h>
#include <utility>
#include <vector>

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

inline double accuracy(torch::nn::Linear &model, const Batches &batches) {
  model->eval();
  double correct = 0;
  for (const auto &batch : batches) {
    auto out = model->forward(batch.first);
    correct += out.argmax(1).eq(batch.second).sum().item<double>();
  }
  return correct;
}
