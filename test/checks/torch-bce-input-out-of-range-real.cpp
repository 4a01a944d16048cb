// The same patterns against Debian's real LibTorch headers; the fixed file
// must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-bce-input-out-of-range %t -- -- %libtorch_flags

#include <torch/torch.h>

namespace F = torch::nn::functional;

void positives(torch::nn::Linear &fc, const torch::Tensor &x, const torch::Tensor &y) {
  auto loss = torch::binary_cross_entropy(fc(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: binary_cross_entropy is given raw scores of a layer (any real value)
  // CHECK-FIXES: auto loss = torch::binary_cross_entropy_with_logits(fc(x), y);
  auto loss2 = F::binary_cross_entropy(fc->forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: binary_cross_entropy is given raw scores of a layer (any real value)
  // CHECK-FIXES: auto loss2 = F::binary_cross_entropy_with_logits(fc->forward(x), y);
  torch::nn::BCELoss criterion;
  auto loss3 = criterion(torch::tanh(fc(x)), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: binary_cross_entropy is given a value of either sign
  auto labels = torch::randint(0, 2, {8, 1}).to(torch::kFloat) * 2 - 1;
  auto loss4 = torch::binary_cross_entropy(torch::sigmoid(fc(x)), labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:67: warning: binary_cross_entropy's target can be -1, outside [0, 1]
}

void negatives(torch::nn::Linear &fc, const torch::Tensor &x, const torch::Tensor &y) {
  auto loss = torch::binary_cross_entropy(torch::sigmoid(fc(x)), y);
  auto loss2 = F::binary_cross_entropy_with_logits(fc(x), y);
  torch::nn::BCELoss criterion;
  auto loss3 = criterion(fc(x).sigmoid(), torch::randint(0, 2, {8, 1}).to(torch::kFloat));
}
