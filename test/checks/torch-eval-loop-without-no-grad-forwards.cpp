// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

// Every way LibTorch runs a module counts as a forward: TorchScript modules
// (forward, operator(), get_method(...)(...), run_method), AnyModule and
// Sequential.

#include <torch/script.h>

using Inputs = std::vector<torch::Tensor>;

void infer_scripted(torch::jit::Module &module, const Inputs &xs) {
  for (const auto &x : xs) {
    auto y = module.get_method("forward")({x}).toTensor();
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward in an evaluation loop
    // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  }
}

void infer_shared(std::shared_ptr<torch::jit::Module> module, const Inputs &xs) {
  for (const auto &x : xs) {
    auto y = module->run_method("forward", x).toTensor();
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward in an evaluation loop
    // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  }
}

void infer_any(torch::nn::AnyModule &module, const Inputs &xs) {
  for (const auto &x : xs) {
    auto y = module.forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward in an evaluation loop
    // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  }
}

void infer_sequential(torch::nn::Sequential &net, const Inputs &xs) {
  for (const auto &x : xs) {
    auto y = net->forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward in an evaluation loop
    // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  }
}

// --- Negative ----------------------------------------------------------------

void infer_guarded(torch::jit::Module &module, torch::nn::AnyModule &any,
                   const Inputs &xs) {
  torch::NoGradGuard no_grad;
  for (const auto &x : xs) {
    auto a = module.get_method("forward")({x}).toTensor();
    auto b = any.forward(x);
  }
}
