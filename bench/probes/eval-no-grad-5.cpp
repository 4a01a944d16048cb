// Report: https://github.com/RedisAI/redis-inference-optimization/pull/263
// What went wrong: the LibTorch backend ran models with gradient tracking; the fix put a
// torch::NoGradGuard around execution. Correct look-alikes only (no diagnostic expected).
// CHECKS: torch-eval-loop-without-no-grad
#include <torch/script.h>

std::vector<torch::Tensor> run_model(torch::jit::Module &module,
                                     const std::vector<torch::Tensor> &inputs) {
  torch::NoGradGuard guard;
  module.eval();
  std::vector<torch::Tensor> outs;
  for (const auto &x : inputs) {
    std::vector<torch::jit::IValue> args{x};
    outs.push_back(module.forward(args).toTensor());
  }
  return outs;
}

// Adversarial examples: the model is in eval mode but the loop needs gradients.
struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  NetImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Net);

torch::Tensor fgsm(Net &model, torch::Tensor x, const torch::Tensor &y, int steps) {
  model->eval();
  for (int i = 0; i < steps; ++i) {
    x = x.detach().requires_grad_(true);
    auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    x = x + 0.01 * x.grad();
  }
  return x;
}

// A guard set once per thread, then the loop.
void serve(torch::jit::Module &module, const std::vector<torch::Tensor> &requests,
           std::vector<torch::Tensor> &replies) {
  c10::GradMode::set_enabled(false);
  for (const auto &r : requests)
    replies.push_back(module.forward({r}).toTensor());
}
