#include <torch/torch.h>

namespace helpers {
int unused_value;
}
using helpers::unused_value;

torch::Tensor distance(const torch::Tensor &a, const torch::Tensor &b) {
  return torch::sqrt((a - b).pow(2).sum(1));
}

void resume(torch::nn::Module &net) {
  torch::load(net, "net.pt");
}
