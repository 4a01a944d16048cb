// What a module of the user's (or a helper) saves for the backward pass is
// known from its body: a forward that ends in sigmoid/exp/tanh returns a
// tensor its backward needs, and a forward that runs a layer with weights on
// its input keeps that input. Writing into either in place before the
// backward pass makes it throw.
// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct GateImpl : torch::nn::Module {
  torch::nn::Linear fc{4, 4};
  torch::Tensor forward(const torch::Tensor &x) {
    return torch::sigmoid(fc(x));
  }
};
TORCH_MODULE(Gate);

struct EncoderImpl : torch::nn::Module {
  torch::nn::Linear fc{4, 4};
  torch::Tensor forward(torch::Tensor x) { return torch::relu(fc(x)); }
};
TORCH_MODULE(Encoder);

torch::Tensor squash(torch::nn::Linear &fc, const torch::Tensor &x) {
  auto z = fc(x);
  return z.exp();
}

// --- Positive ------------------------------------------------------------------

void resultWritten(Gate gate, torch::optim::SGD &opt) {
  auto x = torch::randn({2, 4});
  auto y = gate(x);
  y.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'mul_' changes a tensor that 'gate' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'gate' saves its result for the backward pass here
  // CHECK-MESSAGES: :[[@LINE-24]]:12: note: inside it, 'at::sigmoid' saves the tensor
  // CHECK-MESSAGES: :[[@LINE+2]]:11: note: the backward pass that needs it
  opt.zero_grad();
  y.sum().backward();
  opt.step();
}

void inputWritten(Encoder enc) {
  auto x = torch::randn({2, 4});
  auto h = enc->forward(x);
  x.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'add_' changes a tensor that 'enc' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:17: note: 'enc' saves its input for the backward pass here
  // CHECK-MESSAGES: :[[@LINE-30]]:63: note: inside it, 'fc' saves the tensor
  // CHECK-MESSAGES: :[[@LINE+1]]:11: note: the backward pass that needs it
  h.sum().backward();
}

void helperResultWritten(torch::nn::Linear fc) {
  auto x = torch::randn({2, 4});
  auto p = squash(fc, x);
  p += 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place '+=' changes a tensor that 'squash' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'squash' saves its result for the backward pass here
  // CHECK-MESSAGES: :[[@LINE-35]]:12: note: inside it, 'exp' saves the tensor
  // CHECK-MESSAGES: :[[@LINE+1]]:12: note: the backward pass that needs it
  p.mean().backward();
}

// --- Negative ------------------------------------------------------------------

// Written out of place.
void outOfPlace(Gate gate) {
  auto y = gate(torch::randn({2, 4}));
  auto z = y * 2;
  z.sum().backward();
}

// Written after the backward pass.
void afterBackward(Gate gate) {
  auto y = gate(torch::randn({2, 4}));
  y.sum().backward();
  y.mul_(2);
}

// A module whose forward saves nothing of its input (a multiplication by a
// constant needs no operand for its gradient).
struct ScaleImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x * 2; }
};
TORCH_MODULE(Scale);

void scaleInputWritten(Scale scale, torch::nn::Linear fc) {
  auto x = torch::randn({2, 4});
  auto y = fc(scale(x));
  x.add_(1);
  y.sum().backward();
}

// Evaluation under no_grad saves nothing.
void evaluation(Gate gate) {
  torch::NoGradGuard guard;
  auto y = gate(torch::randn({2, 4}));
  y.mul_(2);
}

// The policy's probabilities (softmax saved them) clamped in place, then a
// gathered log-probability backpropagated: gather keeps the graph.
void gatheredLogProb(torch::nn::Linear policy, torch::Tensor s, torch::Tensor a,
                     torch::Tensor adv) {
  auto probs = torch::softmax(policy(s), -1);
  probs.clamp_(1e-6, 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: in-place 'clamp_' changes a tensor that 'at::softmax' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:16: note: 'at::softmax' saves its result for the backward pass here
  // CHECK-MESSAGES: :[[@LINE+3]]:8: note: the backward pass that needs it
  auto logp = torch::log(probs.gather(1, a.unsqueeze(1)));
  auto loss = -(logp * adv).mean();
  loss.backward();
}

// --- Helpers that write into what they are handed ------------------------------

void normalizeInPlace(torch::Tensor &t) { t.div_(t.norm() + 1e-6); }

void normalizedHelper(torch::nn::Linear fc, torch::Tensor x) {
  auto e = torch::tanh(fc(x));
  normalizeInPlace(e);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place 'normalizeInPlace' changes a tensor that 'at::tanh' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'at::tanh' saves its result for the backward pass here
  // CHECK-MESSAGES: :[[@LINE+1]]:11: note: the backward pass that needs it
  e.sum().backward();
}

void clippingLambda(torch::nn::Linear fc, torch::Tensor x) {
  auto clip = [](torch::Tensor t) { t.clamp_(0.0, 10.0); };
  auto rate = torch::exp(fc(x));
  clip(rate);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place 'clip' changes a tensor that 'at::exp' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: 'at::exp' saves its result for the backward pass here
  // CHECK-MESSAGES: :[[@LINE+1]]:28: note: the backward pass that needs it
  (rate - x).pow(2).mean().backward();
}

// Negative: the helper writes into a tensor nobody saved.
void normalizedInput(torch::nn::Linear fc, torch::Tensor x) {
  auto input = torch::randn({2, 4});
  normalizeInPlace(input);
  fc(input).sum().backward();
}

// Negative: the helper only reads.
void readsOnly(const torch::Tensor &t) { (void)t.norm(); }

void readingHelper(torch::nn::Linear fc, torch::Tensor x) {
  auto e = torch::tanh(fc(x));
  readsOnly(e);
  e.sum().backward();
}

// --- Helpers that write in place and hand the same tensor back -----------------

torch::Tensor clampInPlace(torch::Tensor t) {
  t.clamp_(0.0, 10.0);
  return t;
}

void returnedClippedLambda(torch::nn::Linear fc, torch::Tensor x) {
  auto clip = [](torch::Tensor t) { t.clamp_(0.0, 10.0); return t; };
  auto rate = torch::exp(fc(x));
  auto clipped = clip(rate);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: in-place 'clip' changes a tensor that 'at::exp' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: 'at::exp' saves its result for the backward pass here
  // CHECK-MESSAGES: :[[@LINE+1]]:31: note: the backward pass that needs it
  (clipped - x).pow(2).mean().backward();
}

void returnedClippedHelper(torch::nn::Linear fc, torch::Tensor x) {
  auto rate = torch::sigmoid(fc(x));
  auto clipped = clampInPlace(rate);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: in-place 'clampInPlace' changes a tensor that 'at::sigmoid' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: 'at::sigmoid' saves its result for the backward pass here
  // CHECK-MESSAGES: :[[@LINE+1]]:17: note: the backward pass that needs it
  clipped.sum().backward();
}

// Negative: the helper returns a clone it wrote into.
torch::Tensor clampCopy(const torch::Tensor &t) {
  auto c = t.clone();
  c.clamp_(0.0, 10.0);
  return c;
}
void returnedCopy(torch::nn::Linear fc, torch::Tensor x) {
  auto rate = torch::exp(fc(x));
  auto clipped = clampCopy(rate);
  (clipped - x).pow(2).mean().backward();
}

// Negative: the tensor handed back was saved by nobody.
void returnedUnsaved(torch::nn::Linear fc, torch::Tensor x) {
  auto shifted = fc(x) + 1.0;
  auto clipped = clampInPlace(shifted);
  clipped.sum().backward();
}
