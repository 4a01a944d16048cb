// RUN: %check_torch_tidy %s torch-discarded-tensor-result %t -- -- -isystem %mock_torch

// Every call here is in place, has its result used, or is not LibTorch's
// tensor operation: nothing is reported.

#include <torch/torch.h>
#include <tuple>

void use(const torch::Tensor &t);

// Results that are kept, passed on, returned or dropped on purpose.
torch::Tensor used(torch::Tensor x, torch::Device device) {
  x = x.to(device);
  auto y = x.clamp(0, 1);
  use(x.relu());
  (void)x.clamp(0, 1);
  static_cast<void>(torch::relu(x));
  std::ignore = x.sigmoid();
  torch::Tensor z;
  z = x.detach();
  if (x.sum().item<float>() > 0)
    return x.contiguous();
  auto pick = [&] { return x.squeeze(); };
  auto w = (x.relu_(), x.sigmoid());
  use(y);
  return y + z + pick() + w;
}

// In-place forms write into their object.
void inPlace(torch::Tensor x, torch::Tensor g) {
  x.clamp_(0, 1);
  x.add_(g);
  x.relu_();
  torch::relu_(x);
  at::clamp_(x, 0, 1);
  x.detach_();
  x.squeeze_();
  x.requires_grad_(true);
  x.zero_();
  x += g;
  x.mul_(2).sigmoid_();
}

// Modules: to, train and eval change the module.
void modules(torch::nn::Linear &net, torch::Device device) {
  net->to(device);
  net->train();
  net->eval();
  net->zero_grad();
}

// Calls that do something with their result dropped, or return no tensor.
void effects(torch::Tensor x, torch::optim::SGD &opt) {
  x.backward();
  x.item<float>();
  x.data_ptr<float>();
  opt.step();
  opt.zero_grad();
}

// Factories: a tensor made and dropped on purpose (initialising a device,
// drawing random numbers) changes no operand.
void factories() {
  torch::zeros({1});
  torch::empty({1}, torch::TensorOptions().device(torch::kCUDA));
  torch::randn({2, 2});
  torch::ones_like(torch::zeros({1}));
}

// Not LibTorch: a user's type and functions that share the spellings.
struct MyTensor {
  MyTensor clamp(int, int) const { return *this; }
  MyTensor to(int) const { return *this; }
};
namespace mine {
torch::Tensor relu(const torch::Tensor &t);
} // namespace mine

void userCode(MyTensor m, torch::Tensor x) {
  m.clamp(0, 1);
  m.to(3);
  mine::relu(x);
}

// A template whose operand is not a tensor in its instantiation.
template <typename T> void moveTo(T x) { x.to(3); }
template void moveTo<MyTensor>(MyTensor);

// An operand of dependent type in a template nobody instantiates: only its
// name is known.
template <typename T> void dependentOnly(T x) { x.clamp(0, 1); }

// Helpers that do something besides computing their result, or whose result
// is used: not reported.
torch::Tensor counted(const torch::Tensor &x, int &calls) {
  ++calls;
  return x.relu();
}
torch::Tensor clampInPlace(torch::Tensor x) {
  x.clamp_(0, 1);
  return x;
}
torch::Tensor logged(const torch::Tensor &x) {
  std::vector<int> seen;
  seen.push_back(1);
  return x.sigmoid();
}
torch::Tensor branchy(const torch::Tensor &x, bool b) {
  if (b)
    return x.relu();
  return x;
}
torch::Tensor viaUser(const torch::Tensor &x) { return mine::relu(x); }
torch::Tensor &identity(torch::Tensor &x) { return x; }
struct Stateful {
  torch::Tensor w;
  torch::Tensor apply(const torch::Tensor &x) const { return x.mm(w); }
  virtual torch::Tensor hook(const torch::Tensor &x) { return x.relu(); }
  torch::Tensor pure(const torch::Tensor &x) const { return x.relu(); }
};
torch::Tensor stored;
torch::Tensor global(const torch::Tensor &x) { return x + stored; }
torch::Tensor declaredOnly(const torch::Tensor &x);

void helperCalls(torch::Tensor x, Stateful &s) {
  int calls = 0;
  counted(x, calls);
  clampInPlace(x);
  logged(x);
  branchy(x, true);
  viaUser(x);
  identity(x);
  s.apply(x);
  s.hook(x);
  s.pure(x);
  global(x);
  declaredOnly(x);
  auto keep = [&](const torch::Tensor &t) { stored = t; return t; };
  keep(x);
  auto y = counted(x, calls);
  (void)y;
}
