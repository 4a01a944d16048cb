// RUN: %check_torch_tidy %s torch-softmax-before-cross-entropy %t -- -- -isystem %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

// --- cross_entropy on softmax output: softmax twice --------------------------

torch::Tensor ce_function(const torch::Tensor &logits, const torch::Tensor &y) {
  return F::cross_entropy(torch::softmax(logits, 1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-FIXES: {{^}}  return F::cross_entropy(logits, y);{{$}}
}

torch::Tensor ce_method(const torch::Tensor &logits, const torch::Tensor &y) {
  return F::cross_entropy(logits.softmax(1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applied to softmax output
  // CHECK-FIXES: {{^}}  return F::cross_entropy(logits, y);{{$}}
}

torch::Tensor ce_functional_softmax(const torch::Tensor &a, const torch::Tensor &b,
                                    const torch::Tensor &y) {
  return F::cross_entropy(F::softmax(a + b, F::SoftmaxFuncOptions(1)), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applied to softmax output
  // CHECK-FIXES: {{^}}  return F::cross_entropy(a + b, y);{{$}}
}

torch::Tensor ce_loss_aten(const torch::Tensor &logits, const torch::Tensor &y) {
  return torch::cross_entropy_loss((logits * 2).softmax(-1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applied to softmax output
  // CHECK-FIXES: {{^}}  return torch::cross_entropy_loss((logits * 2), y);{{$}}
}

torch::Tensor ce_module(torch::nn::CrossEntropyLoss &criterion,
                        const torch::Tensor &logits, const torch::Tensor &y) {
  auto a = criterion(torch::softmax(logits, 1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: cross_entropy applied to softmax output
  // CHECK-FIXES: {{^}}  auto a = criterion(logits, y);{{$}}
  auto b = criterion->forward(logits.softmax(1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: cross_entropy applied to softmax output
  // CHECK-FIXES: {{^}}  auto b = criterion->forward(logits, y);{{$}}
  return a + b;
}

// Through a local variable: reported with a note, no fix-it (the variable
// may have other uses).
torch::Tensor ce_variable(torch::nn::Linear &fc, const torch::Tensor &x,
                          const torch::Tensor &y) {
  torch::Tensor probs = torch::softmax(fc(x), 1);
  auto flat = probs.view({-1, 10});
  return F::cross_entropy(flat, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applied to softmax output
  // CHECK-MESSAGES: :[[@LINE-4]]:25: note: softmax applied here
}

// A dtype argument: dropping the softmax would drop the conversion too.
torch::Tensor ce_dtype(const torch::Tensor &logits, const torch::Tensor &y) {
  return F::cross_entropy(torch::softmax(logits, 1, c10::ScalarType::Float), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applied to softmax output
}

// --- cross_entropy on log_softmax output: redundant ----------------------------

torch::Tensor ce_log_softmax(const torch::Tensor &logits, const torch::Tensor &y) {
  return F::cross_entropy(torch::log_softmax(logits, 1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applies log_softmax itself, so the log_softmax before it is redundant; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-FIXES: {{^}}  return F::cross_entropy(logits, y);{{$}}
}

// --- nll_loss on softmax output or on raw scores --------------------------------

torch::Tensor nll_softmax(const torch::Tensor &logits, const torch::Tensor &y) {
  return torch::nll_loss(torch::softmax(logits, 1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: nll_loss applied to softmax output takes probabilities for log-probabilities, so the loss goes negative and stops training; use log_softmax [torch-softmax-before-cross-entropy]
  // CHECK-FIXES: {{^}}  return torch::nll_loss(torch::log_softmax(logits, 1), y);{{$}}
}

torch::Tensor nll_softmax_method(const torch::Tensor &logits, const torch::Tensor &y) {
  return F::nll_loss(logits.softmax(/*dim=*/1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: nll_loss applied to softmax output
  // CHECK-FIXES: {{^}}  return F::nll_loss(logits.log_softmax(/*dim=*/1), y);{{$}}
}

// F::softmax takes SoftmaxFuncOptions, F::log_softmax LogSoftmaxFuncOptions:
// no fix-it.
torch::Tensor nll_functional(const torch::Tensor &logits, const torch::Tensor &y) {
  return F::nll_loss(F::softmax(logits, F::SoftmaxFuncOptions(1)), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: nll_loss applied to softmax output
}

torch::Tensor nll_module(torch::nn::NLLLoss &criterion, const torch::Tensor &logits,
                         const torch::Tensor &y) {
  return criterion(torch::softmax(logits, 1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: nll_loss applied to softmax output
  // CHECK-FIXES: {{^}}  return criterion(torch::log_softmax(logits, 1), y);{{$}}
}

torch::Tensor nll_raw_linear(torch::nn::Linear &fc, const torch::Tensor &x,
                             const torch::Tensor &y) {
  return F::nll_loss(fc(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: nll_loss applied to raw scores without log_softmax takes them for log-probabilities, so the loss is unbounded below; apply log_softmax first or use cross_entropy [torch-softmax-before-cross-entropy]
}

torch::Tensor nll_raw_function(const torch::Tensor &x, const torch::Tensor &w,
                               const torch::Tensor &y) {
  auto scores = torch::linear(x, w);
  return torch::nll_loss(scores, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: nll_loss applied to raw scores without log_softmax
  // CHECK-MESSAGES: :[[@LINE-3]]:17: note: raw scores computed here
}

// A user module: what its forward returns.
struct ClassifierImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc{4, 3};
};
TORCH_MODULE(Classifier);

struct SoftmaxNetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) {
    auto h = fc(x);
    return torch::softmax(h, 1);
  }
  torch::nn::Linear fc{4, 3};
};
TORCH_MODULE(SoftmaxNet);

struct LogSoftmaxNetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) {
    return torch::log_softmax(fc(x), /*dim=*/1);
  }
  torch::nn::Linear fc{4, 3};
};
TORCH_MODULE(LogSoftmaxNet);

void user_modules(Classifier &c, SoftmaxNet &s, LogSoftmaxNet &l,
                  const torch::Tensor &x, const torch::Tensor &y) {
  auto a = torch::nll_loss(c(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: nll_loss applied to raw scores without log_softmax
  // CHECK-MESSAGES: :[[@LINE-26]]:58: note: raw scores computed here
  auto b = F::cross_entropy(s->forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: cross_entropy applied to softmax output
  // CHECK-MESSAGES: :[[@LINE-21]]:12: note: softmax applied here
  // The canonical MNIST example: log_softmax in forward, nll_loss outside.
  auto c2 = torch::nll_loss(l(x), y);
  auto d = F::cross_entropy(c(x), y);
}

// --- Not flagged ----------------------------------------------------------------

void negatives(torch::nn::Linear &fc, const torch::Tensor &x, const torch::Tensor &logits,
               const torch::Tensor &y, torch::nn::CrossEntropyLoss &ce,
               torch::nn::NLLLoss &nll, const torch::Tensor &unknown) {
  F::cross_entropy(logits, y);
  F::cross_entropy(fc(x), y);
  ce(fc(x), y);
  torch::nll_loss(torch::log_softmax(logits, 1), y);
  F::nll_loss(F::log_softmax(fc(x), F::LogSoftmaxFuncOptions(1)), y);
  nll(logits.log_softmax(1), y);
  // An unknown tensor: maybe log-probabilities already.
  torch::nll_loss(unknown, y);
  // log(softmax) is log-probabilities (numerically weaker, not wrong).
  torch::nll_loss(torch::softmax(logits, 1).log(), y);
  // A variable assigned twice: not followed.
  auto p = torch::softmax(logits, 1);
  p = torch::log_softmax(logits, 1);
  torch::nll_loss(p, y);
  // softmax elsewhere, for metrics.
  auto probs = torch::softmax(logits, 1);
  F::cross_entropy(logits, y);
  // Other losses on probabilities are fine.
  torch::binary_cross_entropy(torch::sigmoid(logits), y);
  F::mse_loss(torch::softmax(logits, 1), y);
  // target is not the prediction.
  F::cross_entropy(logits, torch::softmax(y, 1));
}

// A user function that shares the name.
namespace mine {
torch::Tensor cross_entropy(const torch::Tensor &p, const torch::Tensor &y);
torch::Tensor softmax(const torch::Tensor &x, int dim);
} // namespace mine
void user_names(const torch::Tensor &logits, const torch::Tensor &y) {
  mine::cross_entropy(torch::softmax(logits, 1), y);
  F::cross_entropy(mine::softmax(logits, 1), y);
}

// --- Templates, macros, lambdas, NOLINT -------------------------------------------

template <typename T>
torch::Tensor templated(const T &logits, const torch::Tensor &y) {
  return F::cross_entropy(torch::softmax(logits, 1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applied to softmax output
  // CHECK-FIXES: {{^}}  return F::cross_entropy(logits, y);{{$}}
}
template torch::Tensor templated(const torch::Tensor &, const torch::Tensor &);

template <typename T>
torch::Tensor templated_dependent(const T &logits, const torch::Tensor &y) {
  return torch::nll_loss(logits.softmax(1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: nll_loss applied to softmax output
  // CHECK-FIXES: {{^}}  return torch::nll_loss(logits.log_softmax(1), y);{{$}}
}
template torch::Tensor templated_dependent(const torch::Tensor &, const torch::Tensor &);

#define CE_OF_SOFTMAX(x, y) F::cross_entropy(torch::softmax(x, 1), y)
torch::Tensor macro(const torch::Tensor &logits, const torch::Tensor &y) {
  return CE_OF_SOFTMAX(logits, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: cross_entropy applied to softmax output
}

void lambda(const torch::Tensor &logits, const torch::Tensor &y) {
  auto loss = [&](const torch::Tensor &z) {
    return F::cross_entropy(torch::softmax(z, 1), y);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: cross_entropy applied to softmax output
    // CHECK-FIXES: {{^}}    return F::cross_entropy(z, y);{{$}}
  };
  loss(logits);
}

torch::Tensor suppressed(const torch::Tensor &logits, const torch::Tensor &y) {
  return F::cross_entropy(torch::softmax(logits, 1), y); // NOLINT(torch-softmax-before-cross-entropy)
}
