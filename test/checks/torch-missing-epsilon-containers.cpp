// RUN: %check_torch_tidy %s torch-missing-epsilon %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

// A value kept in a struct field, a pair or tuple element, or an element of
// a vector or map of a local is followed to every value stored there
// (docs/design.md, "Values of a field or element").

struct Stats {
  torch::Tensor variance;
  torch::Tensor count;
};

// --- Positive --------------------------------------------------------------

torch::Tensor struct_field(const torch::Tensor &x) {
  Stats s{x.var(), torch::ones({})};
  return torch::sqrt(s.variance);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: return torch::sqrt(s.variance + 1e-8);
}

torch::Tensor pair_assigned(const torch::Tensor &a, const torch::Tensor &b) {
  std::pair<torch::Tensor, int> d;
  d.first = (a - b).pow(2).sum(1);
  return d.first.sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: return (d.first + 1e-8).sqrt();
}

torch::Tensor tuple_element(const torch::Tensor &x) {
  auto t = std::make_tuple(1, x.pow(2).sum());
  return torch::sqrt(std::get<1>(t));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: return torch::sqrt(std::get<1>(t) + 1e-8);
}

torch::Tensor vector_pushed(const torch::Tensor &x) {
  std::vector<torch::Tensor> terms;
  terms.push_back(x.var());
  terms.push_back(x.pow(2).mean(1));
  return torch::sqrt(terms[1]);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: return torch::sqrt(terms[1] + 1e-8);
}

torch::Tensor map_entry(const torch::Tensor &x) {
  std::map<std::string, torch::Tensor> stats{{"var", x.var()}};
  return torch::sqrt(stats.at("var"));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: return torch::sqrt(stats.at("var") + 1e-8);
}

// Through a local reference: the variable it names (a reference is never
// rebound), with the writes made through the reference.
torch::Tensor through_reference(const torch::Tensor &x) {
  auto total = x.pow(2).sum(1);
  auto &total_ref = total;
  return torch::sqrt(total_ref);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: sqrt of a value that nothing keeps away from 0
  // CHECK-FIXES: return torch::sqrt(total_ref + 1e-8);
}

// --- Negative --------------------------------------------------------------

// An epsilon added through the reference.
torch::Tensor guarded_through_reference(const torch::Tensor &x) {
  auto total = x.pow(2).sum(1);
  auto &total_ref = total;
  total_ref = total_ref + 1e-6;
  return torch::sqrt(total);
}

// Every value stored is kept away from 0.
torch::Tensor field_with_epsilon(const torch::Tensor &x) {
  Stats s{x.var() + 1e-5, torch::ones({})};
  return torch::sqrt(s.variance);
}

torch::Tensor vector_clamped(const torch::Tensor &x) {
  std::vector<torch::Tensor> terms{x.var().clamp_min(1e-6)};
  terms.push_back(x.pow(2).mean(1) + 1e-6);
  return torch::sqrt(terms[0]);
}

// Changed by a call that takes it by non-const reference: not followed.
void stabilise(Stats &s);
torch::Tensor passed_by_reference(const torch::Tensor &x) {
  Stats s{x.var(), torch::ones({})};
  stabilise(s);
  return torch::sqrt(s.variance);
}

// Changed in place after it was stored: not followed.
torch::Tensor changed_in_place(const torch::Tensor &x) {
  Stats s{x.var(), torch::ones({})};
  s.variance.clamp_min_(1e-6);
  return torch::sqrt(s.variance);
}

// A different field of the same struct.
torch::Tensor other_field(const torch::Tensor &x) {
  Stats s{x.var(), torch::ones({}) * 4};
  return torch::sqrt(s.count);
}

// A kernel of positive values normalised by its own sum, held in a container
// (a masked or self-weighted average: the numerator is the same element).
torch::Tensor kernel_in_list(const torch::Tensor &t) {
  std::vector<torch::Tensor> k{torch::exp(-(t * t))};
  k[0] /= k[0].sum();
  return k[0];
}

// Nothing is known of an element changed in place: like a parameter.
torch::Tensor element_changed_in_place(const torch::Tensor &x) {
  std::vector<torch::Tensor> k{x.var()};
  k[0].unsqueeze_(0);
  return torch::sqrt(k[0]);
}
