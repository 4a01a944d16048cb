// A tensor kept in a field of a local struct (`out.probs = torch::softmax(...)`)
// is the tensor the operation saved: an in-place write through the field
// changes it.
// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct PolicyOut {
  torch::Tensor logits;
  torch::Tensor probs;
};

// --- Positive ------------------------------------------------------------------

void clampedThroughField(torch::nn::Linear policy, torch::Tensor s, torch::Tensor a,
                         torch::Tensor adv) {
  PolicyOut out;
  out.logits = policy(s);
  out.probs = torch::softmax(out.logits, -1);
  out.probs.clamp_(1e-6, 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: in-place 'clamp_' changes a tensor that 'at::softmax' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: 'at::softmax' saves its result for the backward pass here
  // CHECK-MESSAGES: :[[@LINE+2]]:26: note: the backward pass that needs it
  auto logp = torch::log(out.probs.gather(1, a.unsqueeze(1)));
  (-(logp * adv).mean()).backward();
}

// --- Negative twins ---------------------------------------------------------------

void clampedOutOfPlace(torch::nn::Linear policy, torch::Tensor s, torch::Tensor a,
                       torch::Tensor adv) {
  PolicyOut out;
  out.logits = policy(s);
  out.probs = torch::softmax(out.logits, -1).clamp(1e-6, 1.0);
  auto logp = torch::log(out.probs.gather(1, a.unsqueeze(1)));
  (-(logp * adv).mean()).backward();
}

// The logits (a linear layer's output, saved by nobody) written in place.
void logitsScaled(torch::nn::Linear policy, torch::Tensor s, torch::Tensor y) {
  PolicyOut out;
  out.logits = policy(s);
  out.logits.clamp_min_(-10.0);
  torch::nn::functional::cross_entropy(out.logits, y).backward();
}
