// Report: https://github.com/wenet-e2e/wekws/pull/73
// What went wrong: the executor's training stage called optimizer.step() but never
// optimizer.zero_grad(); the fix adds zero_grad before backward.
#include <torch/torch.h>
#include <cmath>

struct KwsModelImpl : torch::nn::Module {
  torch::nn::GRU gru{nullptr};
  torch::nn::Linear out{nullptr};
  KwsModelImpl() {
    gru = register_module("gru", torch::nn::GRU(40, 64));
    out = register_module("out", torch::nn::Linear(64, 2));
  }
  torch::Tensor forward(const torch::Tensor &x) { return out(std::get<0>(gru(x))); }
};
TORCH_MODULE(KwsModel);

double clip_grad_norm(KwsModel &model, double max_norm);

class Executor {
public:
  void train(KwsModel &model, torch::optim::Optimizer &optimizer,
             std::vector<torch::data::Example<>> &data, double clip) {
    model->train();
    auto it = data.begin();
    while (it != data.end()) {
      auto logits = model->forward(it->data);
      auto loss = torch::nn::functional::cross_entropy(logits, it->target);
      loss.backward();
      double grad_norm = clip_grad_norm(model, clip);
      if (std::isfinite(grad_norm))
        optimizer.step(); // EXPECT: torch-missing-zero-grad
      ++step_;
      ++it;
    }
  }

private:
  int64_t step_ = 0;
};
