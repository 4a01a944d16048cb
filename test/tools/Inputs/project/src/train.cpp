#include <torch/torch.h>

#include "checkpoint.h"

struct Net : torch::nn::Module {};

void resume(Net &net, const std::string &path) {
  torch::load(net, path);
}
