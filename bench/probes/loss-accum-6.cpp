// Report: https://github.com/ray-project/ray/pull/40940
// What went wrong: the fine-tuning loop did `loss_sum += loss` with the loss tensor, so the
// graphs of all steps stayed alive: a memory leak in the core training loop.
#include <torch/torch.h>
#include <functional>

struct LmImpl : torch::nn::Module {
  torch::nn::Linear proj{nullptr};
  LmImpl() { proj = register_module("proj", torch::nn::Linear(16, 16)); }
  torch::Tensor forward(const torch::Tensor &x) { return proj(x); }
};
TORCH_MODULE(Lm);

double finetune(Lm &model, torch::optim::Adam &opt,
                std::vector<torch::data::Example<>> &batches) {
  auto step = [&](const torch::data::Example<> &b) {
    auto loss = torch::nn::functional::cross_entropy(model(b.data), b.target);
    opt.zero_grad();
    loss.backward();
    opt.step();
    return loss;
  };
  torch::Tensor loss_sum = torch::zeros({});
  auto it = batches.begin();
  int64_t n = 0;
  while (it != batches.end()) {
    loss_sum += step(*it); // EXPECT: torch-loss-accumulated-without-item
    ++it;
    ++n;
  }
  return loss_sum.item<double>() / n;
}
