// The project of codechecker.test and codechecker-store.test (mock LibTorch):
// two findings, one suppressed for CodeChecker, one suppressed for torch-tidy.
#include <torch/script.h>
#include <torch/torch.h>

struct Net : torch::nn::Module {};

void restore(Net &net, const std::string &path) {
  torch::load(net, path);
}

void prepare(torch::Tensor x, torch::Device device) {
  x.to(device);
}

void reviewed(torch::Tensor x) {
  // codechecker_suppress [torch-discarded-tensor-result] the conversion alone is what the benchmark times
  x.to(torch::kFloat);
  x.contiguous(); // NOLINT(torch-discarded-tensor-result): the same, in clang-tidy's syntax
}
