// Report: https://github.com/pfnet/pytorch-pfn-extras/issues/688
// What went wrong: the evaluator extension switched the model to eval mode at validation
// begin and nothing restored it at validation end; evaluators running at a non-integer
// epoch frequency left the following iterations training in eval mode.
#include <torch/torch.h>
#include <functional>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  NetImpl() { fc = register_module("fc", torch::nn::Linear(32, 10)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Net);

void run_training(Net &model, torch::optim::SGD &opt, const std::vector<torch::data::Example<>> &train,
                  const std::vector<torch::data::Example<>> &val, int64_t eval_every) {
  std::vector<std::function<void()>> extensions;
  extensions.push_back([&] {
    model->eval(); // EXPECT: torch-eval-mode-not-restored
    torch::NoGradGuard no_grad;
    for (const auto &b : val)
      model(b.data);
  });
  int64_t it = 0;
  for (int epoch = 0; epoch < 20; ++epoch) {
    model->train();
    for (const auto &b : train) {
      opt.zero_grad();
      torch::nn::functional::cross_entropy(model(b.data), b.target).backward();
      opt.step();
      if (++it % eval_every == 0)
        for (auto &ext : extensions)
          ext();
    }
  }
}
