// Real LibTorch headers included with -I and --header-filter=.*: the body of
// LibTorch's own torch::load (archive.load_from(args...)) is not reported.
// REQUIRES: libtorch
// RUN: %check_torch_tidy_plugin --no-fix %s torch-load-without-device %t -- --header-filter=.* -- %libtorch_I_flags

#include <torch/torch.h>

void load_with_device(std::shared_ptr<torch::nn::Module> m) {
  torch::load(m, "net.pt", torch::kCPU);
}
