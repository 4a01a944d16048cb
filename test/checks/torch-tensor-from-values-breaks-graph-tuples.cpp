// A pair or tuple of tensors built from tensors with history carries that
// history as it is (`return {log_softmax(head(h), -1), h};` from a
// generator's step()), so values read out of one of its elements and rebuilt
// into the loss cut the graph.
// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <tuple>
#include <utility>
#include <torch/torch.h>

struct GeneratorImpl : torch::nn::Module {
  torch::nn::Linear head{4, 4};
  std::pair<torch::Tensor, torch::Tensor> step(const torch::Tensor &h) {
    auto next_h = head(h);
    return {torch::log_softmax(head(next_h), -1), next_h};
  }
  std::tuple<torch::Tensor, torch::Tensor> stepTuple(const torch::Tensor &h) {
    return std::make_tuple(head(h), h);
  }
  std::pair<torch::Tensor, torch::Tensor> stepDetached(const torch::Tensor &h) {
    return {head(h).detach(), h.detach()};
  }
};
TORCH_MODULE(Generator);

// --- Positive ------------------------------------------------------------------

void reinforceFromPair(Generator gen, torch::optim::Adam &opt, int steps) {
  float rl_loss = 0.f;
  auto hidden = torch::zeros({1, 4});
  for (int p = 0; p < steps; ++p) {
    auto out = gen->step(hidden);
    hidden = out.second;
    rl_loss -= out.first[0][p].item<float>() * 0.5f;
  }
  auto loss = torch::tensor({rl_loss / steps});
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-4]]:32: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is backpropagated here, with no other autograd history
  loss.backward();
  opt.step();
}

void fromTupleElement(Generator gen, torch::Tensor h) {
  auto out = gen->stepTuple(h);
  double v = std::get<0>(out).sum().item<double>();
  torch::tensor({v}).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::tensor builds a tensor without autograd history{{.*}} [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:37: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the new tensor is backpropagated here, with no other autograd history
}

// --- Negative twins ---------------------------------------------------------------

void fromDetachedPair(Generator gen, torch::Tensor h) {
  auto out = gen->stepDetached(h);
  double v = out.first.sum().item<double>();
  auto reward = torch::tensor({v});
  (gen->step(h).first.sum() * reward).backward();
}

void stackedLogProbs(Generator gen, torch::optim::Adam &opt, int steps) {
  std::vector<torch::Tensor> log_probs;
  auto hidden = torch::zeros({1, 4});
  for (int p = 0; p < steps; ++p) {
    auto out = gen->step(hidden);
    hidden = out.second;
    log_probs.push_back(out.first[0][p]);
  }
  auto loss = -torch::stack(log_probs).sum();
  loss.backward();
  opt.step();
}
