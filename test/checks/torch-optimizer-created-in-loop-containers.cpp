// Parameters gathered into a container inside the loop before the optimizer
// is built from it: what was put into the container decides whose
// parameters they are (a trainable filter over model->parameters(), param
// groups per sub-module).
// RUN: %check_torch_tidy %s torch-optimizer-created-in-loop %t -- -- -isystem %mock_torch

#include <memory>
#include <torch/torch.h>
#include <vector>

// --- Positive ------------------------------------------------------------------

void trainableFilter(torch::nn::Linear model, torch::Tensor x) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    std::vector<torch::Tensor> trainable;
    for (auto &p : model->parameters())
      if (p.requires_grad())
        trainable.push_back(p);
    torch::optim::Adam opt(trainable, torch::optim::AdamOptions(1e-3));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop [torch-optimizer-created-in-loop]
    // CHECK-MESSAGES: :[[@LINE-8]]:40: note: its parameters come from 'model', which outlives the loop
    opt.zero_grad();
    model->forward(x).sum().backward();
    opt.step();
  }
}

void paramGroups(torch::nn::Linear encoder, torch::nn::Linear decoder,
                 torch::Tensor x) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(encoder->parameters());
    groups.emplace_back(decoder->parameters());
    torch::optim::Adam opt(groups, torch::optim::AdamOptions(1e-3));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop [torch-optimizer-created-in-loop]
    // CHECK-MESSAGES: :[[@LINE-8]]:36: note: its parameters come from 'encoder', which outlives the loop
    opt.zero_grad();
    decoder->forward(encoder->forward(x)).sum().backward();
    opt.step();
  }
}

// The groups moved into the optimizer, each with options of its own.
void movedParamGroups(torch::nn::Linear backbone, torch::nn::Linear head,
                      torch::Tensor x) {
  for (int step = 0; step < 100; ++step) {
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(backbone->parameters(),
                        std::make_unique<torch::optim::AdamOptions>(1e-5));
    groups.emplace_back(head->parameters(),
                        std::make_unique<torch::optim::AdamOptions>(1e-3));
    torch::optim::Adam opt(std::move(groups), torch::optim::AdamOptions(1e-3));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop [torch-optimizer-created-in-loop]
    // CHECK-MESSAGES: :[[@LINE-10]]:41: note: its parameters come from 'backbone', which outlives the loop
    opt.zero_grad();
    head->forward(backbone->forward(x)).sum().backward();
    opt.step();
  }
}

// --- Negative twins ---------------------------------------------------------------

// A fresh model each iteration: its parameters are new too.
void freshModelFiltered(torch::Tensor x) {
  for (int trial = 0; trial < 10; ++trial) {
    torch::nn::Linear model(4, 1);
    std::vector<torch::Tensor> trainable;
    for (auto &p : model->parameters())
      trainable.push_back(p);
    torch::optim::Adam opt(trainable, torch::optim::AdamOptions(1e-3));
    opt.zero_grad();
    model->forward(x).sum().backward();
    opt.step();
  }
}

// Fresh tensors made in the iteration.
void freshTensors(torch::Tensor x) {
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<torch::Tensor> params;
    params.push_back(torch::randn({4, 1}).requires_grad_(true));
    torch::optim::Adam opt(params);
    opt.zero_grad();
    x.matmul(params[0]).sum().backward();
    opt.step();
  }
}
