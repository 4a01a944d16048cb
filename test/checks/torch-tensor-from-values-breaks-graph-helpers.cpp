// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

// Values read out in one function and rebuilt or used in another: a helper
// that returns the rebuilt tensor is summarised (FunctionSummary), and the
// diagnostic sits at the construction, with notes at the read and the use.

#include <torch/torch.h>

// --- Positive ----------------------------------------------------------------

torch::Tensor rebuild(const torch::Tensor &p) {
  std::vector<float> values;
  for (int i = 0; i < 3; ++i)
    values.push_back(p[i].item<float>());
  return torch::tensor(values);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-3]]:27: note: values read out of a tensor with autograd history here
}
void train(torch::nn::Linear &model, const torch::Tensor &x) {
  auto out = model->forward(x);
  auto loss = torch::mse_loss(rebuild(out), x);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: note: the new tensor is the prediction of this loss
  loss.backward();
}

// A loss helper that copies probabilities out, rebuilds them as a new leaf
// and returns -log of it: backward() runs, no gradient reaches the model.
torch::Tensor nll_of(const torch::Tensor &probs) {
  std::vector<float> host(3);
  for (int i = 0; i < 3; ++i)
    host[i] = probs[i].item<float>();
  auto out = torch::from_blob(host.data(), {3}).clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: torch::from_blob builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-3]]:24: note: values read out of a tensor with autograd history here
  out.requires_grad_(true);
  return -torch::log(out).mean();
}
void train_nll(torch::nn::Linear &model, const torch::Tensor &x) {
  auto probs = torch::softmax(model->forward(x), 1);
  auto loss = nll_of(probs);
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the new tensor is backpropagated here, with no other autograd history
}

// --- Negative ----------------------------------------------------------------

// The same helper on a tensor without history: nothing is cut.
void from_data(const torch::Tensor &x) {
  auto target = rebuild(x.detach());
  auto w = torch::ones({3}).requires_grad_(true);
  torch::mse_loss(w * target, x).backward();
}

// A helper that reads values for logging and returns the tensor itself.
torch::Tensor logged(const torch::Tensor &t) {
  float v = t.sum().item<float>();
  (void)v;
  return t;
}
void train_logged(torch::nn::Linear &model, const torch::Tensor &x) {
  auto loss = torch::mse_loss(logged(model->forward(x)), x);
  loss.backward();
}
