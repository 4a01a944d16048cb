// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <tuple>
#include <utility>
#include <vector>

// Access paths (docs/design.md, "Access paths"): a tensor held in a struct
// field, a pair or tuple element is followed like a local variable, and two
// instances of the same field are different locations.

struct Net : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// --- Positive --------------------------------------------------------------

void pair_elements(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  std::pair<torch::Tensor, double> total{torch::zeros({}), 0.0};
  for (const auto &batch : batches) {
    std::pair<torch::Tensor, double> loss{
        torch::mse_loss(net.forward(batch.first), batch.second), 0.0};
    opt.zero_grad();
    loss.first.backward();
    opt.step();
    total.first = total.first + loss.first;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into {{.*}} [torch-loss-accumulated-without-item]
    // CHECK-FIXES: total.first = total.first + loss.first.detach();
  }
}

// Not yet: the same accumulation through std::get<N> of a std::tuple (the tuple's
// element is an access path, but the accumulation's two sides are not matched).

struct Meter {
  torch::Tensor sum;
  torch::Tensor unused;
};

void struct_fields(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  Meter meter{torch::zeros({}), torch::zeros({})};
  for (const auto &batch : batches) {
    Meter step{torch::mse_loss(net.forward(batch.first), batch.second),
               torch::zeros({})};
    opt.zero_grad();
    step.sum.backward();
    opt.step();
    meter.sum = meter.sum + step.sum;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into {{.*}} [torch-loss-accumulated-without-item]
    // CHECK-FIXES: meter.sum = meter.sum + step.sum.detach();
  }
}

// A sibling field being backpropagated does not make this one a loss.
void sibling_backpropagated(Net &net, torch::optim::SGD &opt,
                            const Batches &batches) {
  std::pair<torch::Tensor, torch::Tensor> acc{torch::zeros({}),
                                              torch::zeros({})};
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    acc.first = loss * 2;
    opt.zero_grad();
    acc.first.backward();
    opt.step();
    acc.second = acc.second + loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into {{.*}} [torch-loss-accumulated-without-item]
    // CHECK-FIXES: acc.second = acc.second + loss.detach();
  }
}

// --- Negative --------------------------------------------------------------

// The accumulated field is itself backpropagated: a multi-term loss.
void field_backpropagated(Net &net, torch::optim::SGD &opt,
                          const Batches &batches) {
  std::pair<torch::Tensor, double> total{torch::zeros({}), 0.0};
  for (const auto &batch : batches) {
    std::pair<torch::Tensor, double> loss{
        torch::mse_loss(net.forward(batch.first), batch.second), 0.0};
    total.first = total.first + loss.first;
    opt.zero_grad();
    total.first.backward();
    opt.step();
  }
}

// Detached before it is accumulated.
void detached_field(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  std::pair<torch::Tensor, double> total{torch::zeros({}), 0.0};
  for (const auto &batch : batches) {
    std::pair<torch::Tensor, double> loss{
        torch::mse_loss(net.forward(batch.first), batch.second).detach(),
        0.0};
    opt.zero_grad();
    opt.step();
    total.first = total.first + loss.first;
  }
}

// A per-iteration pair is not an accumulator that outlives the loop.
void per_iteration(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  for (const auto &batch : batches) {
    std::pair<torch::Tensor, double> total{torch::zeros({}), 0.0};
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    opt.zero_grad();
    loss.backward();
    opt.step();
    total.first = total.first + loss;
  }
}
