// RUN: %check_torch_tidy %s torch-bce-input-out-of-range %t -- -- -isystem %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

struct HeadImpl : torch::nn::Module {
  HeadImpl() : fc(register_module("fc", torch::nn::Linear(16, 1))) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Head);

struct ProbHeadImpl : torch::nn::Module {
  ProbHeadImpl() : fc(register_module("fc", torch::nn::Linear(16, 1))) {}
  torch::Tensor forward(const torch::Tensor &x) { return torch::sigmoid(fc(x)); }
  torch::nn::Linear fc;
};
TORCH_MODULE(ProbHead);

// --- Positive --------------------------------------------------------------

// Raw scores of a Linear layer: the _with_logits form is the fix.
void raw_scores(torch::nn::Linear &fc, const torch::Tensor &x, const torch::Tensor &y) {
  auto loss = torch::binary_cross_entropy(fc(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: binary_cross_entropy is given raw scores of a layer (any real value) where it needs probabilities in [0, 1]; on the GPU this is 'device-side assert triggered', on the CPU 'all elements of input should be between 0 and 1'; use binary_cross_entropy_with_logits on the scores [torch-bce-input-out-of-range]
  // CHECK-MESSAGES: :[[@LINE-2]]:43: note: the input is computed here
  // CHECK-FIXES: auto loss = torch::binary_cross_entropy_with_logits(fc(x), y);
}

// A user module whose forward does not end in sigmoid, through a variable,
// with the functional form and the module.
void user_head(Head &head, const torch::Tensor &x, const torch::Tensor &y) {
  auto scores = head(x);
  auto loss = F::binary_cross_entropy(scores, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: binary_cross_entropy is given raw scores of a layer
  // CHECK-FIXES: auto loss = F::binary_cross_entropy_with_logits(scores, y);
  torch::nn::BCELoss criterion;
  auto loss2 = criterion(head->forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: binary_cross_entropy is given raw scores of a layer
}

// tanh output and a difference: no fix-it (apply sigmoid first).
void signed_inputs(const torch::Tensor &a, const torch::Tensor &b, const torch::Tensor &y) {
  auto loss = torch::binary_cross_entropy(torch::tanh(a), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: binary_cross_entropy is given a value of either sign (tanh, a difference, a normal draw) where it needs probabilities in [0, 1]; {{.*}}; apply sigmoid first
  auto p = torch::sigmoid(a) - torch::sigmoid(b);
  auto loss2 = torch::binary_cross_entropy(p, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: binary_cross_entropy is given a value of either sign
}

// Labels in {-1, 1}.
void signed_labels(ProbHead &head, const torch::Tensor &x) {
  auto labels = torch::randint(0, 2, {8, 1}) * 2 - 1;
  auto loss = torch::binary_cross_entropy(head(x), labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:52: warning: binary_cross_entropy's target can be -1, outside [0, 1]; the loss is then not a cross entropy (it can go negative); map the labels to 0 and 1 [torch-bce-input-out-of-range]
}

// --- Negative --------------------------------------------------------------

// Sigmoid before the loss, in the module or at the call; softmax.
void probabilities(ProbHead &head, torch::nn::Linear &fc, const torch::Tensor &x,
                   const torch::Tensor &y) {
  auto loss = torch::binary_cross_entropy(head(x), y);
  auto loss2 = torch::binary_cross_entropy(torch::sigmoid(fc(x)), y);
  auto loss3 = torch::binary_cross_entropy(fc(x).sigmoid(), y);
  auto loss4 = torch::binary_cross_entropy(torch::softmax(fc(x), 1), y);
  torch::nn::Sequential net(torch::nn::Linear(16, 1), torch::nn::Sigmoid());
  auto loss5 = torch::binary_cross_entropy(net->forward(x), y);
}

// The logits form already; an input whose range is not visible.
void fine(torch::nn::Linear &fc, const torch::Tensor &x, const torch::Tensor &y,
          const torch::Tensor &p) {
  auto loss = torch::binary_cross_entropy_with_logits(fc(x), y);
  auto loss2 = torch::binary_cross_entropy(p, y);
}

// Labels in {0, 1}; labels mapped from {-1, 1} back to {0, 1}.
void labels_in_range(ProbHead &head, const torch::Tensor &x) {
  auto labels = torch::randint(0, 2, {8, 1});
  auto loss = torch::binary_cross_entropy(head(x), labels);
  auto signed_labels = torch::randint(0, 2, {8, 1}) * 2 - 1;
  auto mapped = (signed_labels + 1) * 0 + torch::where(signed_labels > 0, 1, 0);
  auto loss2 = torch::binary_cross_entropy(head(x), torch::where(signed_labels > 0, 1, 0));
}
