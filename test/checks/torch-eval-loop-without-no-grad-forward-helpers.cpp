// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

// A forward in a helper with no loop of its own (a member function, a free
// function, a lambda) runs in the loops of its callers: the evaluation loop
// is the caller's, and the guard goes before it.

#include <torch/torch.h>
#include <vector>

struct Net : torch::nn::Module {
  torch::nn::Linear fc{4, 2};
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
};

torch::Tensor scores_of(Net &net, const torch::Tensor &x) { return net.forward(x); }
// CHECK-MESSAGES: :[[@LINE-1]]:68: warning: module forward in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
// CHECK-MESSAGES: :[[@LINE+28]]:14: note: the forward runs in this evaluation loop through this call

// --- Positive ------------------------------------------------------------------

class Evaluator {
public:
  double accuracy(const std::vector<torch::Tensor> &xs,
                  const std::vector<torch::Tensor> &ys) {
    model_.eval();
    double correct = 0;
    for (size_t i = 0; i < xs.size(); ++i)
      correct += classify(xs[i]).eq(ys[i]).sum().item<double>();
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
    // CHECK-FIXES-NEXT: {{^}}    for (size_t i = 0; i < xs.size(); ++i){{$}}
    return correct;
  }

private:
  torch::Tensor classify(const torch::Tensor &x) { return model_.forward(x).argmax(1); }
  // CHECK-MESSAGES: :[[@LINE-1]]:59: warning: module forward in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-9]]:18: note: the forward runs in this evaluation loop through this call
  // CHECK-MESSAGES: :[[@LINE-13]]:5: note: module put into evaluation mode here
  Net model_;
};

double validate(Net &net, const std::vector<torch::Tensor> &xs) {
  double total = 0;
  for (const auto &x : xs)
    total += scores_of(net, x).sum().item<double>();
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : xs){{$}}
  return total;
}

double test_with_lambda(Net &net, const std::vector<torch::Tensor> &xs) {
  auto run = [&](const torch::Tensor &x) { return net.forward(x); };
  // CHECK-MESSAGES: :[[@LINE-1]]:51: warning: module forward in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE+3]]:14: note: the forward runs in this evaluation loop through this call
  double total = 0;
  for (const auto &x : xs)
    total += run(x).mean().item<double>();
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : xs){{$}}
  return total;
}

// --- Negative twins ---------------------------------------------------------------

// The caller's loop trains.
void fit(Net &net, torch::optim::SGD &opt, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs) {
    opt.zero_grad();
    scores_of(net, x).sum().backward();
    opt.step();
  }
}

// The caller guards the loop.
double validate_guarded(Net &net, const std::vector<torch::Tensor> &xs) {
  torch::NoGradGuard no_grad;
  double total = 0;
  for (const auto &x : xs)
    total += scores_of(net, x).sum().item<double>();
  return total;
}

// No evaluation context: neither eval() nor an evaluation name.
double collect(Net &net, const std::vector<torch::Tensor> &xs) {
  double total = 0;
  for (const auto &x : xs)
    total += scores_of(net, x).sum().item<double>();
  return total;
}
