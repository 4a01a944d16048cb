// Report: https://github.com/Kerry-Cho/SemanticSegmentation-Libtorch/issues/9
// What went wrong: batch inference over several cv::Mat images failed with a memory
// location error; the answer: convert each image with from_blob, then torch::stack the
// tensors. Here each image lives only in its loop iteration while its tensor is kept.
// ARGS: -std=c++17 -isystem %mock_torch -isystem %mock_torch/opencv
#include <torch/script.h>
#include <opencv2/opencv.hpp>
#include <string>

torch::Tensor segment_batch(torch::jit::Module &model, const std::vector<std::string> &paths) {
  std::vector<torch::Tensor> batch;
  for (const auto &p : paths) {
    cv::Mat image = cv::imread(p);
    cv::Mat rgb;
    cv::cvtColor(image, rgb, cv::COLOR_BGR2RGB);
    auto t = torch::from_blob(rgb.data, {rgb.rows, rgb.cols, 3}, torch::kByte); // EXPECT: torch-from-blob-outlives-buffer
    batch.push_back(t.permute({2, 0, 1}));
  }
  auto input = torch::stack(batch).toType(torch::kFloat).div(255);
  torch::NoGradGuard no_grad;
  return model.forward({input}).toTensor();
}
