// RUN: %check_torch_tidy %s torch-stacked-samples-vary-in-size %t -- -- -isystem %mock_torch -isystem %S/Inputs/opencv

#include <array>
#include <fstream>
#include <opencv2/opencv.hpp>
#include <string>
#include <torch/torch.h>
#include <vector>

namespace F = torch::nn::functional;
using torch::data::Example;
using torch::data::transforms::Stack;

// --- Images read at their own size ------------------------------------------

class Images : public torch::data::datasets::Dataset<Images> {
public:
  explicit Images(std::vector<std::string> paths) : paths_(std::move(paths)) {}
  Example<> get(size_t index) {
    cv::Mat image = cv::imread(paths_[index]);
    auto pixels = torch::from_blob(image.data, {image.rows, image.cols, 3},
                                   torch::kByte);
    auto data = pixels.permute({2, 0, 1}).to(torch::kFloat).div(255);
    return {data, torch::tensor(static_cast<int64_t>(index % 2))};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the data tensor's sizes come from each sample (image rows and columns); stacking samples of different sizes throws 'stack expects each tensor to be equal size'; resize or pad to fixed sizes [torch-stacked-samples-vary-in-size]
    // CHECK-MESSAGES: :[[@LINE-6]]:21: note: the image is read here, with the file's rows and columns
    // CHECK-MESSAGES: :[[@LINE+9]]:7: note: the samples are stacked here
  }

private:
  std::vector<std::string> paths_;
};

void train_images(std::vector<std::string> paths) {
  auto loader = torch::data::make_data_loader(
      Images(std::move(paths)).map(Stack<>()), 4);
}

// Resized on one path only: the other keeps the file's size.
class SometimesResized : public torch::data::datasets::Dataset<SometimesResized> {
public:
  Example<> get(size_t index) {
    cv::Mat image = cv::imread(paths_[index]);
    if (image.rows > 1024)
      cv::resize(image, image, cv::Size(224, 224));
    cv::Mat rgb;
    cv::cvtColor(image, rgb, cv::COLOR_BGR2RGB);
    int64_t h = rgb.rows, w = rgb.cols;
    torch::Tensor t = torch::from_blob(rgb.data, {h, w, 3}, torch::kByte).clone();
    return torch::data::Example<>(t.permute({2, 0, 1}) / 255.0, torch::tensor(1));
    // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: the data tensor's sizes come from each sample (image rows and columns)
    // CHECK-MESSAGES: :[[@LINE-9]]:21: note: the image is read here
    // CHECK-MESSAGES: :[[@LINE+6]]:18: note: the samples are stacked here
  }
  std::vector<std::string> paths_;
};

void train_sometimes_resized() {
  auto stacked = SometimesResized().map(Stack<>());
  auto loader = torch::data::make_data_loader(std::move(stacked), 8);
}

// Decoded from bytes, blurred, copied.
class Decoded : public torch::data::datasets::Dataset<Decoded> {
public:
  Example<> get(size_t index) {
    cv::Mat raw = cv::imdecode(bytes_[index], cv::IMREAD_COLOR);
    cv::Mat blurred;
    cv::GaussianBlur(raw, blurred, cv::Size(3, 3), 1.0);
    cv::Mat copy = blurred.clone();
    auto t = torch::zeros({3, copy.rows, copy.cols});
    return {t, torch::tensor(0)};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the data tensor's sizes come from each sample (image rows and columns)
    // CHECK-MESSAGES: :[[@LINE-7]]:19: note: the image is read here
    // CHECK-MESSAGES: :[[@LINE+5]]:68: note: the samples are stacked here
  }
  std::vector<std::vector<unsigned char>> bytes_;
};

void train_decoded() { auto loader = torch::data::make_data_loader(Decoded().map(Stack<>()), 2); }

// A class template, stacked in a function template: its get() is reported
// once for both specializations.
template <typename Label>
class TemplateImages : public torch::data::datasets::Dataset<TemplateImages<Label>> {
public:
  Example<> get(size_t index) {
    cv::Mat image = cv::imread(paths_[index]);
    auto t = torch::from_blob(image.data, {image.rows, image.cols, 3});
    return {t, torch::tensor(static_cast<int64_t>(Label(1)))};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the data tensor's sizes come from each sample (image rows and columns)
    // CHECK-MESSAGES: :[[@LINE-4]]:21: note: the image is read here
  }
  std::vector<std::string> paths_;
};

template <typename D> void train_generic(D dataset) {
  auto loader = torch::data::make_data_loader(std::move(dataset).map(Stack<>()), 4);
}

void train_templates() {
  train_generic(TemplateImages<int>());
  train_generic(TemplateImages<float>());
}

// --- Sequences of the sample's length ----------------------------------------

// One element of a member of sequences, indexed by get's argument.
class Sentences : public torch::data::datasets::Dataset<Sentences> {
public:
  Example<> get(size_t index) {
    const auto &tokens = sentences_[index];
    return {torch::tensor(tokens), torch::tensor(labels_[index])};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the data tensor's sizes come from each sample (sequence length)
    // CHECK-MESSAGES: :[[@LINE-3]]:26: note: the sequence is read here, with the sample's length
  }
  std::vector<std::vector<int64_t>> sentences_;
  std::vector<int64_t> labels_;
};

// Read word by word from a file.
class Files : public torch::data::datasets::Dataset<Files> {
public:
  Example<> get(size_t index) {
    std::ifstream in(paths_[index]);
    std::vector<int64_t> ids;
    int64_t id;
    while (in >> id)
      ids.push_back(id);
    Example<> example;
    example.data = torch::from_blob(ids.data(), {(int64_t)ids.size()}, torch::kLong).clone();
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: the data tensor's sizes come from each sample (sequence length)
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: its length is the number of iterations of this loop, which the sample decides
    example.target = torch::tensor(0);
    return example;
  }
  std::vector<std::string> paths_;
};

// The targets vary (a label per token), the data does not.
class Tagged : public torch::data::datasets::Dataset<Tagged> {
public:
  Example<> get(size_t index) {
    std::vector<int64_t> tags;
    for (int64_t t : tags_.at(index))
      tags.push_back(t + 1);
    return {torch::zeros({16}), torch::tensor(tags)};
    // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: the target tensor's sizes come from each sample (sequence length)
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: its length is the number of iterations of this loop
  }
  std::vector<std::vector<int64_t>> tags_;
};

// Cut to at most max_len_, but not padded: shorter ones stay shorter.
class Truncated : public torch::data::datasets::Dataset<Truncated> {
public:
  Example<> get(size_t index) {
    std::vector<int64_t> v = data_[index];
    v.resize(std::min<size_t>(v.size(), max_len_));
    return {torch::tensor(v), torch::tensor(0)};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the data tensor's sizes come from each sample (sequence length)
  }
  std::vector<std::vector<int64_t>> data_;
  size_t max_len_ = 32;
};

// Padded by a fixed amount: the differences remain.
class PaddedByTwo : public torch::data::datasets::Dataset<PaddedByTwo> {
public:
  Example<> get(size_t index) {
    auto x = torch::tensor(data_[index]);
    x = F::pad(x, F::PadFuncOptions({1, 1}));
    return {x, torch::tensor(0)};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the data tensor's sizes come from each sample (sequence length)
  }
  std::vector<std::vector<int64_t>> data_;
};

void train_sequences() {
  auto a = torch::data::make_data_loader(Sentences().map(Stack<>()), 4);
  auto b = torch::data::make_data_loader(Files().map(Stack<>()), 4);
  auto c = torch::data::make_data_loader(Tagged().map(Stack<>()), 4);
  auto d = torch::data::make_data_loader(Truncated().map(Stack<>()), 4);
  auto e = torch::data::make_data_loader(PaddedByTwo().map(Stack<>()), 4);
}

// --- Negative: fixed sizes ---------------------------------------------------

// Resized on every path.
class Resized : public torch::data::datasets::Dataset<Resized> {
public:
  Example<> get(size_t index) {
    cv::Mat image = cv::imread(paths_[index]);
    cv::resize(image, image, cv::Size(224, 224));
    auto t = torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte);
    return {t.permute({2, 0, 1}).clone(), torch::tensor(0)};
  }
  std::vector<std::string> paths_;
};

// Resized on both branches, into another image, to the configured size.
class ResizedBothWays : public torch::data::datasets::Dataset<ResizedBothWays> {
public:
  Example<> get(size_t index) {
    cv::Mat image = cv::imread(paths_[index]);
    cv::Mat small;
    if (image.cols > image.rows)
      cv::resize(image, small, cv::Size(width_, height_));
    else
      cv::resize(image.clone(), small, cv::Size(width_, height_));
    auto t = torch::from_blob(small.data, {small.rows, small.cols, 3}, torch::kByte);
    return {t.clone(), torch::tensor(0)};
  }
  std::vector<std::string> paths_;
  int width_ = 64, height_ = 64;
};

// Sizes from the data set's configuration.
class Configured : public torch::data::datasets::Dataset<Configured> {
public:
  Configured(int64_t c, int64_t h, int64_t w) : c_(c), h_(h), w_(w) {}
  Example<> get(size_t index) {
    cv::Mat image = cv::imread("x.png");
    return {torch::zeros({c_, h_, w_}), torch::tensor(image.channels())};
  }
  int64_t c_, h_, w_;
};

// Interpolated to a fixed size.
class Interpolated : public torch::data::datasets::Dataset<Interpolated> {
public:
  Example<> get(size_t index) {
    cv::Mat image = cv::imread(paths_[index]);
    auto t = torch::from_blob(image.data, {1, 3, image.rows, image.cols}, torch::kByte)
                 .to(torch::kFloat);
    t = F::interpolate(t, F::InterpolateFuncOptions().size(std::vector<int64_t>{224, 224}));
    return {t.squeeze(), torch::tensor(0)};
  }
  std::vector<std::string> paths_;
};

// A std::array and a braced list have fixed lengths.
class Arrays : public torch::data::datasets::Dataset<Arrays> {
public:
  Example<> get(size_t index) {
    std::array<float, 4> features{1, 2, 3, 4};
    return {torch::tensor(features), torch::tensor({1.0, 2.0})};
  }
};

// Padded (or cut) to max_len_ before it becomes a tensor.
class PaddedVector : public torch::data::datasets::Dataset<PaddedVector> {
public:
  Example<> get(size_t index) {
    std::vector<int64_t> tokens = sentences_[index];
    tokens.resize(max_len_, 0);
    return {torch::tensor(tokens), torch::tensor(0)};
  }
  std::vector<std::vector<int64_t>> sentences_;
  size_t max_len_ = 16;
};

// Padded as a tensor up to a fixed length.
class PaddedTensor : public torch::data::datasets::Dataset<PaddedTensor> {
public:
  Example<> get(size_t index) {
    auto x = torch::tensor(sentences_[index]);
    auto y = torch::constant_pad_nd(x, {0, 32 - x.size(0)});
    auto z = F::pad(torch::tensor(sentences_[index]),
                    F::PadFuncOptions({0, kMaxLen - (int64_t)sentences_[index].size()}));
    return {y, z};
  }
  static constexpr int64_t kMaxLen = 32;
  std::vector<std::vector<int64_t>> sentences_;
};

// Filled by a loop of fixed length.
class FixedLoop : public torch::data::datasets::Dataset<FixedLoop> {
public:
  Example<> get(size_t index) {
    std::vector<float> v;
    for (int i = 0; i < 10; ++i)
      v.push_back(i * 0.5f);
    return {torch::tensor(v), torch::tensor(0)};
  }
};

// Cut, then padded by a loop that tests the sequence's own size.
class PaddingLoop : public torch::data::datasets::Dataset<PaddingLoop> {
public:
  Example<> get(size_t index) {
    std::vector<int64_t> v = data_[index];
    if (v.size() > 8)
      v.resize(8);
    while (v.size() < 8)
      v.push_back(0);
    return {torch::tensor(v), torch::tensor(0)};
  }
  std::vector<std::vector<int64_t>> data_;
};

// --- Negative: nothing proves the sizes vary ---------------------------------

torch::Tensor load_image(const std::string &path);

class Opaque : public torch::data::datasets::Dataset<Opaque> {
public:
  Example<> get(size_t index) {
    cv::Mat image = cv::imread(paths_[index]);
    auto crop = torch::from_blob(image.data, {image.rows, image.cols, 3}).narrow(0, 0, 100);
    return {images_[index], load_image(paths_[index]) + crop};
  }
  std::vector<torch::Tensor> images_;
  std::vector<std::string> paths_;
};

// --- Negative: not stacked ---------------------------------------------------

// The same varying samples, batched by a custom collation that pads.
struct PadCollate {};
class CustomCollate : public torch::data::datasets::Dataset<CustomCollate> {
public:
  Example<> get(size_t index) {
    cv::Mat image = cv::imread(paths_[index]);
    return {torch::from_blob(image.data, {image.rows, image.cols, 3}), torch::tensor(0)};
  }
  std::vector<std::string> paths_;
};

// Never mapped at all.
class NeverMapped : public torch::data::datasets::Dataset<NeverMapped> {
public:
  Example<> get(size_t index) {
    cv::Mat image = cv::imread(paths_[index]);
    return {torch::from_blob(image.data, {image.rows, image.cols, 3}), torch::tensor(0)};
  }
  std::vector<std::string> paths_;
};

namespace mine {
template <typename D, typename T> int map(D, T) { return 0; }
} // namespace mine

void negatives() {
  auto a = torch::data::make_data_loader(Resized().map(Stack<>()), 4);
  auto b = torch::data::make_data_loader(ResizedBothWays().map(Stack<>()), 4);
  auto c = torch::data::make_data_loader(Configured(3, 8, 8).map(Stack<>()), 4);
  auto d = torch::data::make_data_loader(Interpolated().map(Stack<>()), 4);
  auto e = torch::data::make_data_loader(Arrays().map(Stack<>()), 4);
  auto f = torch::data::make_data_loader(PaddedVector().map(Stack<>()), 4);
  auto g = torch::data::make_data_loader(PaddedTensor().map(Stack<>()), 4);
  auto h = torch::data::make_data_loader(FixedLoop().map(Stack<>()), 4);
  auto i = torch::data::make_data_loader(Opaque().map(Stack<>()), 4);
  auto l = torch::data::make_data_loader(PaddingLoop().map(Stack<>()), 4);
  auto j = torch::data::make_data_loader(CustomCollate().map(PadCollate()), 4);
  int k = mine::map(NeverMapped(), Stack<>());
}
