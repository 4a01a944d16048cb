// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Positive: the saved result of sigmoid, tanh, exp, relu, softmax ----------

void sigmoidResult(torch::nn::Linear &model, torch::Tensor x) {
  auto y = torch::sigmoid(model(x));
  y.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'mul_' changes a tensor that 'at::sigmoid' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'at::sigmoid' saves its result for the backward pass here
  y.sum().backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:11: note: the backward pass that needs it
}

void methodForms(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto a = h.tanh();
  a += 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place '+=' changes a tensor that 'tanh' saved for the backward pass
  auto b = h.exp();
  b.clamp_(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'clamp_' changes a tensor that 'exp' saved
  auto c = h.relu();
  c[0] = 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: in-place '=' changes a tensor that 'relu' saved
  auto d = h.softmax(1);
  d.fill_(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'fill_' changes a tensor that 'softmax' saved
  auto e = h.log_softmax(1);
  torch::relu_(e);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place 'at::relu_' changes a tensor that 'log_softmax' saved
  auto f = h.sqrt();
  f.copy_(h);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'copy_' changes a tensor that 'sqrt' saved
  auto g = h.sigmoid();
  g.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'zero_' changes a tensor that 'sigmoid' saved
  (a + b + c + d + e + f + g).sum().backward();
}

// --- Positive: the saved operands of mul, mm, matmul, log ---------------------

void savedOperand(torch::nn::Linear &model, torch::Tensor x) {
  auto w = model(x);
  auto data = torch::ones({3});
  auto y = data * w; // mul saves `data` for w's gradient
  data.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: in-place 'add_' changes a tensor that '*' saved for the backward pass
  // CHECK-MESSAGES: :[[@LINE-3]]:17: note: '*' saves its operands for the backward pass here
  y.sum().backward();
}

void savedInput(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto y = h.log(); // log saves its input
  h.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'mul_' changes a tensor that 'log' saved
  // CHECK-MESSAGES: :[[@LINE-3]]:14: note: 'log' saves its input for the backward pass here
  auto m = torch::ones({3, 3});
  auto z = m.mm(h);
  m.sigmoid_();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'sigmoid_' changes a tensor that 'mm' saved
  (y.sum() + z.sum()).backward();
}

// The saved tensor reached through a reference, a copy of the handle, a view
// and detach() (which shares the version counter).
void aliases(torch::nn::Linear &model, torch::Tensor x) {
  auto y = torch::sigmoid(model(x));
  auto &alias = y;
  alias.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: in-place 'mul_' changes a tensor that 'at::sigmoid' saved
  auto z = model(x).exp();
  auto handle = z;
  handle.exp_();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: in-place 'exp_' changes a tensor that 'exp' saved
  auto t = model(x).tanh();
  t.detach().zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: in-place 'zero_' changes a tensor that 'tanh' saved
  t[1][2] = 1.0;
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: in-place '=' changes a tensor that 'tanh' saved
  (y + z + t).sum().backward();
}

// In a module's forward(): the caller backpropagates the result.
struct Net : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor forward(torch::Tensor x) {
    auto h = fc(x);
    h = torch::sigmoid(h);
    h *= 2;
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: in-place '*=' changes a tensor that 'at::sigmoid' saved
    // CHECK-MESSAGES: :[[@LINE-3]]:9: note: 'at::sigmoid' saves its result for the backward pass here
    return h;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the result of forward() is backpropagated by its caller
  }
};

// In a training loop, and in a lambda.
void loop(torch::nn::Linear &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    auto p = model(x).sigmoid();
    p.clamp_(0.01, 0.99);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: in-place 'clamp_' changes a tensor that 'sigmoid' saved
    auto loss = p.log().mean();
    loss.backward();
    opt.step();
  }
  auto step = [&](torch::Tensor in) {
    auto r = model(in).relu();
    r.add_(1);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: in-place 'add_' changes a tensor that 'relu' saved
    r.sum().backward();
  };
  step(x);
}

// A template: checked once, in its written form.
template <typename T> void scaled(torch::nn::Linear &model, torch::Tensor x, T k) {
  auto y = model(x).exp();
  y.mul_(k);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'mul_' changes a tensor that 'exp' saved
  y.sum().backward();
}
template void scaled<double>(torch::nn::Linear &, torch::Tensor, double);
template void scaled<int>(torch::nn::Linear &, torch::Tensor, int);

// A macro.
#define HALVE(t) (t).mul_(0.5)
void macro(torch::nn::Linear &model, torch::Tensor x) {
  auto y = model(x).sigmoid();
  HALVE(y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place 'mul_' changes a tensor that 'sigmoid' saved
  y.sum().backward();
}

// --- Negative ------------------------------------------------------------------

// The fixed twin: out of place, or into a clone.
void outOfPlace(torch::nn::Linear &model, torch::Tensor x) {
  auto y = torch::sigmoid(model(x));
  auto z = y * 2;
  auto c = y.clone();
  c.mul_(2);
  (z + c).sum().backward();
}

// relu saves its result, not its input; add saves nothing.
void unsavedTensors(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto r = h.relu();
  h.add_(1);
  auto s = h + 1;
  s.mul_(3);
  auto u = h.sum();
  u.mul_(2);
  (r.sum() + s.sum() + u).backward();
}

// mul by a scalar saves no tensor; mul saves an operand only for the other
// operand's gradient.
void scalarsAndConstants(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto y = h * 2;
  auto m = h.mul(3);
  auto constant = torch::ones({3});
  auto z = h * constant; // saves constant only if h needs no grad: it does
  h.mul_(2);
  (y + m + z).sum().backward();
}

// Plain data: no autograd history, nothing saved.
void plainData(torch::Tensor x) {
  auto y = torch::sigmoid(x);
  y.mul_(2);
  auto a = torch::ones({3});
  auto b = a * torch::ones({3});
  a.add_(1);
  (y + b).sum().backward();
}

// Saved under a no-grad guard: nothing recorded.
void noGrad(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  {
    torch::NoGradGuard guard;
    auto y = torch::sigmoid(h);
    y.mul_(2);
  }
  h.sum().backward();
}

// After the backward pass that needed it.
void afterBackward(torch::nn::Linear &model, torch::Tensor x) {
  auto y = model(x).sigmoid();
  y.sum().backward();
  y.mul_(2);
}

// Re-assigned in between: a new value, not the saved one.
void reassigned(torch::nn::Linear &model, torch::Tensor x) {
  auto y = model(x).sigmoid();
  auto loss = y.sum();
  y = torch::zeros({3});
  y.mul_(2);
  auto z = model(x).exp();
  z = z * 2;
  z.add_(1);
  (loss + z.sum()).backward();
}

// No backward pass needs it: the saved tensor is not in the loss's graph, or
// there is no backward pass at all.
void unrelatedGraph(torch::nn::Linear &model, torch::Tensor x) {
  auto logits = model(x);
  auto probs = torch::softmax(logits, 1);
  probs.mul_(100);
  logits.sum().backward();
}
void inference(torch::nn::Linear &model, torch::Tensor x) {
  auto y = model(x).sigmoid();
  y.mul_(2);
}

// A write on a path that skips the backward pass: the next iteration saves a
// new tensor, and its backward pass does not need the one written into.
void skipped(torch::nn::Linear &model, torch::Tensor x, bool c) {
  for (int i = 0; i < 3; ++i) {
    auto y = model(x).sigmoid();
    if (c) {
      y.mul_(2);
      continue;
    }
    y.sum().backward();
  }
}

// A user function of the same name is not LibTorch's.
namespace user {
torch::Tensor sigmoid(const torch::Tensor &t) { return t; }
}
void userFunction(torch::nn::Linear &model, torch::Tensor x) {
  auto y = user::sigmoid(model(x));
  y.mul_(2);
  y.sum().backward();
}

// retain_graph: the pass does not consume the graph; the write after it is
// caught at the second pass.
void retained(torch::nn::Linear &model, torch::Tensor x) {
  auto y = model(x).sigmoid();
  auto loss = y.sum();
  loss.backward({}, true);
  y.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'mul_' changes a tensor that 'sigmoid' saved
  loss.backward();
}

// NOLINT.
void suppressed(torch::nn::Linear &model, torch::Tensor x) {
  auto y = model(x).sigmoid();
  y.mul_(2); // NOLINT(torch-inplace-on-saved-tensor)
  y.sum().backward();
}
