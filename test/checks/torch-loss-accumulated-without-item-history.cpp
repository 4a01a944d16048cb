// Autograd history as LibTorch records it: a clone().detach()ed value has
// none, a buffer the loop body clears holds one iteration's values only, and
// an operation the operation table does not name (gelu, leaky_relu, silu)
// keeps the history of its operands.
// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

struct Net : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// --- Negative: no history ------------------------------------------------------

void clone_detached(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  torch::Tensor running = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    opt.zero_grad();
    loss.backward();
    opt.step();
    total += loss.clone().detach();
    auto copy = loss.clone().detach();
    running = running + copy;
  }
}

// --- Negative: the buffer is cleared by the same loop body -----------------------

void window_cleared_first(Net &net, torch::optim::SGD &opt,
                          const Batches &batches) {
  std::vector<torch::Tensor> recent;
  for (const auto &batch : batches) {
    recent.clear();
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    opt.zero_grad();
    loss.backward();
    opt.step();
    recent.push_back(loss);
    recent.push_back(loss * 2);
  }
}

void window_cleared_last(Net &net, torch::optim::SGD &opt,
                         const Batches &batches) {
  std::vector<torch::Tensor> terms;
  for (const auto &batch : batches) {
    auto out = net.forward(batch.first);
    auto loss = torch::mse_loss(out, batch.second);
    loss.backward();
    opt.step();
    terms.push_back(loss);
    terms.push_back(out.mean());
    terms.clear();
  }
}

// --- Positive: cleared only on some iterations, or never ---------------------------

void window_cleared_sometimes(Net &net, torch::optim::SGD &opt,
                              const Batches &batches) {
  std::vector<torch::Tensor> losses;
  for (size_t i = 0; i < batches.size(); ++i) {
    auto loss = torch::mse_loss(net.forward(batches[i].first), batches[i].second);
    loss.backward();
    opt.step();
    losses.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'losses'
    // CHECK-FIXES: {{^}}    losses.push_back(loss.detach());{{$}}
    if (i % 100 == 0)
      losses.clear();
  }
}

// --- Positive: history through operations the table does not name ----------------

void through_relu(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    auto penalty = torch::relu(loss);
    total += penalty;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total'
    // CHECK-FIXES: {{^}}    total += penalty.detach();{{$}}
  }
}

void through_gelu(Net &net, torch::optim::SGD &opt, const Batches &batches) {
  torch::Tensor total = torch::zeros({});
  torch::Tensor smooth = torch::zeros({});
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(net.forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    auto penalty = torch::gelu(loss);
    total += penalty;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total'
    // CHECK-FIXES: {{^}}    total += penalty.detach();{{$}}
    smooth = smooth + torch::leaky_relu(loss, 0.1);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'smooth'
    // CHECK-FIXES: {{^}}    smooth = smooth + torch::leaky_relu(loss, 0.1).detach();{{$}}
  }
}
