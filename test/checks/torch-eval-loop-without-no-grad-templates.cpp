// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

// Templates as written: a module of dependent type is recognised by how the
// template uses it (`->forward`, `->eval()`, `->parameters()`), whether or not
// the translation unit instantiates the template, with one diagnostic per
// template.

#include <torch/torch.h>

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// A trainer kept in a class template, never instantiated here.
template <class Model> class Trainer {
public:
  void validate(const Batches &batches) {
    model->eval();
    for (const auto &batch : batches) {
      auto out = model->forward(batch.first);
      // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: module forward in an evaluation loop without a gradient-disabling guard
      // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
      // CHECK-FIXES-NEXT: {{^}}    for (const auto &batch : batches) {{{$}}
    }
  }
  // `model(x)` through a dependent member the class uses as a module.
  double evaluate(const Batches &batches) {
    double correct = 0;
    for (const auto &batch : batches)
      correct += model(batch.first).sum().template item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: module forward in an evaluation loop
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
    return correct;
  }
  void train_epoch(const Batches &batches) {
    model->train();
    for (const auto &batch : batches) {
      auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
      opt->zero_grad();
      loss.backward();
      opt->step();
    }
  }
  // Guarded: silent.
  void test(const Batches &batches) {
    torch::NoGradGuard no_grad;
    model->eval();
    for (const auto &batch : batches)
      auto out = model->forward(batch.first);
  }

private:
  Model model;
  torch::optim::Optimizer *opt = nullptr;
};

// A function template, instantiated twice: one diagnostic, in the template.
template <class M> void infer_all(M &model, const Batches &batches) {
  model->eval();
  for (const auto &batch : batches) {
    auto out = model->forward(batch.first);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: module forward in an evaluation loop
    // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  }
}
void use_infer_all(torch::nn::Linear &a, torch::nn::Conv2d &b,
                   const Batches &batches) {
  infer_all(a, batches);
  infer_all(b, batches);
}

// --- Negative ----------------------------------------------------------------

// A dependent callable that the template never uses as a module: a metric, a
// callback. Not a forward.
template <class F> double evaluate_metric(F &&metric, const Batches &batches) {
  double total = 0;
  for (const auto &batch : batches)
    total += metric(batch.first, batch.second);
  return total;
}

// A dependent forward in a loop that also trains.
template <class Model> void fit(Model &model, torch::optim::Optimizer &opt,
                                const Batches &batches) {
  model->eval();
  for (const auto &batch : batches) {
    auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
    loss.backward();
    opt.step();
  }
}

// model->train() after eval(): the last mode change before the loop decides.
template <class Model> void run(Model &model, const Batches &batches) {
  model->eval();
  model->train();
  for (const auto &batch : batches)
    auto out = model->forward(batch.first);
}

// A member function of a class template called through the implicit `this`
// with a dependent result is no module (regression: this crashed).
template <typename T = int> class Seq {
public:
  torch::Tensor once(torch::Tensor h) { return h; }
  void step(const torch::Tensor &h, const torch::Tensor &y) {
    for (int i = 0; i < 2; ++i)
      torch::mse_loss(once(h), y).backward();
  }
};
