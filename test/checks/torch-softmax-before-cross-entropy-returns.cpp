// RUN: %check_torch_tidy %s torch-softmax-before-cross-entropy %t -- -- -isystem %mock_torch

// What a function returns: a module's forward (also defined out of line, its
// value built one statement at a time), a helper, a lambda, a std::function
// in a local or a member.

#include <torch/torch.h>

#include <functional>

namespace F = torch::nn::functional;

struct ClassifierImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Linear fc{4, 2};
};
TORCH_MODULE(Classifier);

torch::Tensor ClassifierImpl::forward(torch::Tensor x) {
  x = fc(x);
  x = torch::softmax(x, 1);
  // The note on the softmax above comes with the warning below.
  return x;
}

struct LogClassifierImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Linear fc{4, 2};
};
TORCH_MODULE(LogClassifier);

torch::Tensor LogClassifierImpl::forward(torch::Tensor x) {
  x = fc(x);
  x = torch::log_softmax(x, 1);
  return x;
}

struct MaybeSoftmax : torch::nn::Module {
  bool probabilities = false;
  torch::Tensor forward(torch::Tensor x) {
    x = fc(x);
    if (probabilities)
      x = torch::softmax(x, 1);
    return x;
  }
  torch::nn::Linear fc{4, 2};
};

torch::Tensor probabilities_of(torch::nn::Linear &fc, const torch::Tensor &x) {
  auto h = fc(x);
  return h.softmax(1);
  // The note on the softmax above comes with the warning below.
}

torch::Tensor log_probabilities_of(torch::nn::Linear &fc, const torch::Tensor &x) {
  return torch::log_softmax(fc(x), 1);
}

torch::Tensor either(torch::nn::Linear &fc, const torch::Tensor &x, bool log) {
  if (log)
    return torch::log_softmax(fc(x), 1);
  return torch::softmax(fc(x), 1);
}

struct Trainer {
  torch::nn::Linear fc{4, 2};
  std::function<torch::Tensor(torch::Tensor)> head = [this](torch::Tensor t) {
    return torch::softmax(fc(t), 1);
    // The note on the softmax above comes with the warning below.
  };
  std::function<torch::Tensor(torch::Tensor)> log_head = [this](torch::Tensor t) {
    return torch::log_softmax(fc(t), 1);
  };

  void step(Classifier &net, LogClassifier &log_net, MaybeSoftmax &maybe,
            torch::Tensor x, torch::Tensor y) {
    // --- Flagged
    auto a = F::cross_entropy(net(x), y);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: cross_entropy applied to softmax output applies softmax twice
    // CHECK-MESSAGES: :21:7: note: softmax applied here
    torch::nn::NLLLoss nll;
    auto b = nll(net->forward(x), y);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: nll_loss applied to softmax output takes probabilities for log-probabilities
    // CHECK-MESSAGES: :21:7: note: softmax applied here
    auto c = torch::nll_loss(probabilities_of(fc, x), y);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: nll_loss applied to softmax output
    // CHECK-MESSAGES: :51:10: note: softmax applied here
    auto scores = [&](const torch::Tensor &t) { return torch::softmax(fc(t), 1); };
    // The note on the softmax above comes with the warning below.
    torch::nn::CrossEntropyLoss criterion;
    auto d = criterion(scores(x), y);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: cross_entropy applied to softmax output
    // CHECK-MESSAGES: :[[@LINE-5]]:56: note: softmax applied here
    std::function<torch::Tensor(const torch::Tensor &)> local =
        [&](const torch::Tensor &t) { return fc(t).softmax(-1); };
    // The note on the softmax above comes with the warning below.
    auto e = F::cross_entropy(local(x), y);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: cross_entropy applied to softmax output
    // CHECK-MESSAGES: :[[@LINE-4]]:46: note: softmax applied here
    auto f = F::cross_entropy(head(x), y);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: cross_entropy applied to softmax output
    // CHECK-MESSAGES: :68:12: note: softmax applied here

    // --- Not flagged: log-probabilities to nll_loss, logits to cross_entropy,
    // returns that disagree or are not known
    auto g = nll(log_net->forward(x), y);
    auto h = F::nll_loss(log_probabilities_of(fc, x), y);
    auto i = F::cross_entropy(maybe.forward(x), y);
    auto j = torch::nll_loss(either(fc, x, true), y);
    auto logits = [&](const torch::Tensor &t) { return fc(t); };
    auto k = criterion(logits(x), y);
    std::function<torch::Tensor(const torch::Tensor &)> log_local =
        [&](const torch::Tensor &t) { return fc(t).log_softmax(-1); };
    auto l = nll(log_local(x), y);
    auto m = nll(log_head(x), y);
    auto n = F::cross_entropy(metric_input(x), y);
  }
  torch::Tensor metric_input(const torch::Tensor &x);
};
