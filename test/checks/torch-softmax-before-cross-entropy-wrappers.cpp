// A loss written as a function, a lambda or a std::function of the project
// (`compute_loss(pred, target)`) takes what its callers pass: softmax output
// passed to one that applies cross_entropy to it is softmax twice.
// RUN: %check_torch_tidy %s torch-softmax-before-cross-entropy %t -- -- -isystem %mock_torch

#include <functional>
#include <torch/torch.h>

torch::Tensor compute_loss(const torch::Tensor &pred, const torch::Tensor &target) {
  return torch::nn::functional::cross_entropy(pred, target);
}

torch::Tensor weighted_loss(const torch::Tensor &pred, const torch::Tensor &target,
                            double weight) {
  return weight * compute_loss(pred, target);
}

torch::Tensor nll(const torch::Tensor &target, const torch::Tensor &log_probs) {
  torch::nn::NLLLoss criterion;
  return criterion(log_probs, target);
}

struct Net : torch::nn::Module {
  torch::nn::Linear fc{4, 3};
  torch::Tensor forward(torch::Tensor x) { return torch::softmax(fc(x), 1); }
};

// --- Positive ------------------------------------------------------------------

void helperTakesProbabilities(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  auto probs = torch::softmax(fc(x), 1);
  auto loss = compute_loss(probs, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-24]]:10: note: the loss is computed here on the argument
  // CHECK-MESSAGES: :[[@LINE-4]]:16: note: softmax applied here
  loss.backward();
}

void throughTwoHelpers(Net &net, torch::Tensor x, torch::Tensor y) {
  weighted_loss(net.forward(x), y, 0.5).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-32]]:10: note: the loss is computed here on the argument
  // CHECK-MESSAGES: :[[@LINE-18]]:51: note: softmax applied here
}

void nllOfLogits(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  nll(y, fc(x)).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: nll_loss applied to raw scores without log_softmax takes them for log-probabilities, so the loss is unbounded below; apply log_softmax first or use cross_entropy [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-29]]:10: note: the loss is computed here on the argument
  // CHECK-MESSAGES: :[[@LINE-3]]:10: note: raw scores computed here
}

void lambdaLoss(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  auto loss_fn = [](const torch::Tensor &p, const torch::Tensor &t) {
    return torch::nn::functional::cross_entropy(p, t);
  };
  loss_fn(torch::softmax(fc(x), 1), y).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-4]]:12: note: the loss is computed here on the argument
  // CHECK-MESSAGES: :[[@LINE-3]]:11: note: softmax applied here
}

void functionCriterion(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  std::function<torch::Tensor(const torch::Tensor &, const torch::Tensor &)> criterion =
      [](const torch::Tensor &p, const torch::Tensor &t) {
        return torch::nn::functional::cross_entropy(p, t);
      };
  auto out = torch::log_softmax(fc(x), 1);
  criterion(out, y).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: cross_entropy applies log_softmax itself, so the log_softmax before it is redundant; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-5]]:16: note: the loss is computed here on the argument
  // CHECK-MESSAGES: :[[@LINE-4]]:14: note: log_softmax applied here
}

// --- Negative twins ---------------------------------------------------------------

void helperTakesLogits(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  compute_loss(fc(x), y).backward();
}

void nllOfLogProbabilities(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  nll(y, torch::log_softmax(fc(x), 1)).backward();
}

// The helper turns its argument into log-probabilities itself.
torch::Tensor nll_of_scores(torch::Tensor scores, const torch::Tensor &target) {
  scores = torch::log_softmax(scores, 1);
  return torch::nn::functional::nll_loss(scores, target);
}
void helperNormalisesFirst(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  nll_of_scores(fc(x), y).backward();
}

// The probabilities go to the target side, not to the prediction.
void probabilitiesAsTarget(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  nll(torch::softmax(fc(x), 1), y);
}

// A helper that only reports accuracy from the probabilities.
double accuracy(const torch::Tensor &probs, const torch::Tensor &target) {
  return probs.argmax(1).eq(target).sum().item<double>();
}
void accuracyOfProbabilities(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  accuracy(torch::softmax(fc(x), 1), y);
}

// A std::function assigned a lambda on each path: the call may run either.
using LossFn = std::function<torch::Tensor(const torch::Tensor &, const torch::Tensor &)>;
void configuredCriterion(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y,
                         bool smooth) {
  LossFn criterion;
  if (smooth)
    criterion = [](const torch::Tensor &p, const torch::Tensor &t) {
      return torch::nn::functional::cross_entropy(p, t);
    };
  else
    criterion = [](const torch::Tensor &p, const torch::Tensor &t) {
      return torch::nn::functional::mse_loss(p, t);
    };
  auto out = torch::softmax(fc(x), 1);
  criterion(out, y).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-9]]:14: note: the loss is computed here on the argument
  // CHECK-MESSAGES: :[[@LINE-4]]:14: note: softmax applied here
}

// Negative: a criterion assigned a function of elsewhere is not known.
LossFn make_criterion();
void unknownCriterion(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  LossFn criterion;
  criterion = [](const torch::Tensor &p, const torch::Tensor &t) {
    return torch::nn::functional::cross_entropy(p, t);
  };
  criterion = make_criterion();
  criterion(torch::softmax(fc(x), 1), y).backward();
}

// --- A harness whose callbacks are members assigned elsewhere ---------------------

struct Harness {
  std::function<torch::Tensor(const torch::Tensor &)> forward;
  std::function<torch::Tensor(const torch::Tensor &, const torch::Tensor &)> criterion;
  torch::optim::Optimizer *optimizer = nullptr;
  void fit(const torch::Tensor &x, const torch::Tensor &y) {
    for (int e = 0; e < 10; ++e) {
      optimizer->zero_grad();
      auto loss = criterion(forward(x), y);
      // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: nll_loss applied to softmax output takes probabilities for log-probabilities, so the loss goes negative and stops training; use log_softmax [torch-softmax-before-cross-entropy]
      // CHECK-MESSAGES: :[[@LINE+15]]:12: note: the loss is computed here on the argument
      // CHECK-MESSAGES: :[[@LINE+12]]:53: note: softmax applied here
      loss.backward();
      optimizer->step();
    }
  }
};

void harnessWithSoftmax(torch::nn::Linear &backbone, torch::optim::SGD &opt,
                        torch::Tensor x, torch::Tensor y) {
  torch::nn::NLLLoss nll;
  Harness h;
  h.optimizer = &opt;
  h.forward = [&](const torch::Tensor &in) { return backbone(in).softmax(1); };
  h.criterion = [&](const torch::Tensor &probs, const torch::Tensor &target) {
    return nll(probs, target);
  };
  h.fit(x, y);
}

struct LogHarness {
  std::function<torch::Tensor(const torch::Tensor &)> forward;
  std::function<torch::Tensor(const torch::Tensor &, const torch::Tensor &)> criterion;
  void fit(const torch::Tensor &x, const torch::Tensor &y) {
    criterion(forward(x), y).backward();
  }
};

// Negative: the forward callback ends in log_softmax, as NLLLoss expects.
void harnessWithLogSoftmax(torch::nn::Linear &backbone, torch::Tensor x,
                           torch::Tensor y) {
  torch::nn::NLLLoss nll;
  LogHarness h;
  h.forward = [&](const torch::Tensor &in) {
    return torch::log_softmax(backbone(in), 1);
  };
  h.criterion = [&](const torch::Tensor &probs, const torch::Tensor &target) {
    return nll(probs, target);
  };
  h.fit(x, y);
}
