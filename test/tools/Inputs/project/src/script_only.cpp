#include <torch/script.h>

torch::jit::Module load_script(const std::string &path) {
  return torch::jit::load(path, torch::kCPU);
}
