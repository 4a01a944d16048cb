// Report: https://github.com/mhubii/libtorch_custom_dataset/issues/1
// The fix discussed in the report: clone() the from_blob tensor before get() returns.
// Correct look-alikes only (no diagnostic expected).
// ARGS: -std=c++17 -isystem %mock_torch -isystem %mock_torch/opencv
// CHECKS: torch-from-blob-outlives-buffer
#include <torch/torch.h>
#include <opencv2/opencv.hpp>
#include <string>

class ImageFolder : public torch::data::datasets::Dataset<ImageFolder> {
public:
  torch::data::Example<> get(size_t index) {
    cv::Mat img = cv::imread(paths_[index]);
    auto t = torch::from_blob(img.data, {img.rows, img.cols, 3}, torch::kByte).clone();
    return {t.permute({2, 0, 1}), torch::full({1}, labels_[index], torch::kLong)};
  }

private:
  std::vector<std::string> paths_;
  std::vector<int64_t> labels_;
};

// Used only while the buffer lives, then converted (a copy) before returning.
torch::Tensor to_float_tensor(const std::vector<uint8_t> &bytes_in) {
  std::vector<uint8_t> bytes = bytes_in;
  auto t = torch::from_blob(bytes.data(), {static_cast<int64_t>(bytes.size())}, torch::kByte);
  return t.to(torch::kFloat).div(255);
}

// The tensor owns the memory through a deleter.
torch::Tensor owned(size_t n) {
  float *buf = new float[n];
  return torch::from_blob(buf, {static_cast<int64_t>(n)}, [](void *p) { delete[] static_cast<float *>(p); });
}

// The buffer is a member that outlives the tensor's use.
class FrameBuffer {
public:
  torch::Tensor view() { return torch::from_blob(pixels_.data(), {480, 640}); }

private:
  std::vector<float> pixels_ = std::vector<float>(480 * 640);
};
