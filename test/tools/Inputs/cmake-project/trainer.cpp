#include <torch/torch.h>

void resume(torch::nn::Module &model, const std::string &path) {
  torch::load(model, path);
}
