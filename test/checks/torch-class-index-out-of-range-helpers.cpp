// RUN: %check_torch_tidy %s torch-class-index-out-of-range %t -- -- -isystem %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

// A loss helper is evaluated at each call with the caller's arguments: the
// diagnostic goes to the argument that becomes the index, a note to the
// helper's loss.

torch::Tensor loss_of(torch::nn::Linear &head, const torch::Tensor &x,
                      const torch::Tensor &labels) {
  return F::cross_entropy(head(x), labels);
}

void one_based_through_helper(const torch::Tensor &x) {
  torch::nn::Linear head(16, 10);
  auto labels = torch::arange(1, 11);
  auto loss = loss_of(head, x, labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: class index target can be 10, outside [0, 10) (the out_features of 'head')
  // CHECK-MESSAGES: :[[@LINE-8]]:10: note: the helper uses it as the class index target here
}

// Taken by non-const reference by a helper that only reads it.
torch::Tensor loss_by_reference(torch::nn::Linear &head, const torch::Tensor &x,
                                torch::Tensor &labels) {
  return F::cross_entropy(head(x), labels);
}
torch::Tensor scores_of(torch::nn::Linear &head, const torch::Tensor &x, torch::Tensor &labels) {
  auto scores = head(x);
  return scores + labels.sum();
}
void read_by_reference(const torch::Tensor &x) {
  torch::nn::Linear head(16, 10);
  auto labels = torch::randint(0, 11, {8});
  auto s = scores_of(head, x, labels);
  auto loss = F::cross_entropy(head(x), labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: class index target can be 10, outside [0, 10)
}

// --- Negative --------------------------------------------------------------

// Labels in range at every call; a helper that relabels in place.
void in_range_through_helper(const torch::Tensor &x) {
  torch::nn::Linear head(16, 10);
  auto labels = torch::arange(0, 10);
  auto loss = loss_of(head, x, labels);
}
void shift_down(torch::Tensor &t) { t.sub_(torch::ones_like(t)); }
void relabelled_by_helper(const torch::Tensor &x) {
  torch::nn::Linear head(16, 10);
  auto labels = torch::arange(1, 11);
  shift_down(labels);
  auto loss = F::cross_entropy(head(x), labels);
}
