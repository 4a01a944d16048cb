// The same patterns against Debian's real LibTorch headers.
// REQUIRES: libtorch
// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- %libtorch_flags

#include <torch/torch.h>

void results(torch::nn::Linear &model, torch::Tensor x) {
  auto h = model(x);
  auto a = torch::sigmoid(h);
  a.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'mul_' changes a tensor that 'at::sigmoid' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'at::sigmoid' saves its result for the backward pass here
  auto b = h.tanh();
  b += 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place '+=' changes a tensor that 'tanh' saved
  auto c = h.relu();
  c[0] = 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: in-place '=' changes a tensor that 'relu' saved
  auto d = torch::softmax(h, 1);
  d.index_put_({0}, 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'index_put_' changes a tensor that 'at::softmax' saved
  auto e = h.exp();
  torch::relu_(e);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: in-place 'at::relu_' changes a tensor that 'exp' saved
  auto f = h.sigmoid();
  f.detach().zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: in-place 'zero_' changes a tensor that 'sigmoid' saved
  (a + b + c + d + e + f).sum().backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:33: note: the backward pass that needs it
}

void operands(torch::nn::Linear &model, torch::Tensor x) {
  auto w = model(x);
  auto data = torch::ones({2, 3});
  auto y = data * w;
  data.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: in-place 'add_' changes a tensor that '*' saved
  auto m = torch::ones({3, 2});
  auto z = torch::matmul(w, m);
  m.copy_(torch::zeros({3, 2}));
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'copy_' changes a tensor that 'at::matmul' saved
  auto l = torch::log(w);
  w.clamp_(0.1, 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: in-place 'clamp_' changes a tensor that 'at::log' saved
  (y.sum() + z.sum() + l.sum()).backward();
}

struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor x) {
    auto gate = torch::sigmoid(fc(x));
    gate.mul_(2.0);
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: in-place 'mul_' changes a tensor that 'at::sigmoid' saved
    // CHECK-MESSAGES: :[[@LINE-3]]:17: note: 'at::sigmoid' saves its result for the backward pass here
    return gate * x;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the result of forward() is backpropagated by its caller
  }
};
TORCH_MODULE(Net);

// Silent: out of place, a clone, unsaved inputs, scalars, no history, a
// no-grad guard, after the backward, re-assigned, not in the pass's graph,
// parameter updates.
void negatives(Net &net, torch::nn::Linear &model, torch::optim::SGD &opt,
               torch::Tensor x) {
  auto h = model(x);
  auto y = torch::sigmoid(h) * 2;
  auto c = torch::sigmoid(h).clone();
  c.mul_(2);
  auto r = h.relu();
  auto s = h * 2;
  h.add_(1);
  auto plain = torch::sigmoid(x);
  plain.mul_(2);
  {
    torch::NoGradGuard guard;
    auto g = torch::sigmoid(h);
    g.mul_(2);
  }
  auto probs = torch::softmax(y, 1);
  probs.mul_(100);
  auto loss = (y + c + r + s).sum() + net(x).sum();
  loss.backward();
  r.detach().mul_(0);
  {
    torch::NoGradGuard guard;
    for (auto &p : model->parameters())
      p.sub_(0.1 * p.grad());
  }
  opt.step();
}

// A loss helper that saves its residual (pow) and then folds it in place: an
// error only because the caller hands it a prediction that requires grad.
torch::Tensor huber(const torch::Tensor &pred, const torch::Tensor &target,
                    double delta) {
  auto diff = pred - target;
  auto quad = 0.5 * diff.pow(2);
  diff.abs_();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: in-place 'abs_' changes a tensor that 'pow' saved for the backward pass
  // CHECK-MESSAGES: :[[@LINE-3]]:26: note: 'pow' saves its input for the backward pass here
  auto lin = delta * (diff - 0.5 * delta);
  return torch::where(diff < delta, quad, lin).mean();
}

void trainHuber(torch::nn::Linear &model, torch::Tensor x, torch::Tensor y) {
  auto loss = huber(model(x), y, 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: note: 'huber' is called here with a tensor that requires grad
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: note: the backward pass that needs it
  // Data and targets only: nothing was saved.
  huber(x, y, 1.0).backward();
}
