// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

// A forward in a helper with no loop of its own (a member function, a free
// function, a lambda) runs in the loops of its callers: the evaluation loop
// is the caller's, and the guard goes before it. The warning goes at the call
// in the loop (where the user acts), the helper's forward into a note: a
// helper that training shares (scores_of, called by fit) gets no warning.

#include <torch/torch.h>
#include <vector>

struct Net : torch::nn::Module {
  torch::nn::Linear fc{4, 2};
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
};

torch::Tensor scores_of(Net &net, const torch::Tensor &x) { return net.forward(x); }

// --- Positive ------------------------------------------------------------------

class Evaluator {
public:
  double accuracy(const std::vector<torch::Tensor> &xs,
                  const std::vector<torch::Tensor> &ys) {
    model_.eval();
    double correct = 0;
    for (size_t i = 0; i < xs.size(); ++i)
      correct += classify(xs[i]).eq(ys[i]).sum().item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: module forward through this call in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE+8]]:59: note: the module forward that the call runs
    // CHECK-MESSAGES: :[[@LINE-6]]:5: note: module put into evaluation mode here
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
    // CHECK-FIXES-NEXT: {{^}}    for (size_t i = 0; i < xs.size(); ++i){{$}}
    return correct;
  }

private:
  torch::Tensor classify(const torch::Tensor &x) { return model_.forward(x).argmax(1); }
  Net model_;
};

double validate(Net &net, const std::vector<torch::Tensor> &xs) {
  double total = 0;
  for (const auto &x : xs)
    total += scores_of(net, x).sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward through this call in an evaluation loop without a gradient-disabling guard{{.*}} [torch-eval-loop-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-30]]:68: note: the module forward that the call runs
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : xs){{$}}
  return total;
}

double test_with_lambda(Net &net, const std::vector<torch::Tensor> &xs) {
  auto run = [&](const torch::Tensor &x) { return net.forward(x); };
  double total = 0;
  for (const auto &x : xs)
    total += run(x).mean().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward through this call in an evaluation loop without a gradient-disabling guard{{.*}} [torch-eval-loop-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-5]]:51: note: the module forward that the call runs
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : xs){{$}}
  return total;
}

// No eval() and no evaluation name, but only host values are read out of
// the helper's result: the loop's own evidence.
double total_score(Net &net, const std::vector<torch::Tensor> &xs) {
  double total = 0;
  for (const auto &x : xs)
    total += scores_of(net, x).sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward through this call in an evaluation loop
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
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

// No evaluation context and the scores handed to a function of the user's
// code that may keep them: not reported.
void keep(const torch::Tensor &t);
void collect(Net &net, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs)
    keep(scores_of(net, x));
}
