// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

// What the callers in the translation unit show: a function whose every call
// runs under a gradient-disabling guard records nothing; a function whose
// result a caller backpropagates is part of training, whatever its name.

#include <torch/torch.h>

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// --- Negative ----------------------------------------------------------------

// Every caller holds a guard around the call.
double validate(torch::nn::Linear &model, const Batches &batches) {
  model->eval();
  double total = 0;
  for (const auto &batch : batches)
    total += model->forward(batch.first).sum().item<double>();
  return total;
}
void after_epoch(torch::nn::Linear &model, const Batches &batches) {
  torch::NoGradGuard no_grad;
  validate(model, batches);
}
void report(torch::nn::Linear &model, const Batches &batches) {
  torch::NoGradGuard no_grad;
  auto run = [&] { return validate(model, batches); };
  run();
}

// Named like an evaluation, but the training path backpropagates its result.
class Seq2Seq {
public:
  torch::Tensor PredictSequence(torch::Tensor h, int steps) {
    for (int i = 0; i < steps; ++i)
      h = decoder->forward(h);
    return h;
  }
  void train_step(const torch::Tensor &h, const torch::Tensor &target) {
    auto prediction = PredictSequence(h, 4);
    auto loss = torch::mse_loss(prediction, target);
    loss.backward();
  }
  torch::Tensor predict_once(torch::Tensor h) {
    for (int i = 0; i < 2; ++i)
      h = decoder->forward(h);
    return h;
  }
  void train_inline(const torch::Tensor &h, const torch::Tensor &target) {
    torch::mse_loss(predict_once(h), target).backward();
  }

private:
  torch::nn::Linear decoder{nullptr};
};

// --- Positive ----------------------------------------------------------------

// One caller without a guard is enough.
double test_accuracy(torch::nn::Linear &model, const Batches &batches) {
  model->eval();
  double total = 0;
  for (const auto &batch : batches)
    total += model->forward(batch.first).sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward in an evaluation loop
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  return total;
}
void guarded_caller(torch::nn::Linear &model, const Batches &batches) {
  torch::NoGradGuard no_grad;
  test_accuracy(model, batches);
}
void unguarded_caller(torch::nn::Linear &model, const Batches &batches) {
  test_accuracy(model, batches);
}

// Named for prediction, and no caller backpropagates the result.
torch::Tensor predict(torch::nn::Linear &model, torch::Tensor h, int steps) {
  for (int i = 0; i < steps; ++i)
    h = model->forward(h);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: module forward in an evaluation loop
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  return h;
}
void serve(torch::nn::Linear &model, const torch::Tensor &h) {
  auto out = predict(model, h, 3);
  float value = out.sum().item<float>();
  (void)value;
}
