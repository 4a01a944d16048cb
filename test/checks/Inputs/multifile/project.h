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

// Defined in steps.cpp: a module that keeps its recurrent state between
// forward() calls (h_ = cell(x, h_), never detached).
struct RecurrentImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
  void reset_state();
  torch::nn::RNNCell cell{4, 8};
  torch::Tensor h_;
};
TORCH_MODULE(Recurrent);

// Defined in losses.cpp: a forward that returns what sigmoid saved.
struct GateImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Linear fc{4, 4};
};
TORCH_MODULE(Gate);

// losses.cpp: a value read out of the critic's own output.
float value_of(torch::nn::Linear &critic, const torch::Tensor &state);
