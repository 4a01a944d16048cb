// Two bugs for two checks: torch-missing-epsilon (line 6) and
// torch-load-without-device (line 10).
#include <torch/torch.h>

torch::Tensor distance(const torch::Tensor &a, const torch::Tensor &b) {
  return torch::sqrt((a - b).pow(2).sum(1));
}

void resume(torch::nn::Module &net) {
  torch::load(net, "net.pt");
}
