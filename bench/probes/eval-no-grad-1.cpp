// Report: https://github.com/pytorch/pytorch/issues/40133
// What went wrong: LibTorch inference used far more GPU memory than the Python version
// because the C++ loop ran the TorchScript module without torch::NoGradGuard (the Python
// code ran under `with torch.no_grad()`).
#include <torch/script.h>
#include <string>
#include <vector>

torch::Tensor load_image(const std::string &path);

std::vector<torch::Tensor> upscale_all(const std::string &model_path,
                                       const std::vector<std::string> &images) {
  torch::jit::Module module = torch::jit::load(model_path, torch::kCPU);
  module.eval();
  std::vector<torch::Tensor> results;
  for (const auto &path : images) {
    std::vector<torch::jit::IValue> inputs;
    inputs.push_back(load_image(path));
    auto output = module.forward(inputs).toTensor(); // EXPECT: torch-eval-loop-without-no-grad
    results.push_back(output);
  }
  return results;
}
