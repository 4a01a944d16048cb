// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

// In-place writes inside a helper, into a tensor an operation saved only
// because the helper's argument requires grad. The helper alone cannot tell
// (its parameters may or may not require grad); a call with an argument that
// does, whose result is backpropagated, makes the write an error.

#include <torch/torch.h>

// --- Positive: a loss helper (Huber) that saves its residual, then folds it -

torch::Tensor huber(const torch::Tensor &pred, const torch::Tensor &target,
                    double delta) {
  auto diff = pred - target;
  auto quad = diff.pow(2) * 0.5;
  diff.abs_();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: in-place 'abs_' changes a tensor that 'pow' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:20: note: 'pow' saves its input for the backward pass here
  auto lin = (diff - 0.5 * delta) * delta;
  return torch::where(diff < delta, quad, lin).mean();
}

void trainHuber(torch::nn::Linear &model, torch::Tensor x, torch::Tensor y) {
  for (int step = 0; step < 10; ++step) {
    auto loss = huber(model(x), y, 1.0);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: note: 'huber' is called here with a tensor that requires grad
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: note: the backward pass that needs it
  }
}

// --- Positive: exp's saved result, an element zeroed, inside a module -------

torch::Tensor pool(const torch::Tensor &tokens, const torch::Tensor &scores,
                   int64_t pad) {
  auto w = torch::exp(scores);
  w[pad] = 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: in-place '=' changes a tensor that 'at::exp' saved for the backward pass
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'at::exp' saves its result for the backward pass here
  return (w / w.sum() * tokens).sum();
}

struct Pooler : torch::nn::Module {
  torch::nn::Linear score{nullptr};
  torch::Tensor forward(const torch::Tensor &tokens) {
    return pool(tokens, score(tokens), 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: note: 'pool' is called here with a tensor that requires grad
    // CHECK-MESSAGES: :[[@LINE-2]]:5: note: the result of forward() is backpropagated by its caller
  }
};

// --- Positive: a lambda helper, a tanh result clamped in place --------------

void lambdaHelper(torch::nn::Linear &model, torch::Tensor x) {
  auto squash = [](const torch::Tensor &h) {
    auto t = torch::tanh(h);
    t.clamp_(-0.5, 0.5);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: in-place 'clamp_' changes a tensor that 'at::tanh' saved for the backward pass
    // CHECK-MESSAGES: :[[@LINE-3]]:14: note: 'at::tanh' saves its result for the backward pass here
    return t * 2;
  };
  auto out = squash(model(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:14: note: 'squash' is called here with a tensor that requires grad
  out.sum().backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: note: the backward pass that needs it
}

// --- Positive: a method of the caller's class, the tensor's own log --------

struct Criterion {
  torch::Tensor operator()(torch::Tensor p) const {
    auto l = torch::log(p);
    p.mul_(0.5);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: in-place 'mul_' changes a tensor that 'at::log' saved for the backward pass
    // CHECK-MESSAGES: :[[@LINE-3]]:14: note: 'at::log' saves its input for the backward pass here
    return l.mean();
  }
};

void methodHelper(torch::nn::Linear &model, torch::Tensor x) {
  Criterion criterion;
  auto p = torch::sigmoid(model(x));
  auto loss = criterion(p);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: note: 'criterion' is called here with a tensor that requires grad
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: note: the backward pass that needs it
}

// --- Negative twins ---------------------------------------------------------

torch::Tensor huberQuiet(const torch::Tensor &pred, const torch::Tensor &target) {
  auto diff = pred - target;
  auto quad = diff.pow(2);
  diff.abs_();
  return (quad + diff).mean();
}

// Handed tensors that require no grad (data, targets): pow saved nothing.
void noGradArguments(torch::Tensor x, torch::Tensor y) {
  auto loss = huberQuiet(x, y);
  loss.backward();
}

// Under a guard: nothing is saved.
void underGuard(torch::nn::Linear &model, torch::Tensor x, torch::Tensor y) {
  torch::NoGradGuard guard;
  auto loss = huberQuiet(model(x), y);
  loss.backward();
}

// The result is only read out, never backpropagated.
float metricOnly(torch::nn::Linear &model, torch::Tensor x, torch::Tensor y) {
  return huberQuiet(model(x), y).item<float>();
}

// The write happens before the operation that saves.
torch::Tensor writeFirst(const torch::Tensor &pred, const torch::Tensor &target) {
  auto diff = pred - target;
  diff.abs_();
  return diff.pow(2).mean();
}

void writeFirstCaller(torch::nn::Linear &model, torch::Tensor x, torch::Tensor y) {
  writeFirst(model(x), y).backward();
}

// mul saves each operand for the other's gradient: `scale` is saved only if
// `x` requires grad. Here only `x` does, so writing into `x` breaks nothing
// that mul needs (a write into a non-leaf is otherwise allowed).
torch::Tensor scaleThenShift(torch::Tensor x, const torch::Tensor &scale) {
  auto y = x * scale;
  x.add_(1);
  return y;
}

void scaleCaller(torch::nn::Linear &model, torch::Tensor in, torch::Tensor s) {
  scaleThenShift(model(in), s).sum().backward();
}

// The saved tensor is not what the helper returns: its result's backward
// pass does not need it.
torch::Tensor returnsOther(const torch::Tensor &h) {
  auto e = torch::exp(h);
  e.zero_();
  return h * 2;
}

void returnsOtherCaller(torch::nn::Linear &model, torch::Tensor x) {
  returnsOther(model(x)).sum().backward();
}
