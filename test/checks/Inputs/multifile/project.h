// A small project in several files: the training loop in trainer.cpp, its
// helpers in losses.cpp and steps.cpp, the evaluation in eval.cpp. Used by
// test/checks/torch-summaries-*.test and test/tools/*summaries*.test.
#pragma once
#include <torch/torch.h>
#include <utility>
#include <vector>

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// losses.cpp
torch::Tensor compute_loss(torch::nn::Linear &model, const torch::Tensor &x,
                           const torch::Tensor &y);   // a forward and a loss
torch::Tensor detached_loss(torch::nn::Linear &model, const torch::Tensor &x,
                            const torch::Tensor &y);  // the same, detached
torch::Tensor rebuild(const torch::Tensor &t);        // from t's values
torch::Tensor rebuild_twice(const torch::Tensor &t);  // through rebuild()

// steps.cpp
void train_step(torch::optim::SGD &opt, torch::Tensor loss); // backward, step
void optimize(torch::optim::SGD &opt, torch::Tensor loss);   // through train_step
void clear_grads(torch::optim::SGD &opt);                    // zero_grad()
void log_metrics(torch::nn::Linear &model, torch::optim::SGD &opt); // clears nothing

// eval.cpp
double evaluate(torch::nn::Linear &model, const Batches &data);
double validate(torch::nn::Linear &model, const Batches &data);
double evaluate_and_restore(torch::nn::Linear &model, const Batches &data);
void finetune(torch::nn::Linear &model, torch::optim::SGD &opt,
              const Batches &data);
