// Report: https://github.com/pytorch/pytorch/issues/25761
// What went wrong: `tensor_image.to(at::kCUDA);` left the image on the CPU; `.to` is not
// in place, the result has to be assigned.
// ARGS: -std=c++17 -isystem %mock_torch -isystem %mock_torch/opencv
#include <torch/script.h>
#include <opencv2/opencv.hpp>

torch::Tensor run_on_gpu(torch::jit::Module &module, const std::string &path) {
  cv::Mat image = cv::imread(path);
  auto tensor_image = torch::from_blob(image.data, {1, image.rows, image.cols, 3}, torch::kByte);
  tensor_image = tensor_image.permute({0, 3, 1, 2}).toType(torch::kFloat);
  tensor_image.to(at::kCUDA); // EXPECT: torch-discarded-tensor-result
  torch::NoGradGuard g;
  return module.forward({tensor_image}).toTensor();
}
