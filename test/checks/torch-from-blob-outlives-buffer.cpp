// RUN: %check_torch_tidy %s torch-from-blob-outlives-buffer %t -- -- -isystem %mock_torch -isystem %S/Inputs/opencv

#include <torch/torch.h>
#include <opencv2/opencv.hpp>
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

std::vector<float> make_values();
void consume(const torch::Tensor &t);

// --- Returned -----------------------------------------------------------------

torch::Tensor local_vector_returned() {
  std::vector<float> values(4, 1.0f);
  return torch::from_blob(values.data(), {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob does not copy or own the memory of 'values', and the tensor is returned from the scope that frees it; call .clone() before the tensor escapes [torch-from-blob-outlives-buffer]
  // CHECK-FIXES: {{^}}  return torch::from_blob(values.data(), {4}).clone();{{$}}
}

torch::Tensor local_array_through_variable() {
  float buffer[3] = {1, 2, 3};
  auto t = torch::from_blob(buffer, {3});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: from_blob does not copy or own the memory of 'buffer', and the tensor is returned
  return t;
  // CHECK-FIXES: {{^}}  return t.clone();{{$}}
}

torch::Tensor image_through_a_view() {
  cv::Mat image = cv::imread("cat.png");
  torch::Tensor t = torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: from_blob does not copy or own the memory of 'image', and the tensor is returned
  t = t.permute({2, 0, 1});
  return t.unsqueeze(0);
  // CHECK-FIXES: {{^}}  return t.unsqueeze(0).clone();{{$}}
}

torch::Tensor same_dtype_and_cpu_conversions_do_not_copy() {
  std::vector<uint8_t> bytes(12);
  auto t = at::from_blob(bytes.data(), {12}, torch::kByte);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: from_blob does not copy or own the memory of 'bytes', and the tensor is returned
  t = t.to(torch::kByte);
  t = t.to(torch::kCPU).contiguous().view({3, 4});
  return t;
  // CHECK-FIXES: {{^}}  return t.clone();{{$}}
}

torch::Tensor in_place_returns_its_operand(cv::Mat &source) {
  cv::Mat resized;
  cv::resize(source, resized, cv::Size(32, 32));
  auto t = torch::from_blob(resized.ptr<float>(), {32, 32, 3});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: from_blob does not copy or own the memory of 'resized', and the tensor is returned
  return t.mul_(2);
  // CHECK-FIXES: {{^}}  return t.mul_(2).clone();{{$}}
}

torch::Tensor by_value_parameter(std::vector<float> values) {
  return torch::from_blob(values.data(), {3});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob does not copy or own the memory of 'values', and the tensor is returned
  // CHECK-FIXES: {{^}}  return torch::from_blob(values.data(), {3}).clone();{{$}}
}

torch::Tensor pointer_spellings(bool first) {
  auto owned = std::make_unique<float[]>(4);
  std::array<double, 4> fixed{};
  float scalar = 1.0f;
  std::vector<float> values(8);
  float *cursor = values.data() + 4;
  if (first)
    return torch::from_blob(owned.get(), {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: from_blob does not copy or own the memory of 'owned'
  // CHECK-FIXES: {{^}}    return torch::from_blob(owned.get(), {4}).clone();{{$}}
  if (scalar > 0)
    return torch::from_blob(&fixed[0], {4}, torch::kDouble);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: from_blob does not copy or own the memory of 'fixed'
  // CHECK-FIXES: {{^}}    return torch::from_blob(&fixed[0], {4}, torch::kDouble).clone();{{$}}
  if (values.empty())
    return torch::from_blob(&scalar, {1});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: from_blob does not copy or own the memory of 'scalar'
  // CHECK-FIXES: {{^}}    return torch::from_blob(&scalar, {1}).clone();{{$}}
  return torch::from_blob(cursor, {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob does not copy or own the memory of 'values'
  // CHECK-FIXES: {{^}}  return torch::from_blob(cursor, {4}).clone();{{$}}
}

torch::Tensor temporary_returned() {
  return torch::from_blob(make_values().data(), {3});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob does not copy or own the memory of a temporary, and the tensor is returned
  // CHECK-FIXES: {{^}}  return torch::from_blob(make_values().data(), {3}).clone();{{$}}
}

torch::data::Example<> example_returned(int label) {
  cv::Mat image = cv::imread("dog.png");
  auto data = torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: from_blob does not copy or own the memory of 'image', and the tensor is returned
  return {data.permute({2, 0, 1}), torch::full({1}, label)};
}

std::function<torch::Tensor()> lambda_returned() {
  std::vector<float> values(3);
  auto t = torch::from_blob(values.data(), {3});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: from_blob does not copy or own the memory of 'values', and the tensor is returned
  return [t] { return t * 2; };
}

void lambda_body_of_its_own() {
  auto make = [] {
    std::vector<float> values(3);
    return torch::from_blob(values.data(), {3});
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: from_blob does not copy or own the memory of 'values', and the tensor is returned
    // CHECK-FIXES: {{^}}    return torch::from_blob(values.data(), {3}).clone();{{$}}
  };
  consume(make());
}

template <typename T> torch::Tensor dependent_values(int64_t n) {
  std::vector<T> values(n);
  return torch::from_blob(values.data(), {n});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob does not copy or own the memory of 'values', and the tensor is returned
  // CHECK-FIXES: {{^}}  return torch::from_blob(values.data(), {n}).clone();{{$}}
}
template torch::Tensor dependent_values<float>(int64_t);

template <typename Image> torch::Tensor dependent_image(const std::string &path) {
  cv::Mat image = cv::imread(path);
  return torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob does not copy or own the memory of 'image'
  // CHECK-FIXES: {{^}}  return torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte).clone();{{$}}
}

#define WRAP_VALUES(v) torch::from_blob((v).data(), {3})
torch::Tensor through_a_macro() {
  std::vector<float> values(3);
  return WRAP_VALUES(values);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob does not copy or own the memory of 'values'
}

// --- Stored where the function's locals cannot follow ---------------------------

torch::Tensor g_last_input;

struct Loader {
  torch::Tensor cached_;
  std::vector<torch::Tensor> history_;
  std::function<torch::Tensor()> later_;

  void load_into_member() {
    std::vector<float> values(4);
    cached_ = torch::from_blob(values.data(), {4});
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: from_blob does not copy or own the memory of 'values', and the tensor is stored in 'cached_', which outlives it; call .clone() before the tensor escapes
  }
  void push_into_member() {
    cv::Mat image = cv::imread("x.png");
    history_.push_back(torch::from_blob(image.data, {3}, torch::kByte).view({1, 3}));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: from_blob does not copy or own the memory of 'image', and the tensor is stored in 'history_'
  }
  void capture_into_member() {
    std::vector<float> values(2);
    auto t = torch::from_blob(values.data(), {2});
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: from_blob does not copy or own the memory of 'values', and the tensor is stored in 'later_'
    later_ = [t] { return t + 1; };
  }
};

void store_in_global() {
  float values[3] = {0, 0, 0};
  g_last_input = torch::from_blob(values, {3});
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: from_blob does not copy or own the memory of 'values', and the tensor is stored in 'g_last_input'
}

void out_parameters(torch::Tensor &out, std::vector<torch::Tensor> &all) {
  std::vector<float> a(3), b(3);
  out = torch::from_blob(a.data(), {3});
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: from_blob does not copy or own the memory of 'a', and the tensor is stored in 'out'
  all.emplace_back(torch::from_blob(b.data(), {3}).squeeze());
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: from_blob does not copy or own the memory of 'b', and the tensor is stored in 'all'
}

// --- Read after the memory is gone ----------------------------------------------

torch::Tensor batch_of_images(const std::vector<std::string> &paths) {
  std::vector<torch::Tensor> batch;
  for (const auto &path : paths) {
    cv::Mat image = cv::imread(path);
    batch.push_back(torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte));
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: from_blob does not copy or own the memory of 'image', and the tensor is used through 'batch' after that memory is freed; call .clone() before the tensor escapes
  }
  return torch::stack(batch);
}

float outer_tensor_used_after_block() {
  torch::Tensor t;
  {
    std::vector<float> values(3);
    t = torch::from_blob(values.data(), {3});
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: from_blob does not copy or own the memory of 'values', and the tensor is used through 't'
  }
  return t.sum().item<float>();
}

float tensor_over_a_temporary_kept() {
  auto t = torch::from_blob(make_values().data(), {3});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: from_blob does not copy or own the memory of a temporary, and the tensor is used through 't'
  return t.sum().item<float>();
}

torch::Tensor suppressed() {
  std::vector<float> values(3);
  return torch::from_blob(values.data(), {3}); // NOLINT(torch-from-blob-outlives-buffer)
}

// --- Not flagged ------------------------------------------------------------------

// A class of the user's own with container-like members: insert() and
// push_back() copy into tensors it owns, so nothing keeps the borrowed memory.
class ReplayBuffer {
public:
  void insert(const torch::Tensor &obs, const torch::Tensor &reward) {
    observations_[step_].copy_(obs);
    rewards_[step_].copy_(reward);
  }
  void push_back(const torch::Tensor &obs) { observations_[step_].copy_(obs); }

private:
  torch::Tensor observations_, rewards_;
  int64_t step_ = 0;
};

void user_storage_copies(ReplayBuffer &buffer) {
  std::vector<float> obs(4), reward(1);
  buffer.insert(torch::from_blob(obs.data(), {4}),
                torch::from_blob(reward.data(), {1}));
  buffer.push_back(torch::from_blob(obs.data(), {4}).view({2, 2}));
}

torch::Tensor cloned() {
  std::vector<float> values(4);
  auto a = torch::from_blob(values.data(), {4}).clone();
  auto b = torch::from_blob(values.data(), {2, 2});
  b = b.clone();
  return a + b;
}

torch::Tensor converted_to_another_dtype() {
  cv::Mat image = cv::imread("cat.png");
  auto t = torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte);
  t = t.permute({2, 0, 1});
  t = t.to(torch::kFloat);
  return t;
}

torch::Tensor copying_operations(bool which) {
  std::vector<float> values(6);
  if (which)
    return torch::from_blob(values.data(), {2, 3}).permute({1, 0}).contiguous();
  if (values.empty())
    return torch::from_blob(values.data(), {2, 3}).transpose(0, 1).reshape({6});
  if (values.size() > 3)
    return torch::from_blob(values.data(), {6}).div(255);
  if (values.size() > 4)
    return torch::from_blob(values.data(), {6}).to(torch::kFloat, false, true);
  return torch::from_blob(values.data(), {6}) * 2;
}

torch::Tensor unknown_device(torch::Device device) {
  std::vector<float> values(3);
  return torch::from_blob(values.data(), {3}).to(device);
}

torch::Tensor with_a_deleter() {
  std::vector<float> values(3);
  return torch::from_blob(values.data(), {3}, [](void *) {});
}

torch::Tensor heap_memory_with_a_deleter() {
  auto *owned = new std::vector<float>(3);
  return torch::from_blob(owned->data(), {3}, [owned](void *) { delete owned; });
}

struct Holder {
  std::vector<float> buffer_;
  cv::Mat frame_;
  torch::Tensor view_of_member() { return torch::from_blob(buffer_.data(), {3}); }
  torch::Tensor view_of_member_image() {
    return torch::from_blob(frame_.data, {frame_.rows, frame_.cols, 3}, torch::kByte);
  }
};

torch::Tensor static_buffer() {
  static std::vector<float> cache(3);
  return torch::from_blob(cache.data(), {3});
}

torch::Tensor caller_owns(std::vector<float> &values, const cv::Mat &image,
                          cv::Mat shared, float *raw) {
  if (raw)
    return torch::from_blob(raw, {3});
  if (values.empty())
    return torch::from_blob(image.data, {3}, torch::kByte);
  if (shared.rows == 0)
    return torch::from_blob(shared.data, {3}, torch::kByte);
  return torch::from_blob(values.data(), {3});
}

torch::Tensor shallow_copies_of_the_callers_image(const cv::Mat &image) {
  cv::Mat same = image;
  cv::Mat region = image(cv::Rect(0, 0, 4, 4));
  cv::Mat wrapped(4, 4, CV_8UC3, image.data);
  if (same.rows > 0)
    return torch::from_blob(same.data, {3}, torch::kByte);
  if (region.rows > 0)
    return torch::from_blob(region.data, {3}, torch::kByte);
  return torch::from_blob(wrapped.data, {3}, torch::kByte);
}

float used_inside_the_scope(torch::nn::Linear &model) {
  std::vector<float> values(4);
  auto t = torch::from_blob(values.data(), {1, 4});
  consume(t);
  torch::Tensor outer;
  for (int i = 0; i < 3; ++i) {
    std::vector<float> row(4);
    outer = torch::from_blob(row.data(), {1, 4});
    consume(model(outer));
  }
  return model(t).sum().item<float>();
}

float temporary_within_its_full_expression() {
  float sum = torch::from_blob(make_values().data(), {3}).sum().item<float>();
  auto kept = torch::from_blob(make_values().data(), {3}).clone();
  return sum + kept.sum().item<float>();
}

float lambda_over_the_callers_memory() {
  std::vector<float> values(3);
  auto view = [&] { return torch::from_blob(values.data(), {3}); };
  return view().sum().item<float>();
}

void local_container_used_in_scope() {
  std::vector<torch::Tensor> parts;
  std::vector<float> values(3);
  parts.push_back(torch::from_blob(values.data(), {3}));
  consume(torch::cat(parts));
}

namespace mylib {
at::Tensor from_blob(void *data, std::vector<int64_t> sizes);
}
torch::Tensor user_function_named_from_blob() {
  std::vector<float> values(3);
  return mylib::from_blob(values.data(), {3});
}

template <typename T> torch::Tensor dependent_cloned(int64_t n) {
  std::vector<T> values(n);
  return torch::from_blob(values.data(), {n}).clone();
}
template torch::Tensor dependent_cloned<float>(int64_t);

// A lambda outside any function is a function of its own; a static local
// outlives every call.
auto namespace_scope_lambda = [] {
  std::vector<float> values(2);
  static torch::Tensor kept = torch::from_blob(values.data(), {2});
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: from_blob does not copy or own the memory of 'values', and the tensor is stored in 'kept', which outlives it
  return kept;
};
