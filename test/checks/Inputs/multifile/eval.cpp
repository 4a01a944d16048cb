#include "project.h"

// Every caller (in trainer.cpp) holds a guard.
double evaluate(torch::nn::Linear &model, const Batches &data) {
  model->eval();
  double total = 0;
  for (const auto &batch : data)
    // WITHOUT: :[[@LINE+1]]:14: warning: module forward in an evaluation loop without a gradient-disabling guard
    total += model->forward(batch.first).sum().item<double>();
  return total;
}

// One caller (in trainer.cpp) holds none.
double validate(torch::nn::Linear &model, const Batches &data) {
  model->eval();
  double total = 0;
  for (const auto &batch : data)
    // BOTH: :[[@LINE+1]]:14: warning: module forward in an evaluation loop without a gradient-disabling guard
    total += model->forward(batch.first).sum().item<double>();
  return total;
}

// Puts the model back into training mode before returning.
double evaluate_and_restore(torch::nn::Linear &model, const Batches &data) {
  torch::NoGradGuard no_grad;
  model->eval();
  double total = 0;
  for (const auto &batch : data)
    total += model->forward(batch.first).sum().item<double>();
  model->train();
  return total;
}

// Trains through optimize() (steps.cpp, through train_step()): not an
// evaluation loop.
void finetune(torch::nn::Linear &model, torch::optim::SGD &opt,
              const Batches &data) {
  model->eval();
  for (const auto &batch : data) {
    // WITHOUT: :[[@LINE+1]]:16: warning: module forward in an evaluation loop without a gradient-disabling guard
    auto out = model->forward(batch.first);
    optimize(opt, torch::mse_loss(out, batch.second));
  }
}
