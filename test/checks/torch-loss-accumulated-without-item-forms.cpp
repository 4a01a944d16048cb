// Accumulators updated by expressions that contain themselves: an
// exponential moving average, a concatenation that grows every iteration.
// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Positive ------------------------------------------------------------------

void movingAverage(torch::nn::Linear model, torch::optim::SGD &opt,
                   torch::Tensor x, torch::Tensor y) {
  torch::Tensor smooth = torch::zeros({});
  for (int i = 0; i < 1000; ++i) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    smooth = 0.98 * smooth + 0.02 * loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'smooth' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: smooth = 0.98 * smooth + 0.02 * loss.detach();
  }
}

void concatenated(torch::nn::Linear model, torch::optim::SGD &opt,
                  torch::Tensor x, torch::Tensor y) {
  torch::Tensor all = torch::zeros({0, 4});
  for (int i = 0; i < 1000; ++i) {
    opt.zero_grad();
    auto out = model(x);
    torch::mse_loss(out, y).backward();
    opt.step();
    all = torch::cat({all, out}, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'all' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: all = torch::cat({all, out.detach()}, 0);
  }
}

// --- Negative ------------------------------------------------------------------

void detachedAverage(torch::nn::Linear model, torch::optim::SGD &opt,
                     torch::Tensor x, torch::Tensor y) {
  torch::Tensor smooth = torch::zeros({});
  for (int i = 0; i < 1000; ++i) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    smooth = 0.98 * smooth + 0.02 * loss.detach();
  }
}

void decayOnly(torch::nn::Linear model, torch::optim::SGD &opt,
               torch::Tensor x, torch::Tensor y) {
  torch::Tensor scale = torch::ones({});
  for (int i = 0; i < 1000; ++i) {
    opt.zero_grad();
    torch::mse_loss(model(x), y).backward();
    opt.step();
    scale = 0.99 * scale;
  }
}

void concatenatedDetached(torch::nn::Linear model, torch::optim::SGD &opt,
                          torch::Tensor x, torch::Tensor y) {
  torch::Tensor all = torch::zeros({0, 4});
  for (int i = 0; i < 1000; ++i) {
    opt.zero_grad();
    auto out = model(x);
    torch::mse_loss(out, y).backward();
    opt.step();
    all = torch::cat({all, out.detach()}, 0);
  }
}
