#include <cstddef>
#include <torch/torch.h>

struct Net : torch::nn::Module {};

void restore(Net &net, const std::string &path) {
  std::size_t attempts = 1;
  (void)attempts;
  torch::load(net, path);
}
