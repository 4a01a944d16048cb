// A forward or helper that returns several tensors in a struct or a tuple
// (`return {logits, torch::softmax(logits, 1)};`): the field or element the
// loss reads is what was built in its place.
// RUN: %check_torch_tidy %s torch-softmax-before-cross-entropy %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <tuple>

struct Output {
  torch::Tensor logits;
  torch::Tensor probs;
};

struct StructNet : torch::nn::Module {
  torch::nn::Linear fc{4, 3};
  Output forward(torch::Tensor x) {
    auto logits = fc(x);
    return {logits, torch::softmax(logits, 1)};
  }
};

struct TupleNet : torch::nn::Module {
  torch::nn::Linear fc{4, 3};
  std::tuple<torch::Tensor, torch::Tensor> forward(torch::Tensor x) {
    auto logits = fc(x);
    return std::make_tuple(torch::log_softmax(logits, 1), logits);
  }
};

Output heads(torch::nn::Linear &fc, const torch::Tensor &x) {
  auto z = fc(x);
  return Output{z, torch::softmax(z, 1)};
}

// --- Positive ------------------------------------------------------------------

void structField(StructNet &net, torch::Tensor x, torch::Tensor y) {
  torch::nn::CrossEntropyLoss criterion;
  Output out = net.forward(x);
  criterion(out.probs, y).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-24]]:21: note: softmax applied here
}

void tupleGet(TupleNet &net, torch::Tensor x, torch::Tensor y) {
  auto out = net.forward(x);
  torch::nn::functional::cross_entropy(std::get<0>(out), y).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: cross_entropy applies log_softmax itself, so the log_softmax before it is redundant; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-23]]:28: note: log_softmax applied here
}

void structuredBinding(StructNet &net, torch::Tensor x, torch::Tensor y) {
  auto [logits, probs] = net.forward(x);
  torch::nn::functional::cross_entropy(probs, y).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-38]]:21: note: softmax applied here
}

void helperStruct(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  torch::nn::functional::nll_loss(heads(fc, x).probs, y).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: nll_loss applied to softmax output takes probabilities for log-probabilities, so the loss goes negative and stops training; use log_softmax [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-30]]:20: note: softmax applied here
}

// --- Negative twins ---------------------------------------------------------------

void structLogits(StructNet &net, torch::Tensor x, torch::Tensor y) {
  torch::nn::CrossEntropyLoss criterion;
  Output out = net.forward(x);
  criterion(out.logits, y).backward();
}

void tupleLogits(TupleNet &net, torch::Tensor x, torch::Tensor y) {
  auto out = net.forward(x);
  torch::nn::functional::cross_entropy(std::get<1>(out), y).backward();
}

void tupleLogProbabilitiesNll(TupleNet &net, torch::Tensor x, torch::Tensor y) {
  auto [log_probs, logits] = net.forward(x);
  torch::nn::functional::nll_loss(log_probs, y).backward();
}

// The struct is changed after the call: its field is not known.
void fieldReplaced(StructNet &net, torch::Tensor x, torch::Tensor y) {
  Output out = net.forward(x);
  out = Output{net.fc(x), net.fc(x)};
  torch::nn::functional::cross_entropy(out.probs, y).backward();
}
