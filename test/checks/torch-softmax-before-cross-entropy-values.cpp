// What a prediction is, one statement at a time: a variable holds the value
// its last assignment on the path gave it (`out = log_softmax(out, 1)`), a
// convolution head's output is raw scores like a linear layer's, and a loss
// module of the project's own takes what its callers pass, through the views
// it makes of its parameter.
// RUN: %check_torch_tidy %s torch-softmax-before-cross-entropy %t -- -- -isystem %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

// A segmentation loss module: views of the scores, then cross_entropy.
struct CrossEntropy2dImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor predict, torch::Tensor target) {
    predict = predict.permute({0, 2, 3, 1}).contiguous();
    predict = predict.view({-1, 21});
    return F::cross_entropy(predict, target.view({-1}));
  }
};
TORCH_MODULE(CrossEntropy2d);

// The same module, applying log_softmax itself before nll_loss: right for
// scores, and its parameter is no longer what reaches the loss.
struct Nll2dImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor predict, torch::Tensor target) {
    predict = predict.view({-1, 21});
    predict = torch::log_softmax(predict, 1);
    return F::nll_loss(predict, target);
  }
};
TORCH_MODULE(Nll2d);

// --- Positive ------------------------------------------------------------------

torch::Tensor reassignedThenLoss(torch::nn::Linear mlp, torch::Tensor x,
                                 torch::Tensor y) {
  auto output = mlp(x);
  output = torch::log_softmax(output, 1);
  return F::cross_entropy(output, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applies log_softmax itself, so the log_softmax before it is redundant; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: log_softmax applied here
}

torch::Tensor convScoresToNll(torch::nn::Conv2d head, torch::Tensor x,
                              torch::Tensor y) {
  auto scores = head(x);
  return F::nll_loss(scores.permute({0, 2, 3, 1}), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: nll_loss applied to raw scores without log_softmax takes them for log-probabilities, so the loss is unbounded below; apply log_softmax first or use cross_entropy [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-3]]:17: note: raw scores computed here
}

torch::Tensor lossModuleTakesLogProbabilities(torch::nn::Conv2d head,
                                              torch::Tensor x, torch::Tensor y) {
  torch::nn::LogSoftmax m(1);
  CrossEntropy2d criterion;
  auto pred = m(head(x));
  return criterion(pred, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applies log_softmax itself, so the log_softmax before it is redundant; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-42]]:12: note: the loss is computed here on the argument
  // CHECK-MESSAGES: :[[@LINE-4]]:15: note: log_softmax applied here
}

// --- Negative twins ---------------------------------------------------------------

torch::Tensor reassignedToLogProbabilitiesForNll(torch::nn::Linear mlp,
                                                 torch::Tensor x, torch::Tensor y) {
  auto output = mlp(x);
  output = torch::log_softmax(output, 1);
  return F::nll_loss(output, y);
}

torch::Tensor reassignedBackToScores(torch::nn::Linear mlp, torch::Tensor x,
                                     torch::Tensor y) {
  auto output = torch::log_softmax(mlp(x), 1);
  output = mlp(x);
  return F::cross_entropy(output, y);
}

torch::Tensor convScoresToCrossEntropy(torch::nn::Conv2d head, torch::Tensor x,
                                       torch::Tensor y) {
  return F::cross_entropy(head(x), y);
}

torch::Tensor lossModuleTakesScores(torch::nn::Conv2d head, torch::Tensor x,
                                    torch::Tensor y) {
  CrossEntropy2d criterion;
  return criterion(head(x), y);
}

torch::Tensor nllModuleTakesScores(torch::nn::Conv2d head, torch::Tensor x,
                                   torch::Tensor y) {
  Nll2d criterion;
  return criterion(head(x), y);
}

// Log-probabilities on one path only: what reaches the loss is not known.
torch::Tensor logSoftmaxOnOnePath(torch::nn::Linear mlp, torch::Tensor x,
                                  torch::Tensor y, bool calibrated) {
  auto output = mlp(x);
  if (calibrated)
    output = torch::log_softmax(output, 1);
  return F::cross_entropy(output, y);
}
