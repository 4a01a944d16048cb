// The same patterns against Debian's real LibTorch headers; the fixed file
// must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-discarded-tensor-result %t -- -- %libtorch_flags

#include <torch/torch.h>

#include <tuple>
#include <vector>

void shapes(torch::Tensor x, torch::Tensor delta, torch::Device device) {
  x.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'to' is discarded, so the statement changes nothing; assign the result [torch-discarded-tensor-result]
  // CHECK-FIXES: {{^}}  x = x.to(device);{{$}}
  x.to(torch::kFloat);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'to' is discarded
  // CHECK-FIXES: {{^}}  x = x.to(torch::kFloat);{{$}}
  x.to(device, torch::kHalf, /*non_blocking=*/true);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'to' is discarded
  // CHECK-FIXES: {{^}}  x = x.to(device, torch::kHalf, /*non_blocking=*/true);{{$}}
  x.clamp(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'clamp' is discarded, so the statement changes nothing; use 'clamp_' to change the tensor in place, or assign the result [torch-discarded-tensor-result]
  // CHECK-FIXES: {{^}}  x.clamp_(0, 1);{{$}}
  x.detach();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'detach' is discarded{{.*}}; assign the result
  // CHECK-FIXES: {{^}}  x = x.detach();{{$}}
  x.contiguous();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'contiguous' is discarded
  // CHECK-FIXES: {{^}}  x = x.contiguous();{{$}}
  x.squeeze();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'squeeze' is discarded{{.*}}; assign the result
  // CHECK-FIXES: {{^}}  x = x.squeeze();{{$}}
  x.add(delta);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'add' is discarded{{.*}}use 'add_'
  // CHECK-FIXES: {{^}}  x.add_(delta);{{$}}
  x.div(255);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'div' is discarded{{.*}}use 'div_'
  // CHECK-FIXES: {{^}}  x.div_(255);{{$}}
  torch::relu(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of out-of-place 'relu' is discarded{{.*}}use 'relu_'
  // CHECK-FIXES: {{^}}  torch::relu_(x);{{$}}
  torch::clamp(x, 0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of out-of-place 'clamp' is discarded{{.*}}use 'clamp_'
  // CHECK-FIXES: {{^}}  torch::clamp_(x, 0, 1);{{$}}
  // at::add_ is no function of LibTorch: no fix-it.
  torch::add(x, delta);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of out-of-place 'add' is discarded, so the statement changes nothing; assign the result
  torch::nn::functional::relu(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: result of out-of-place 'relu' is discarded
  x.max(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'max' is discarded
  x.sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'sum' is discarded
}

void update(torch::nn::Linear &net, double lr) {
  torch::NoGradGuard no_grad;
  for (auto &p : net->parameters())
    p.sub(p.grad() * lr);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: result of out-of-place 'sub' is discarded
  // CHECK-FIXES: {{^}}    p.sub_(p.grad() * lr);{{$}}
}

torch::Tensor normalized(const torch::Tensor &x) {
  auto centred = x - x.mean();
  return centred / (centred.std() + 1e-6);
}

void helper(torch::Tensor x) {
  normalized(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: result of 'normalized' is discarded, and it only computes a tensor out of place, so the statement changes nothing; assign the result [torch-discarded-tensor-result]
  auto clip = [](const torch::Tensor &t) { return t.clamp(0, 1); };
  clip(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: result of 'clip' is discarded
}

template <typename T> void moveTo(T x, torch::Device device) {
  x.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: result of out-of-place 'to' is discarded
}
template void moveTo<torch::Tensor>(torch::Tensor, torch::Device);

// Not flagged: used results, in-place forms, modules, factories, void casts.
torch::Tensor silent(torch::nn::Linear &net, torch::Tensor x, torch::Device device) {
  net->to(device);
  net->train();
  net->eval();
  x = x.to(device);
  x.clamp_(0, 1);
  torch::relu_(x);
  x.detach_();
  x.requires_grad_(false);
  (void)x.sigmoid();
  std::ignore = x.tanh();
  torch::zeros({1});
  torch::empty({1}, torch::TensorOptions().device(torch::kCPU));
  torch::randn({1});
  torch::tensor({1.0, 2.0});
  std::vector<float> buffer(4);
  torch::from_blob(buffer.data(), {4});
  x.item<float>();
  return x.contiguous();
}
