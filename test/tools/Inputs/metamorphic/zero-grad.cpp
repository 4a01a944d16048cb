// A plain case for bench/metamorphic.py: the flagged line ends in an EXPECT marker,
// the function without one is a negative.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

void never_cleared(Net &model, torch::optim::SGD &opt,
                   const std::vector<torch::Tensor> &inputs) {
  for (const auto &x : inputs) {
    torch::Tensor loss = model->forward(x).sum();
    loss.backward();
    opt.step(); // EXPECT: torch-missing-zero-grad
  }
}

void cleared(Net &model, torch::optim::SGD &opt,
             const std::vector<torch::Tensor> &inputs) {
  for (const auto &x : inputs) {
    opt.zero_grad();
    torch::Tensor loss = model->forward(x).sum();
    loss.backward();
    opt.step();
  }
}
