// Templates are checked once, in their written form (calls with dependent
// arguments are unresolved lookups); instantiations add no duplicate. Macros
// are diagnosed where they are used, without a fix-it that would rewrite the
// macro; NOLINT is honoured.
// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

#include <torch/torch.h>

template <typename T> struct Metric {
  // The arguments are dependent: torch::sqrt is an unresolved lookup here.
  auto distance(const T &a, const T &b) {
    return torch::sqrt((a - b).pow(2).sum(1));
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: sqrt of a value that nothing keeps away from 0
    // CHECK-FIXES: {{^}}    return torch::sqrt((a - b).pow(2).sum(1) + 1e-8);{{$}}
  }
  // A non-dependent tensor inside a template.
  torch::Tensor normalise(const torch::Tensor &x) {
    return x / x.norm();
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: division by a norm that can be 0
    // CHECK-FIXES: {{^}}    return x / (x.norm() + 1e-8);{{$}}
  }
  // Guarded in the template: silent for every instantiation.
  auto safe_distance(const T &a, const T &b, double eps) {
    return torch::sqrt((a - b).pow(2).sum(1) + eps);
  }
};

template struct Metric<torch::Tensor>;

// A dependent exponent: Tensor::pow is an unresolved member call.
template <typename P> torch::Tensor root(const torch::Tensor &x, P p) {
  return x.abs().sum().pow(1.0 / p);
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: pow with a reciprocal exponent
  // CHECK-FIXES: {{^}}  return (x.abs().sum() + 1e-8).pow(1.0 / p);{{$}}
}
template torch::Tensor root(const torch::Tensor &, double);
template torch::Tensor root(const torch::Tensor &, int);

template <typename T> torch::Tensor log_probabilities(const T &logits) {
  return torch::log(torch::softmax(logits, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log of a softmax is -inf
  // CHECK-FIXES: {{^}}  return torch::log_softmax(logits, 1);{{$}}
}
template torch::Tensor log_probabilities(const torch::Tensor &);

// --- macros --------------------------------------------------------------------

#define L2_NORM(x) torch::sqrt((x).pow(2).sum())
#define SQUARED_SUM(x) (x).pow(2).sum()
#define EPS 1e-8

torch::Tensor macros(const torch::Tensor &x) {
  torch::Tensor r = L2_NORM(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: sqrt of a value that nothing keeps away from 0
  // The operation is written here, its argument comes from a macro: the fix-it
  // goes after the whole macro use.
  r += torch::sqrt(SQUARED_SUM(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: {{^}}  r += torch::sqrt(SQUARED_SUM(x) + 1e-8);{{$}}
  r += torch::sqrt(SQUARED_SUM(x) + EPS);
  r += torch::sqrt(x.pow(2).sum()); // NOLINT(torch-missing-epsilon)
  return r;
}
