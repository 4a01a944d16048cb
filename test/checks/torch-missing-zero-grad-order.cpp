// Gradients cleared between backward() and step(): the step applies zero
// gradients, every iteration, and the model never learns.
// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Positive ------------------------------------------------------------------

void clearedBeforeStep(torch::nn::Linear model, torch::Tensor x,
                       torch::Tensor y) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  for (int i = 0; i < 100; ++i) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: gradients cleared between backward() and step(): the step applies zero gradients and the model never learns; clear them before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE+1]]:5: note: the step that finds them cleared
    opt.step();
  }
}

void moduleClearedBeforeStep(torch::nn::Linear model, torch::Tensor x,
                             torch::Tensor y) {
  torch::optim::Adam opt(model->parameters());
  for (int i = 0; i < 100; ++i) {
    torch::mse_loss(model(x), y).backward();
    model->zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: gradients cleared between backward() and step(): the step applies zero gradients and the model never learns; clear them before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE+1]]:5: note: the step that finds them cleared
    opt.step();
  }
}

// --- Negative ------------------------------------------------------------------

// Cleared after the step: the usual order, shifted.
void clearedAfterStep(torch::nn::Linear model, torch::Tensor x,
                      torch::Tensor y) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  for (int i = 0; i < 100; ++i) {
    torch::mse_loss(model(x), y).backward();
    opt.step();
    opt.zero_grad();
  }
}

// A GAN: the discriminator's gradients are cleared before the generator's
// step, which needs only its own.
void ganOrder(torch::nn::Linear G, torch::nn::Linear D, torch::Tensor real) {
  torch::optim::Adam optG(G->parameters()), optD(D->parameters());
  for (int i = 0; i < 100; ++i) {
    optG.zero_grad();
    auto fake = G(torch::randn({4, 4}));
    auto g_loss = -D(fake).mean();
    g_loss.backward();
    optD.zero_grad();
    optG.step();
    auto d_loss = D(fake.detach()).mean() - D(real).mean();
    d_loss.backward();
    optD.step();
  }
}

// Accumulation: the step and its clearing every few iterations.
void accumulate(torch::nn::Linear model, torch::Tensor x, torch::Tensor y) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  for (int i = 0; i < 100; ++i) {
    torch::mse_loss(model(x), y).backward();
    if ((i + 1) % 4 == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
}

// The other network's module cleared before the generator's step.
void ganModuleOrder(torch::nn::Linear G, torch::nn::Linear D,
                    torch::Tensor real) {
  torch::optim::Adam optG(G->parameters()), optD(D->parameters());
  for (int i = 0; i < 100; ++i) {
    G->zero_grad();
    auto g_loss = -D(G(torch::randn({4, 4}))).mean();
    g_loss.backward();
    D->zero_grad();
    optG.step();
  }
}
