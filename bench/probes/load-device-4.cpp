// Report: https://github.com/pytorch/pytorch/issues/50425
// What went wrong (in the report): a device-id problem at inference; its loading code
// passes the device explicitly, which is the correct look-alike used here (no diagnostic
// expected).
// CHECKS: torch-load-without-device
#include <torch/script.h>
#include <string>

torch::jit::Module load_detector(const std::string &path, int gpu) {
  return torch::jit::load(path, torch::Device(torch::kCUDA, gpu));
}

struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  NetImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Net);

void restore(Net &net, const std::string &path, torch::Device device) {
  torch::load(net, path, device);
}

void restore_cpu(Net &net, const std::string &path) { torch::load(net, path, torch::kCPU); }

void restore_archive(const std::string &path, torch::Device device) {
  torch::serialize::InputArchive archive;
  archive.load_from(path, device);
}
