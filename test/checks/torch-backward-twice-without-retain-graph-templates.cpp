// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// A trainer kept in a class template: diagnosed once, in the written form,
// although it is instantiated twice below.
template <typename Model> struct Trainer {
  Model model;
  void step(torch::Tensor x) {
    torch::Tensor loss = model->forward(x).sum();
    loss.backward();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: second backward pass through the graph of 'loss'
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the first pass
    // CHECK-FIXES: {{^}}    loss.backward({}, /*retain_graph=*/true);{{$}}
  }
};

// Never instantiated here, with a loss of dependent type: the written form is
// checked when the loss evidently has history (a dependent module's forward).
template <typename Model> struct Fitter {
  Model model;
  void step(const torch::Tensor &x) {
    auto loss = model->forward(x).sum();
    loss.backward();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: second backward pass through the graph of 'loss'
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the first pass
    // (No fix-it: the pass's parameters are unknown until instantiation.)
  }
  // A dependent object whose history nothing shows: silent.
  template <class L> void unknown(L &l) {
    l.backward();
    l.backward();
  }
};

template <typename T> void twice(const torch::Tensor &loss, T) {
  loss.backward();
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass
  // CHECK-FIXES: {{^}}  loss.backward({}, /*retain_graph=*/true);{{$}}
}

void instantiate(torch::Tensor x) {
  Trainer<torch::nn::Linear> a;
  a.step(x);
  Trainer<torch::nn::Sequential> b;
  b.step(x);
  twice(x, 1);
  twice(x, 2.0);
}

// Dependent retain_graph: unknown, so silent.
template <bool Retain> void maybe_retained(torch::nn::Linear &model,
                                           torch::Tensor x) {
  auto loss = model(x).sum();
  loss.backward({}, Retain);
  loss.backward();
}
template void maybe_retained<true>(torch::nn::Linear &, torch::Tensor);

// Macros: the diagnostic is reported at the expansion; no fix-it is offered
// inside a macro body.
#define BACKPROP(t) (t).backward()
void in_macro(torch::nn::Linear &model, torch::Tensor x) {
  auto loss = model(x).sum();
  BACKPROP(loss);
  BACKPROP(loss);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass
}

// The first pass written directly, the second through a macro: the fix-it
// edits the first pass, outside the macro.
void first_outside_macro(torch::nn::Linear &model, torch::Tensor x) {
  auto loss = model(x).sum();
  loss.backward();
  BACKPROP(loss);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass
  // CHECK-FIXES: {{^}}  loss.backward({}, /*retain_graph=*/true);{{$}}
}

// NOLINT is honoured.
void suppressed(torch::nn::Linear &model, torch::Tensor x) {
  auto loss = model(x).sum();
  loss.backward();
  loss.backward(); // NOLINT(torch-backward-twice-without-retain-graph)
}
