// Report: https://github.com/AllentDan/LibtorchSegmentation/issues/36
// What went wrong: the provided segmentor weights had been saved from a GPU environment, and
// a CPU-only LibTorch failed to load them ("Could not run 'aten::empty_strided' with
// arguments from the 'CUDA' backend").
#include <torch/torch.h>
#include <string>

struct FPNImpl : torch::nn::Module {
  torch::nn::Conv2d head{nullptr};
  FPNImpl() { head = register_module("head", torch::nn::Conv2d(3, 2, 1)); }
  torch::Tensor forward(const torch::Tensor &x) { return head(x); }
};
TORCH_MODULE(FPN);

class Segmentor {
public:
  void Initialize(int gpu_id, const std::string &weights_path) {
    device_ = gpu_id >= 0 ? torch::Device(torch::kCUDA, gpu_id) : torch::Device(torch::kCPU);
    torch::load(fpn_, weights_path); // EXPECT: torch-load-without-device
    fpn_->to(device_);
    fpn_->eval();
  }

private:
  FPN fpn_;
  torch::Device device_{torch::kCPU};
};
