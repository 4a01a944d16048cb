// Where gradient comes from: leaves that require grad (torch::requires_grad(),
// a module's parameters) are sources of history like a forward; a value read
// out of them and rebuilt cuts the graph. A rebuilt tensor added to a loss
// that is backpropagated adds a constant, which changes no gradient.
// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

// --- Positive ------------------------------------------------------------------

void leaf() {
  auto w = torch::randn({3}, torch::requires_grad());
  float s = w.sum().item<float>();
  auto loss = torch::tensor(s) * 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:21: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is backpropagated here, with no other autograd history
  loss.backward();
}

// A penalty on the parameters, computed on the host and added to the loss.
void penalty(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  auto loss = torch::mse_loss(model(x), y);
  std::vector<double> norms;
  for (auto &p : model->parameters())
    norms.push_back(p.norm().item<double>());
  auto reg = torch::tensor(norms).sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:30: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  auto total = loss + 0.01 * reg;
  total.backward();
}

// The same with torch::full and a compound assignment.
void penaltyFull(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  float l2 = 0;
  for (const auto &p : model->parameters())
    l2 += p.pow(2).sum().item<float>();
  auto loss = torch::mse_loss(model(x), y);
  loss += 1e-4 * torch::full({}, l2);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: at::full builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-4]]:26: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

// Values of a nested container, flattened through a range-for.
void nested(torch::nn::Linear fc) {
  auto out = fc(torch::randn({2, 4}));
  std::vector<std::vector<float>> rows(2);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      rows[i].push_back(out[i][j].item<float>());
  std::vector<float> flat;
  for (auto &r : rows)
    for (float v : r)
      flat.push_back(v);
  auto t = torch::tensor(flat);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-7]]:35: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is backpropagated here, with no other autograd history
  t.softmax(0).sum().backward();
}

// A helper that runs the layer itself, then rebuilds: whatever it is handed.
torch::Tensor logProbs(torch::nn::Linear &policy, torch::Tensor s) {
  std::vector<float> values;
  for (int i = 0; i < 4; ++i)
    values.push_back(torch::log_softmax(policy(s), 1)[i].item<float>());
  return torch::from_blob(values.data(), {4}).clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::from_blob builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:58: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+5]]:3: note: the new tensor is backpropagated here, with no other autograd history
}
void reinforce(torch::nn::Linear &policy) {
  auto lp = logProbs(policy, torch::randn({1, 4}));
  auto loss = -(lp * torch::randn({4})).sum();
  loss.backward();
}

// An L2 penalty over named_parameters() entries (their value() is the
// parameter), summed on the host in a helper and added to the loss.
torch::Tensor l2Penalty(torch::nn::Module &m, double lambda) {
  double l2 = 0.0;
  for (const auto &p : m.named_parameters()) {
    if (p.key().find("bias") != std::string::npos)
      continue;
    l2 += p.value().pow(2).sum().item<double>();
  }
  return torch::tensor(lambda * l2);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it
  // CHECK-MESSAGES: :[[@LINE-4]]:34: note: values read out of a tensor with autograd history here
}

void trainWithPenalty(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  auto loss = torch::mse_loss(model(x), y) + l2Penalty(*model, 1e-4);
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
}

// --- Negative twins ---------------------------------------------------------------

// A leaf backpropagated twice through separate graphs; a weight from values.
void weights(torch::nn::Linear fc, torch::Tensor x) {
  auto w = torch::randn({3}, torch::requires_grad());
  (w * 2).sum().backward();
  std::vector<float> returns;
  for (int i = 0; i < 8; ++i)
    returns.push_back(fc(x[i]).item<float>());
  auto logp = torch::log_softmax(fc(x), 0);
  auto pg = -(logp * torch::tensor(returns)).sum();
  pg.backward();
}

// A baseline subtracted inside a product, not a term of the loss.
void baseline(torch::nn::Linear fc, torch::Tensor x) {
  std::vector<float> returns;
  for (int i = 0; i < 8; ++i)
    returns.push_back(fc(x[i]).item<float>());
  auto adv = torch::tensor(returns) - torch::tensor(returns).mean();
  auto loss = -(torch::log_softmax(fc(x), 0) * adv).mean();
  loss.backward();
}

// A total that is only logged; gradients clipped by hand.
void logged(torch::nn::Linear fc, torch::Tensor x) {
  auto l = fc(x).pow(2).mean();
  double total = 0;
  for (auto &p : fc->parameters())
    total += p.norm().item<double>();
  auto shown = l + torch::tensor(total);
  l.backward();
  double gnorm = 0;
  for (auto &p : fc->parameters())
    gnorm += p.grad().norm().item<double>();
  auto clip = torch::tensor(gnorm);
  (void)clip;
}

// Values of a tensor made without requires_grad.
void plainLeaf(torch::nn::Linear fc, torch::Tensor x) {
  auto noise = torch::randn({3});
  float s = noise.sum().item<float>();
  auto loss = fc(x).sum() + torch::tensor(s);
  loss.backward();
}

// A lambda that returns a value it read out of a layer's output.
void lambdaValue(torch::nn::Linear critic, torch::Tensor x) {
  auto value_of = [&](torch::Tensor s) { return critic(s).item<float>(); };
  auto v = torch::tensor(value_of(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-2]]:26: note: values read out of a tensor with autograd history here
  auto loss = (v - 1.0).pow(2);
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the new tensor is backpropagated here, with no other autograd history
}

// A lambda that returns a value read out of what it was handed: the caller's
// tensor has no history here.
void lambdaOfInput(torch::Tensor x, torch::nn::Linear fc) {
  auto mean_of = [](torch::Tensor t) { return t.mean().item<float>(); };
  auto m = torch::tensor(mean_of(x.detach()));
  auto loss = fc(x).sum() * m;
  loss.backward();
}

// Negative: bootstrapped targets rebuilt from values, written as the first
// argument of a symmetric loss whose other argument has history: gradient
// flows through the values, the rebuilt tensor is the target.
void tdTargetFirst(torch::nn::Linear critic, torch::Tensor s,
                   torch::Tensor s_next) {
  std::vector<float> targets;
  for (int64_t t = 0; t < 10; ++t)
    targets.push_back(1.0f + 0.99f * critic(s_next[t]).item<float>());
  auto values = critic(s).flatten();
  auto loss = torch::mse_loss(torch::tensor(targets), values);
  loss.backward();
}

// A fresh tensor scaled by a value read out: the same as torch::full.
void onesTimesValue(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  double l2 = 0;
  for (auto &p : model->parameters())
    l2 += p.pow(2).sum().item<double>();
  auto penalty = torch::ones({}) * (1e-4 * l2);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: at::ones builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:26: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  auto loss = torch::mse_loss(model(x), y) + penalty;
  loss.backward();
}

// Negative: a fresh tensor scaled by a constant.
void onesTimesConstant(torch::nn::Linear model, torch::Tensor x,
                       torch::Tensor y) {
  auto weight = torch::ones({}) * 0.5;
  auto loss = torch::mse_loss(model(x), y) * weight;
  loss.backward();
}

// The penalty kept as a tensor over named_parameters(): the graph is whole.
torch::Tensor l2PenaltyTensor(torch::nn::Module &m, double lambda) {
  auto l2 = torch::zeros({});
  for (const auto &p : m.named_parameters())
    l2 = l2 + p.value().pow(2).sum();
  return l2 * lambda;
}

void trainWithTensorPenalty(torch::nn::Linear model, torch::Tensor x,
                            torch::Tensor y) {
  auto loss = torch::mse_loss(model(x), y) + l2PenaltyTensor(*model, 1e-4);
  loss.backward();
}
