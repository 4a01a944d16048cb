// EvaluationFunctionRegex from .clang-tidy CheckOptions: with a custom regex
// only `score*` functions are evaluation contexts (eval() still is one).
// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- --config="{CheckOptions: {torch-eval-loop-without-no-grad.EvaluationFunctionRegex: '^score'}}" -- -isystem %mock_torch
// RUN: %torch_tidy --checks='-*,torch-eval-loop-without-no-grad' --dump-config | FileCheck --check-prefix=DEFAULT %s
// DEFAULT: torch-eval-loop-without-no-grad.EvaluationFunctionRegex: '(?i)(eval|valid|test|infer|predict)'
// RUN: %torch_tidy --checks='-*,torch-eval-loop-without-no-grad' --config="{CheckOptions: {torch-eval-loop-without-no-grad.EvaluationFunctionRegex: '^score'}}" --dump-config | FileCheck --check-prefix=CONFIGURED %s
// CONFIGURED: torch-eval-loop-without-no-grad.EvaluationFunctionRegex: ^score
// An invalid regex is reported and the default is used.
// RUN: %torch_tidy --checks='-*,torch-eval-loop-without-no-grad' --config="{CheckOptions: {torch-eval-loop-without-no-grad.EvaluationFunctionRegex: '(unclosed'}}" %s -- -std=c++17 -isystem %mock_torch 2>&1 | FileCheck --check-prefix=INVALID %s
// INVALID: invalid EvaluationFunctionRegex '(unclosed'

#include <torch/torch.h>

// The outputs leave the loop (returned to the caller), so only the name says
// this is evaluation.
std::vector<torch::Tensor> score_batches(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> outs;
  for (const auto &x : xs)
    outs.push_back(model(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: module forward in an evaluation loop
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  return outs;
}

// Not an evaluation name any more.
std::vector<torch::Tensor> validate(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> outs;
  for (const auto &x : xs)
    outs.push_back(model(x));
  return outs;
}

// Outputs that never leave the iteration are evidence whatever the name.
void run_all(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs)
    model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module forward in an evaluation loop
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
}
