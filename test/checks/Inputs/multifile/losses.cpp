#include "project.h"

torch::Tensor compute_loss(torch::nn::Linear &model, const torch::Tensor &x,
                           const torch::Tensor &y) {
  return torch::mse_loss(model->forward(x), y);
}

torch::Tensor detached_loss(torch::nn::Linear &model, const torch::Tensor &x,
                            const torch::Tensor &y) {
  return torch::mse_loss(model->forward(x), y).detach();
}

torch::Tensor rebuild(const torch::Tensor &t) {
  return torch::tensor({t.item<float>()});
}

// Internal linkage: no other file can call it, so it has no summary.
static torch::Tensor scaled(const torch::Tensor &t) { return t * 2; }

torch::Tensor rebuild_twice(const torch::Tensor &t) { return rebuild(scaled(t)); }

torch::Tensor GateImpl::forward(torch::Tensor x) {
  return torch::sigmoid(fc(x));
}

float value_of(torch::nn::Linear &critic, const torch::Tensor &state) {
  return critic(state).item<float>();
}
