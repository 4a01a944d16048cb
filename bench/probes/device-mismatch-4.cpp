// Report: https://github.com/mosecorg/mosec/pull/98
// What went wrong: the worker kept its model on CUDA but fed it a batch padded on the CPU;
// the fix moves the batch to the model's device.
#include <torch/torch.h>

struct EncoderImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  EncoderImpl() { fc = register_module("fc", torch::nn::Linear(128, 64)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Encoder);

class EmbeddingWorker {
public:
  EmbeddingWorker()
      : device_(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU) {
    model_->to(device_);
    model_->eval();
  }
  torch::Tensor forward(const std::vector<std::vector<float>> &requests) {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> tensors;
    for (const auto &r : requests)
      tensors.push_back(torch::tensor(r));
    auto batch = torch::stack(tensors);
    return model_->forward(batch); // EXPECT: torch-device-mismatch
  }
  torch::Tensor forward_fixed(const std::vector<std::vector<float>> &requests) {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> tensors;
    for (const auto &r : requests)
      tensors.push_back(torch::tensor(r));
    return model_->forward(torch::stack(tensors).to(device_));
  }

private:
  torch::Device device_;
  Encoder model_;
};
