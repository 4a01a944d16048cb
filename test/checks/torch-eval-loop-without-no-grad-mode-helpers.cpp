// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

// The evaluation mode set by a helper of the translation unit
// (`freeze_for_scoring(model)` calling `model->eval()`): its last mode change
// is the call's, so the loop after it is an evaluation loop whatever the
// function is called.

#include <torch/torch.h>
#include <vector>

struct Net : torch::nn::Module {
  torch::nn::Linear fc{4, 1};
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
};

static void freeze_for_scoring(Net &m) { m.eval(); }
static void prepare(Net &m) { freeze_for_scoring(m); }
static void unfreeze(Net &m) {
  m.eval();
  m.train();
}

// --- Positive ------------------------------------------------------------------

std::vector<float> score_all(Net &model, const std::vector<torch::Tensor> &inputs) {
  freeze_for_scoring(model);
  std::vector<float> scores;
  for (const auto &x : inputs)
    scores.push_back(model.forward(x).mean().item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: module forward in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: module put into evaluation mode here
    // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
    // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : inputs){{$}}
  return scores;
}

std::vector<float> rank_all(Net &model, const std::vector<torch::Tensor> &inputs) {
  prepare(model);
  std::vector<float> ranks;
  for (const auto &x : inputs)
    ranks.push_back(model.forward(x).sum().item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: module forward in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: module put into evaluation mode here
    // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
    // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : inputs){{$}}
  return ranks;
}

// --- Negative twins ---------------------------------------------------------------

// The helper leaves the module in training mode.
std::vector<float> collect_all(Net &model, const std::vector<torch::Tensor> &inputs) {
  unfreeze(model);
  std::vector<float> out;
  for (const auto &x : inputs)
    out.push_back(model.forward(x).mean().item<float>());
  return out;
}

// Under a guard.
std::vector<float> score_guarded(Net &model, const std::vector<torch::Tensor> &inputs) {
  freeze_for_scoring(model);
  torch::NoGradGuard no_grad;
  std::vector<float> scores;
  for (const auto &x : inputs)
    scores.push_back(model.forward(x).mean().item<float>());
  return scores;
}
