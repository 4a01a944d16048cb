// A floating-point value that a callable out of sight computes from a tensor
// with history (a loss callback held in a std::function, a function
// pointer) carries no graph, whatever the callable did: a tensor rebuilt
// from it and backpropagated trains nothing.
// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <functional>
#include <torch/torch.h>

using LossFn = std::function<double(const torch::Tensor &, const torch::Tensor &)>;
using LossPtr = double (*)(const torch::Tensor &, const torch::Tensor &);

class Trainer {
public:
  Trainer(torch::nn::Linear net, LossFn loss_fn, LossPtr metric)
      : net_(net), loss_fn_(std::move(loss_fn)), metric_(metric),
        optimizer_(net->parameters()) {}
  void fit(torch::Tensor x, torch::Tensor y, int epochs) {
    for (int e = 0; e < epochs; ++e) {
      auto pred = net_->forward(x);
      auto loss = torch::tensor(loss_fn_(pred, y), torch::requires_grad());
      // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it{{.*}} [torch-tensor-from-values-breaks-graph]
      // CHECK-MESSAGES: :[[@LINE-2]]:33: note: values read out of a tensor with autograd history here
      // CHECK-MESSAGES: :[[@LINE+2]]:7: note: the new tensor is backpropagated here, with no other autograd history
      optimizer_.zero_grad();
      loss.backward();
      optimizer_.step();
    }
  }
  void fitPointer(torch::Tensor x, torch::Tensor y) {
    auto pred = net_->forward(x);
    auto loss = torch::tensor({metric_(pred, y)});
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: torch::tensor builds a tensor without autograd history{{.*}} [torch-tensor-from-values-breaks-graph]
    // CHECK-MESSAGES: :[[@LINE-2]]:32: note: values read out of a tensor with autograd history here
    // CHECK-MESSAGES: :[[@LINE+1]]:5: note: the new tensor is backpropagated here, with no other autograd history
    loss.backward();
  }
  // The callback's value only reported; the loss keeps its graph.
  void fitLogged(torch::Tensor x, torch::Tensor y) {
    auto pred = net_->forward(x);
    double metric = loss_fn_(pred, y);
    auto loss = (pred - y).pow(2).mean();
    loss.backward();
    log_.push_back(metric);
  }
  // On data without history: nothing to cut.
  void score(torch::Tensor x, torch::Tensor y) {
    auto loss = torch::tensor(loss_fn_(x, y));
    log_.push_back(loss.item<double>());
  }

private:
  torch::nn::Linear net_;
  LossFn loss_fn_;
  LossPtr metric_;
  torch::optim::Adam optimizer_;
  std::vector<double> log_;
};
