#include <torch/torch.h>

struct Net : torch::nn::Module {};

void resume_on_cpu(Net &net, const std::string &path) {
  torch::load(net, path, torch::kCPU);
}
