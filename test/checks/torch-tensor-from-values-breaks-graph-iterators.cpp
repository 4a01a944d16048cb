// Values read out through an iterator over a container of tensors with
// history (`it->norm().item<double>()`, `(*it).sum().item<float>()`) are read
// out of those tensors, as in a range-for over the container.
// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <algorithm>
#include <iterator>
#include <torch/torch.h>
#include <vector>

// --- Positive ------------------------------------------------------------------

void normPenaltyIterator(torch::nn::Linear model, torch::optim::SGD &opt,
                         torch::Tensor x, torch::Tensor y) {
  auto params = model->parameters();
  double norm_sum = 0;
  for (auto it = params.begin(); it != params.end(); ++it)
    norm_sum += it->norm().item<double>();
  auto loss = torch::mse_loss(model(x), y) + 1e-3 * torch::tensor(norm_sum);
  // CHECK-MESSAGES: :[[@LINE-1]]:53: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:28: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  opt.zero_grad();
  loss.backward();
  opt.step();
}

void dereferencedConstIterator(torch::nn::Linear model, torch::Tensor x,
                               torch::Tensor y) {
  std::vector<torch::Tensor> outs = {model(x), model(y)};
  std::vector<float> values;
  for (auto it = outs.cbegin(); it != outs.cend(); ++it)
    values.push_back((*it).sum().item<float>());
  auto total = torch::tensor(values).sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:34: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is backpropagated here, with no other autograd history
  total.backward();
}

void stdBeginIterator(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  auto params = model->parameters();
  double sq = 0;
  for (auto it = std::begin(params); it != std::end(params); ++it) {
    const torch::Tensor &p = *it;
    sq += p.pow(2).sum().item<double>();
  }
  auto loss = torch::mse_loss(model(x), y) + torch::tensor(sq);
  // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-4]]:26: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

// --- Negative twins ---------------------------------------------------------------

// The container holds tensors without history: nothing is cut.
void constantsIterator(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  std::vector<torch::Tensor> scales = {torch::ones({1}), torch::zeros({1})};
  double s = 0;
  for (auto it = scales.begin(); it != scales.end(); ++it)
    s += it->sum().item<double>();
  auto loss = torch::mse_loss(model(x), y) * torch::tensor(s);
  loss.backward();
}

// Logging only: the values never become a tensor that is trained.
void loggingIterator(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  auto params = model->parameters();
  std::vector<double> norms;
  for (auto it = params.begin(); it != params.end(); ++it)
    norms.push_back(it->norm().item<double>());
  torch::mse_loss(model(x), y).backward();
}

// --- Library algorithms: std::transform with a lambda that reads values out ---

void transformScores(torch::nn::Linear head, const std::vector<torch::Tensor> &samples,
                     torch::Tensor target) {
  std::vector<float> scores(samples.size());
  std::transform(samples.begin(), samples.end(), scores.begin(),
                 [&](const torch::Tensor &s) { return head(s).item<float>(); });
  auto loss = torch::mse_loss(torch::tensor(scores), target);
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:63: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: the new tensor is the prediction of this loss
  loss.backward();
}

void transformBackInserter(torch::nn::Linear head, const std::vector<torch::Tensor> &samples,
                           torch::Tensor target) {
  std::vector<double> scores;
  std::transform(samples.begin(), samples.end(), std::back_inserter(scores),
                 [&](const torch::Tensor &s) { return head(s).sum().item<double>(); });
  auto loss = torch::mse_loss(torch::tensor(scores), target);
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:69: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: the new tensor is the prediction of this loss
  loss.backward();
}

// Negative: the lambda reads values of tensors without history.
void transformConstants(torch::nn::Linear head, torch::Tensor x, torch::Tensor target) {
  std::vector<torch::Tensor> weights = {torch::ones({1}), torch::zeros({1})};
  std::vector<float> w(weights.size());
  std::transform(weights.begin(), weights.end(), w.begin(),
                 [](const torch::Tensor &t) { return t.item<float>(); });
  auto loss = torch::mse_loss(head(x) * torch::tensor(w).sum(), target);
  loss.backward();
}
