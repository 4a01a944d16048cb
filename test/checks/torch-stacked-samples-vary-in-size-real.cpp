// The same patterns against Debian's real LibTorch headers (OpenCV from the
// mock: only its names matter); the file must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-stacked-samples-vary-in-size %t -- -- %libtorch_flags -isystem %S/Inputs/opencv

#include <opencv2/opencv.hpp>
#include <torch/torch.h>

#include <fstream>
#include <string>
#include <vector>

namespace F = torch::nn::functional;
using torch::data::Example;
using torch::data::transforms::Stack;

class Images : public torch::data::datasets::Dataset<Images> {
public:
  Example<> get(size_t index) override {
    cv::Mat image = cv::imread(paths_[index]);
    auto t = torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte);
    return {t.permute({2, 0, 1}).to(torch::kFloat).div(255), torch::tensor(0)};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the data tensor's sizes come from each sample (image rows and columns); stacking samples of different sizes throws 'stack expects each tensor to be equal size'; resize or pad to fixed sizes [torch-stacked-samples-vary-in-size]
    // CHECK-MESSAGES: :[[@LINE-4]]:21: note: the image is read here, with the file's rows and columns
  }
  torch::optional<size_t> size() const override { return paths_.size(); }
  std::vector<std::string> paths_;
};

// Read from a file token by token.
class Lines : public torch::data::datasets::Dataset<Lines> {
public:
  Example<> get(size_t index) override {
    std::ifstream in(paths_[index]);
    std::vector<int64_t> ids;
    std::string word;
    while (in >> word)
      ids.push_back(static_cast<int64_t>(word.size()));
    return {torch::tensor(ids), torch::tensor(static_cast<int64_t>(index))};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the data tensor's sizes come from each sample (sequence length)
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: its length is the number of iterations of this loop
  }
  torch::optional<size_t> size() const override { return paths_.size(); }
  std::vector<std::string> paths_;
};

// A member of sequences indexed by get's argument; mapped through Normalize
// first (sizes kept), with the free function map.
class Sentences : public torch::data::datasets::Dataset<Sentences> {
public:
  Example<> get(size_t index) override {
    auto tokens = sentences_.at(index);
    return {torch::tensor(tokens).to(torch::kFloat), torch::tensor(labels_[index])};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the data tensor's sizes come from each sample (sequence length)
  }
  torch::optional<size_t> size() const override { return sentences_.size(); }
  std::vector<std::vector<int64_t>> sentences_;
  std::vector<int64_t> labels_;
};

// --- Negative

class Resized : public torch::data::datasets::Dataset<Resized> {
public:
  Example<> get(size_t index) override {
    cv::Mat image = cv::imread(paths_[index]);
    cv::resize(image, image, cv::Size(224, 224));
    auto t = torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte);
    return {t.permute({2, 0, 1}).clone(), torch::tensor(0)};
  }
  torch::optional<size_t> size() const override { return paths_.size(); }
  std::vector<std::string> paths_;
};

class Padded : public torch::data::datasets::Dataset<Padded> {
public:
  Example<> get(size_t index) override {
    auto x = torch::tensor(sentences_[index]);
    x = F::pad(x, F::PadFuncOptions({0, max_len_ - x.size(0)}));
    auto image = torch::rand({1, 3, 10 + (int64_t)index, 20});
    auto fixed = F::interpolate(
        image, F::InterpolateFuncOptions().size(std::vector<int64_t>{32, 32}));
    return {x, fixed.squeeze(0)};
  }
  torch::optional<size_t> size() const override { return sentences_.size(); }
  std::vector<std::vector<int64_t>> sentences_;
  int64_t max_len_ = 16;
};

// Varying, but batched with a custom collation: not stacked.
struct PadCollate
    : torch::data::transforms::Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    return examples.front();
  }
};
class Collated : public torch::data::datasets::Dataset<Collated> {
public:
  Example<> get(size_t index) override {
    return {torch::tensor(sentences_[index]), torch::tensor(0)};
  }
  torch::optional<size_t> size() const override { return sentences_.size(); }
  std::vector<std::vector<int64_t>> sentences_;
};

void loaders() {
  auto a = torch::data::make_data_loader(Images().map(Stack<>()), 4);
  Lines lines;
  auto b = torch::data::make_data_loader(lines.map(Stack<>()), 4);
  auto c = torch::data::make_data_loader(torch::data::datasets::map(
      Sentences().map(torch::data::transforms::Normalize<>(0.5, 0.5)),
      Stack<>()), 4);
  auto d = torch::data::make_data_loader(Resized().map(Stack<>()), 4);
  auto e = torch::data::make_data_loader(Padded().map(Stack<>()), 4);
  auto f = torch::data::make_data_loader(Collated().map(PadCollate()), 4);
}
