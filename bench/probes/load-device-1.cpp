// Report: https://github.com/pytorch/pytorch/issues/79260
// What went wrong: a CPU-only LibTorch 1.11 could not load a model saved by a GPU LibTorch;
// the answer: pass the device (map_location) when loading.
#include <torch/script.h>
#include <string>

class Detector {
public:
  explicit Detector(const std::string &model_path) {
    module_ = torch::jit::load(model_path); // EXPECT: torch-load-without-device
    module_.eval();
  }
  torch::Tensor detect(const torch::Tensor &img) {
    torch::NoGradGuard g;
    return module_.forward({img}).toTensor();
  }

private:
  torch::jit::Module module_;
};

// Look-alike with the device given.
torch::jit::Module load_for(const std::string &path, bool use_gpu) {
  torch::Device device = use_gpu ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
  return torch::jit::load(path, device);
}
