// Several optimizers kept in a container and stepped (or cleared) in a loop
// over it: the training loop is the one around that loop, and the loop
// variable refers to optimizers that live across iterations.
// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

#include <memory>
#include <torch/torch.h>
#include <vector>

// --- Positive ------------------------------------------------------------------

void stepEach(torch::nn::Linear enc, torch::nn::Linear dec, torch::Tensor x) {
  std::vector<std::unique_ptr<torch::optim::Optimizer>> optimizers;
  optimizers.push_back(std::make_unique<torch::optim::SGD>(enc->parameters(), 0.1));
  optimizers.push_back(std::make_unique<torch::optim::SGD>(dec->parameters(), 0.1));
  for (int epoch = 0; epoch < 100; ++epoch) {
    auto loss = dec->forward(enc->forward(x)).sum();
    loss.backward();
    for (auto &o : optimizers)
      o->step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer step in a training loop that never clears gradients: each backward() adds to the gradients of all earlier iterations; call zero_grad() on the optimizer in every iteration before backward() [torch-missing-zero-grad]
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

void stepEachPointer(std::vector<torch::optim::SGD *> &optimizers,
                     torch::nn::Linear model, torch::Tensor x) {
  for (int epoch = 0; epoch < 100; ++epoch) {
    model->forward(x).sum().backward();
    for (auto *o : optimizers)
      o->step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer step in a training loop that never clears gradients: each backward() adds to the gradients of all earlier iterations; call zero_grad() on the optimizer in every iteration before backward() [torch-missing-zero-grad]
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

// --- Negative twins ---------------------------------------------------------------

void clearEachThenStepEach(torch::nn::Linear enc, torch::nn::Linear dec,
                           torch::Tensor x) {
  std::vector<std::unique_ptr<torch::optim::Optimizer>> optimizers;
  optimizers.push_back(std::make_unique<torch::optim::SGD>(enc->parameters(), 0.1));
  optimizers.push_back(std::make_unique<torch::optim::SGD>(dec->parameters(), 0.1));
  for (int epoch = 0; epoch < 100; ++epoch) {
    for (auto &o : optimizers)
      o->zero_grad();
    auto loss = dec->forward(enc->forward(x)).sum();
    loss.backward();
    for (auto &o : optimizers)
      o->step();
  }
}

void clearedThroughTheModel(std::vector<torch::optim::SGD *> &optimizers,
                            torch::nn::Linear model, torch::Tensor x) {
  for (int epoch = 0; epoch < 100; ++epoch) {
    model->zero_grad();
    model->forward(x).sum().backward();
    for (auto *o : optimizers)
      o->step();
  }
}
