// Accumulators that are elements of a container: a map of running totals, a
// vector of per-epoch sums. The container outlives the iteration, so each
// element keeps every iteration's graph.
// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <map>
#include <string>
#include <vector>

// --- Positive ------------------------------------------------------------------

void mapElement(torch::nn::Linear model, torch::optim::SGD &opt) {
  std::map<std::string, torch::Tensor> logs;
  logs["loss"] = torch::zeros({});
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    auto loss = model(torch::randn({2, 4})).sum();
    loss.backward();
    opt.step();
    logs["loss"] += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'logs' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: logs["loss"] += loss.detach();
  }
}

void perEpochTotals(torch::nn::Linear model, torch::optim::SGD &opt) {
  std::vector<torch::Tensor> totals(10, torch::zeros({}));
  for (int epoch = 0; epoch < 10; ++epoch)
    for (int b = 0; b < 8; ++b) {
      opt.zero_grad();
      auto loss = model(torch::randn({2, 4})).sum();
      loss.backward();
      opt.step();
      totals[epoch] = totals[epoch] + loss;
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor with autograd history accumulated into 'totals' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
      // CHECK-FIXES: totals[epoch] = totals[epoch] + loss.detach();
    }
}

void atElement(torch::nn::Linear model, torch::optim::SGD &opt,
               std::map<std::string, torch::Tensor> &meters) {
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    auto loss = model(torch::randn({2, 4})).sum();
    loss.backward();
    opt.step();
    meters.at("train") += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'meters' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: meters.at("train") += loss.detach();
  }
}

// --- Negative twins ---------------------------------------------------------------

// The values, not the tensors.
void values(torch::nn::Linear model, torch::optim::SGD &opt) {
  std::map<std::string, double> logs;
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    auto loss = model(torch::randn({2, 4})).sum();
    loss.backward();
    opt.step();
    logs["loss"] += loss.item<double>();
  }
}

// A fresh map every iteration.
void perIteration(torch::nn::Linear model, torch::optim::SGD &opt) {
  for (int i = 0; i < 100; ++i) {
    std::map<std::string, torch::Tensor> logs;
    logs["loss"] = torch::zeros({});
    opt.zero_grad();
    auto loss = model(torch::randn({2, 4})).sum();
    loss.backward();
    opt.step();
    logs["loss"] += loss;
  }
}

// Detached terms.
void detached(torch::nn::Linear model, torch::optim::SGD &opt) {
  std::vector<torch::Tensor> totals(10, torch::zeros({}));
  for (int epoch = 0; epoch < 10; ++epoch) {
    opt.zero_grad();
    auto loss = model(torch::randn({2, 4})).sum();
    loss.backward();
    opt.step();
    totals[epoch] += loss.detach();
  }
}
