// RUN: %check_torch_tidy %s torch-discarded-tensor-result %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <tuple>

// --- The shapes of the issue: a conversion, a view, a clamp, dropped ---------

void conversions(torch::Tensor x, torch::Device device) {
  x.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'to' is discarded, so the statement changes nothing; assign the result [torch-discarded-tensor-result]
  // CHECK-FIXES: {{^}}  x = x.to(device);{{$}}
  x.to(torch::kFloat);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'to' is discarded
  // CHECK-FIXES: {{^}}  x = x.to(torch::kFloat);{{$}}
  x.contiguous();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'contiguous' is discarded, so the statement changes nothing; assign the result
  // CHECK-FIXES: {{^}}  x = x.contiguous();{{$}}
  x.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'cpu' is discarded
  // CHECK-FIXES: {{^}}  x = x.cpu();{{$}}
}

void values(torch::Tensor x, torch::Tensor delta) {
  x.clamp(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'clamp' is discarded, so the statement changes nothing; use 'clamp_' to change the tensor in place, or assign the result [torch-discarded-tensor-result]
  // CHECK-FIXES: {{^}}  x.clamp_(0, 1);{{$}}
  x.add(delta);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'add' is discarded, so the statement changes nothing; use 'add_' to change
  // CHECK-FIXES: {{^}}  x.add_(delta);{{$}}
  x.masked_fill(delta, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'masked_fill' is discarded{{.*}}use 'masked_fill_'
  // CHECK-FIXES: {{^}}  x.masked_fill_(delta, 0);{{$}}
}

// detach_ and squeeze_ exist, but change the tensor object every handle shares
// (and detach_ refuses views): the fix-it assigns.
void metadata(torch::Tensor x) {
  x.detach();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'detach' is discarded, so the statement changes nothing; assign the result
  // CHECK-FIXES: {{^}}  x = x.detach();{{$}}
  x.squeeze();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'squeeze' is discarded, so the statement changes nothing; assign the result
  // CHECK-FIXES: {{^}}  x = x.squeeze();{{$}}
  x.unsqueeze(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'unsqueeze'
  // CHECK-FIXES: {{^}}  x = x.unsqueeze(0);{{$}}
}

// --- Function spellings ---------------------------------------------------------

void functions(torch::Tensor x, torch::Tensor y, const torch::Tensor &target) {
  torch::relu(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of out-of-place 'relu' is discarded, so the statement changes nothing; use 'relu_' to change the tensor in place, or assign the result
  // CHECK-FIXES: {{^}}  torch::relu_(x);{{$}}
  at::clamp(x, 0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of out-of-place 'clamp' is discarded{{.*}}use 'clamp_'
  // CHECK-FIXES: {{^}}  at::clamp_(x, 0, 1);{{$}}
  // No at::add_: the message says so, and there is no fix-it to guess.
  torch::add(x, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of out-of-place 'add' is discarded, so the statement changes nothing; assign the result
  torch::squeeze(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of out-of-place 'squeeze' is discarded
  // CHECK-FIXES: {{^}}  x = torch::squeeze(x);{{$}}
  torch::nn::functional::relu(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: result of out-of-place 'relu' is discarded, so the statement changes nothing; assign the result
  torch::mse_loss(x, target);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of out-of-place 'mse_loss' is discarded
}

// --- Results that are not the tensor itself: no fix-it ---------------------------

void reductions(torch::Tensor x) {
  x.sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'sum' is discarded, so the statement changes nothing; assign the result
  x.max(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'max' is discarded
  x.mm(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'mm' is discarded
}

// A const tensor: neither the in-place form nor an assignment is offered.
void constant(const torch::Tensor &x, torch::Device device) {
  x.clamp(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'clamp' is discarded{{.*}}use 'clamp_'
  x.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'to' is discarded
}

// A chain: the last result is dropped; its object is a temporary (no fix-it).
void chain(torch::Tensor x, torch::Device device) {
  x.to(device).clamp(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: result of out-of-place 'clamp' is discarded
  x.mul_(2).sigmoid();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: result of out-of-place 'sigmoid' is discarded
}

// --- Through parameters, members, loops of every kind, lambdas --------------------

void update(torch::nn::Linear &net, const torch::Tensor &delta) {
  torch::NoGradGuard no_grad;
  for (auto &p : net->parameters())
    p.add(delta);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of out-of-place 'add' is discarded
  // CHECK-FIXES: {{^}}    p.add_(delta);{{$}}
}

struct Batch {
  torch::Tensor data, target;
};

class Trainer {
public:
  void step(Batch &batch, torch::Device device) {
    batch.data.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: result of out-of-place 'to' is discarded
    // CHECK-FIXES: {{^}}    batch.data = batch.data.to(device);{{$}}
    state_.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: result of out-of-place 'cpu' is discarded
    // CHECK-FIXES: {{^}}    state_ = state_.cpu();{{$}}
    this->state_.relu();
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: result of out-of-place 'relu' is discarded
    // CHECK-FIXES: {{^}}    this->state_.relu_();{{$}}
  }
  void peek() const {
    state_.relu();
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: result of out-of-place 'relu' is discarded
  }

private:
  torch::Tensor state_;
};

void loops(torch::Tensor x, std::vector<torch::Tensor> xs, int n) {
  for (int i = 0; i < n; ++i)
    x.sigmoid();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of out-of-place 'sigmoid' is discarded
  // CHECK-FIXES: {{^}}    x.sigmoid_();{{$}}
  for (int i = 0; i < n; ++i, x.exp())
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: result of out-of-place 'exp' is discarded
  // CHECK-FIXES: {{^}}  for (int i = 0; i < n; ++i, x.exp_()){{$}}
    ;
  while (n-- > 0)
    x.relu();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of out-of-place 'relu' is discarded
  // CHECK-FIXES: {{^}}    x.relu_();{{$}}
  do
    x.clamp(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of out-of-place 'clamp' is discarded
  // CHECK-FIXES: {{^}}    x.clamp_(0, 1);{{$}}
  while (n++ < 3);
  for (auto &t : xs) {
    t.contiguous();
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of out-of-place 'contiguous' is discarded
    // CHECK-FIXES: {{^}}    t = t.contiguous();{{$}}
  }
  if (n > 0)
    x.detach();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of out-of-place 'detach' is discarded
  // CHECK-FIXES: {{^}}    x = x.detach();{{$}}
  else
    x.squeeze();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of out-of-place 'squeeze' is discarded
  // CHECK-FIXES: {{^}}    x = x.squeeze();{{$}}
  switch (n) {
  case 0:
    x.abs();
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of out-of-place 'abs' is discarded
    // CHECK-FIXES: {{^}}    x.abs_();{{$}}
    break;
  default:
    break;
  }
  x.relu(), x.sigmoid();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'relu' is discarded
  // CHECK-MESSAGES: :[[@LINE-2]]:15: warning: result of out-of-place 'sigmoid' is discarded
  // CHECK-FIXES: {{^}}  x.relu_(), x.sigmoid_();{{$}}
  auto last = (x.tanh(), x);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: result of out-of-place 'tanh' is discarded
  (void)last;
}

void lambdas(torch::Tensor x, torch::Device device) {
  auto move = [&] { x.to(device); };
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: result of out-of-place 'to' is discarded
  // CHECK-FIXES: {{^}}  auto move = [&] { x = x.to(device); };{{$}}
  move();
  auto own = [](torch::Tensor t) { t.relu(); return t; };
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: result of out-of-place 'relu' is discarded
  // CHECK-FIXES: {{^}}  auto own = [](torch::Tensor t) { t.relu_(); return t; };{{$}}
  own(x);
}

// --- Macros: reported at the expansion, no fix-it inside a macro ---------------

#define CLAMP01(t) (t).clamp(0, 1)
#define TO_DEVICE(t, d) t = (t).to(d)

void macros(torch::Tensor x, torch::Device device) {
  CLAMP01(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: result of out-of-place 'clamp' is discarded
  TO_DEVICE(x, device);
}

// --- Templates: as written, and through an instantiation -----------------------

template <typename Scalar> void clampTo(torch::Tensor x, Scalar hi) {
  x.clamp(0, hi);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'clamp' is discarded{{.*}}use 'clamp_'
  // CHECK-FIXES: {{^}}  x.clamp_(0, hi);{{$}}
}
template void clampTo<double>(torch::Tensor, double);

template <typename T> void reluOf(T x) {
  torch::relu(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of out-of-place 'relu' is discarded
}

// The operand's type is a template parameter: only the instantiation says it
// is a tensor, and it cannot say so for every instantiation (no fix-it).
template <typename T> void moveTo(T x, torch::Device device) {
  x.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'to' is discarded
}
template void moveTo<torch::Tensor>(torch::Tensor, torch::Device);

template <typename Net> class Runner {
public:
  void run(torch::Tensor x) {
    auto out = net_->forward(x);
    out.sigmoid();
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: result of out-of-place 'sigmoid' is discarded
  }
  Net net_;
};
template class Runner<torch::nn::Linear>;

// --- Through a helper that only computes a tensor out of place -----------------

torch::Tensor normalized(const torch::Tensor &x) {
  auto centred = x - x.mean();
  return centred / (centred.std() + 1e-6);
}
template <typename S> torch::Tensor scaled(torch::Tensor x, S s) { return x * s; }
namespace prep {
static torch::Tensor toDevice(torch::Tensor x, torch::Device d) { return x.to(d); }
} // namespace prep

void helpers(torch::Tensor x, torch::Device device) {
  normalized(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: result of 'normalized' is discarded, and it only computes a tensor out of place, so the statement changes nothing; assign the result [torch-discarded-tensor-result]
  scaled(x, 2.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: result of 'scaled' is discarded, and it only computes
  prep::toDevice(x, device);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: result of 'toDevice' is discarded, and it only computes
  auto clip = [](const torch::Tensor &t) { return t.clamp(0, 1); };
  clip(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: result of 'clip' is discarded, and it only computes
  for (int i = 0; i < 3; ++i)
    normalized(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of 'normalized' is discarded
}

// --- NOLINT -------------------------------------------------------------------------

void suppressed(torch::Tensor x) {
  x.relu(); // NOLINT(torch-discarded-tensor-result)
}
