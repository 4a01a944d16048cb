// One finding of each check whose page opens with a table or code below its
// first sentence: torch-missing-epsilon (a table) and torch-device-mismatch
// (a code block). run-torch-tidy-sarif-titles.test checks their SARIF rules.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

torch::Tensor euclidean_distance(const torch::Tensor &a, const torch::Tensor &b) {
  return torch::sqrt((a - b).pow(2).sum(1));
}

void run_on_device(torch::Device device) {
  Net model;
  model->to(device);
  auto x = torch::randn({4, 3});
  model->forward(x);
}
