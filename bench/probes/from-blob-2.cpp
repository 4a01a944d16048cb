// Report: https://github.com/mhubii/libtorch_custom_dataset/issues/1
// What went wrong (as the author explained): the dataset's get() loaded the image with
// OpenCV and wrapped it with from_blob; torch does not own the pixels, so they were thrown
// away after get() returned, hence the clone().
// ARGS: -std=c++17 -isystem %mock_torch -isystem %mock_torch/opencv
#include <torch/torch.h>
#include <opencv2/opencv.hpp>
#include <string>
#include <utility>

class CustomDataset : public torch::data::datasets::Dataset<CustomDataset> {
public:
  explicit CustomDataset(std::vector<std::pair<std::string, int64_t>> items)
      : items_(std::move(items)) {}

  torch::data::Example<> get(size_t index) {
    cv::Mat img = cv::imread(items_[index].first);
    cv::resize(img, img, cv::Size(224, 224));
    torch::Tensor img_tensor = torch::from_blob(img.data, {img.rows, img.cols, 3}, torch::kByte); // EXPECT: torch-from-blob-outlives-buffer
    img_tensor = img_tensor.permute({2, 0, 1});
    torch::Tensor label_tensor = torch::full({1}, items_[index].second, torch::kLong);
    return {img_tensor, label_tensor};
  }

private:
  std::vector<std::pair<std::string, int64_t>> items_;
};
