// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <map>
#include <string>
#include <utility>
#include <vector>

// An in-place operation saves what its out-of-place form saves of its result
// (`x.relu_()` saves x as it leaves it, like `relu(x)`), and a helper that
// returns a tensor written after it was saved throws when a caller
// backpropagates the result (docs/checks/torch-inplace-on-saved-tensor.md).

// --- Positive --------------------------------------------------------------

void twice_in_place(torch::nn::Conv2d &conv, torch::nn::BatchNorm2d &bn, const torch::Tensor &input) {
  auto x = bn(conv(input));
  x.relu_();
  x.relu_();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'relu_' changes a tensor that 'relu_' saved for the backward pass
  // CHECK-MESSAGES: :[[@LINE-3]]:5: note: 'relu_' saves its result for the backward pass here
  // CHECK-MESSAGES: :[[@LINE+1]]:21: note: the backward pass that needs it
  x.flatten().sum().backward();
}

torch::Tensor stem(torch::nn::Conv2d &conv, const torch::Tensor &input) {
  auto x = torch::sigmoid(conv(input));
  x.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'mul_' changes a tensor that 'at::sigmoid' saved for the backward pass
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'at::sigmoid' saves its result for the backward pass here
  return x.sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the result is returned here to a caller that backpropagates it
}

void train_stem(torch::nn::Conv2d &conv, torch::optim::SGD &opt) {
  auto loss = stem(conv, torch::randn({1, 3, 8, 8}));
  loss.backward();
  opt.step();
}

// An element of a list of saved results (a feature pyramid's top-down pass).
torch::Tensor top_down(torch::nn::Conv2d &lateral, const std::vector<torch::Tensor> &feats) {
  std::vector<torch::Tensor> laterals;
  for (const auto &f : feats)
    laterals.push_back(torch::relu(lateral(f)));
  for (size_t i = laterals.size() - 1; i > 0; --i)
    laterals[i - 1] += laterals[i];
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: in-place '+=' changes a tensor that 'at::relu' saved for the backward pass
  // CHECK-MESSAGES: :[[@LINE-4]]:24: note: 'at::relu' saves its result for the backward pass here
  return laterals[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the result is returned here to a caller that backpropagates it
}

void train_top_down(torch::nn::Conv2d &lateral, const std::vector<torch::Tensor> &feats) {
  top_down(lateral, feats).sum().backward();
}

// A map or pair built from a saved result holds that very tensor.
void map_of_saved(torch::nn::Linear &model, torch::Tensor x) {
  std::map<std::string, torch::Tensor> out{{"probs", torch::sigmoid(model(x))}};
  out.at("probs").mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: in-place 'mul_' changes a tensor that 'at::sigmoid' saved for the backward pass
  // CHECK-MESSAGES: :[[@LINE-3]]:54: note: 'at::sigmoid' saves its result for the backward pass here
  out.at("probs").sum().backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:25: note: the backward pass that needs it
}

void pair_of_saved(torch::nn::Linear &model, torch::Tensor x) {
  auto p = std::make_pair(torch::tanh(model(x)), 1.0);
  p.first += 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: in-place '+=' changes a tensor that 'at::tanh' saved for the backward pass
  // CHECK-MESSAGES: :[[@LINE-3]]:27: note: 'at::tanh' saves its result for the backward pass here
  p.first.sum().backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: note: the backward pass that needs it
}

// --- Negative --------------------------------------------------------------

// A map of fresh tensors beside a saved result kept elsewhere.
void map_of_fresh(torch::nn::Linear &model, torch::Tensor x) {
  auto y = torch::sigmoid(model(x));
  std::map<std::string, torch::Tensor> stats{{"count", torch::zeros({1})}};
  stats.at("count").add_(1);
  y.sum().backward();
}

// A list of buffers nothing saved, written in place.
void buffers(torch::nn::Conv2d &conv, const torch::Tensor &input) {
  std::vector<torch::Tensor> acc{torch::zeros({1}), torch::zeros({1})};
  auto y = conv(input);
  acc[0] += 1;
  (y.sum() + acc[0]).backward();
}

// One in-place activation, then out-of-place operations only.
void once_in_place(torch::nn::Conv2d &conv, const torch::Tensor &input) {
  auto x = conv(input);
  x.relu_();
  auto y = x * 2;
  y.sum().backward();
}

// The helper's result is never backpropagated in this file (inference).
torch::Tensor features(torch::nn::Conv2d &conv, const torch::Tensor &input) {
  auto x = torch::sigmoid(conv(input));
  x.mul_(2);
  return x;
}

float score(torch::nn::Conv2d &conv) {
  torch::NoGradGuard no_grad;
  return features(conv, torch::randn({1, 3, 8, 8})).mean().item<float>();
}

// The output is written before the in-place activation saves it.
void written_before(torch::nn::Conv2d &conv, const torch::Tensor &input) {
  auto x = conv(input) * 1;
  x.add_(1);
  x.relu_();
  x.sum().backward();
}
