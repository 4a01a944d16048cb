// The checks search the user's code only (UserCodeMatchFinder): every place a
// top-level declaration of the user's can hold code is searched -- nested and
// anonymous namespaces, extern "C++" blocks, out-of-line members, class and
// function templates (their instantiations), variable initialisers -- and so
// is a user header with --header-filter; LibTorch's headers never are, even
// included with -I (the mock's torch::mock_internal_reload calls torch::load
// without a device).
// RUN: %torch_tidy --checks='-*,torch-*' --header-filter='.*' %s -- -std=c++17 -I%mock_torch -I%S/Inputs/user 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not='warning:'

#include <torch/script.h>
#include <torch/torch.h>
#include "user_training.h"

// CHECK-DAG: user_training.h:8:10: warning: sqrt of a value that nothing keeps away from 0 {{.*}}[torch-missing-epsilon]
// CHECK-DAG: user_training.h:15:5: warning: module forward in an evaluation loop {{.*}}[torch-eval-loop-without-no-grad]

namespace outer {
namespace {
void reload(torch::nn::Linear &m) { torch::load(m, "net.pt"); }
// CHECK-DAG: torch-user-code-scope.cpp:[[@LINE-1]]:37: warning: torch::load without a device {{.*}}[torch-load-without-device]
} // namespace
} // namespace outer

extern "C++" {
torch::Tensor angle(const torch::Tensor &a, const torch::Tensor &b) {
  return torch::acos((a * b).sum() / (a.norm() * b.norm()));
  // CHECK-DAG: torch-user-code-scope.cpp:[[@LINE-1]]:10: warning: acos {{.*}}[torch-missing-epsilon]
  // CHECK-DAG: torch-user-code-scope.cpp:[[@LINE-2]]:36: warning: {{.*}}[torch-missing-epsilon]
}
}

struct Trainer {
  void epoch(torch::nn::Linear &model, torch::optim::SGD &opt,
             const std::vector<torch::Tensor> &xs);
  torch::Tensor total = torch::zeros({});
};

void Trainer::epoch(torch::nn::Linear &model, torch::optim::SGD &opt,
                    const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs) {
    auto loss = model(x).sum();
    loss.backward();
    opt.step();
    total += loss;
    // CHECK-DAG: torch-user-code-scope.cpp:[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total' {{.*}}[torch-loss-accumulated-without-item]
  }
}

template <typename Module> struct Evaluator {
  static void validate(Module &model, const std::vector<torch::Tensor> &xs) {
    model->eval();
    for (const auto &x : xs)
      model->forward(x);
    // CHECK-DAG: torch-user-code-scope.cpp:[[@LINE-1]]:7: warning: module forward in an evaluation loop {{.*}}[torch-eval-loop-without-no-grad]
  }
};

void use_evaluator(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  Evaluator<torch::nn::Linear>::validate(model, xs);
}

auto global_model = [] {
  torch::jit::Module m = torch::jit::load("model.pt");
  // CHECK-DAG: torch-user-code-scope.cpp:[[@LINE-1]]:26: warning: torch::jit::load without a device {{.*}}[torch-load-without-device]
  return m;
}();
