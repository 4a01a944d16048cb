// RUN: %check_torch_tidy %s torch-from-blob-outlives-buffer %t -- -- -isystem %mock_torch -isystem %S/Inputs/opencv

#include <torch/torch.h>
#include <opencv2/opencv.hpp>
#include <string>
#include <vector>

// A helper that wraps the memory its caller hands it: the caller decides that
// memory's lifetime, so the finding is at the call.

static torch::Tensor wrap(std::vector<float> &values) {
  return torch::from_blob(values.data(), {static_cast<int64_t>(values.size())});
}
static torch::Tensor wrap_image(const cv::Mat &image) {
  return torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte)
      .permute({2, 0, 1});
}
static torch::Tensor wrap_pointer(float *data, int64_t n) {
  return torch::from_blob(data, {n});
}
static void wrap_into(std::vector<float> &values, torch::Tensor &out) {
  out = torch::from_blob(values.data(), {3});
}
static torch::Tensor wrap_twice(std::vector<float> &values) {
  return wrap(values).view({-1});
}

torch::Tensor returned_from_a_helper() {
  std::vector<float> values(4, 1.0f);
  return wrap(values);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob in 'wrap' does not copy or own the memory of 'values', and the tensor is returned from the scope that frees it; call .clone() before the tensor escapes [torch-from-blob-outlives-buffer]
  // CHECK-MESSAGES: :[[@LINE-20]]:10: note: from_blob wraps the memory here, in a call of 'wrap'
  // CHECK-MESSAGES: :[[@LINE-3]]:10: note: the tensor is returned here
  // CHECK-FIXES: {{^}}  return wrap(values).clone();{{$}}
}

torch::Tensor image_through_a_helper() {
  cv::Mat image = cv::imread("cat.png");
  auto t = wrap_image(image);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: from_blob in 'wrap_image' does not copy or own the memory of 'image', and the tensor is returned
  return t;
}

torch::Tensor pointer_through_a_helper() {
  std::vector<float> values(8);
  return wrap_pointer(values.data() + 4, 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob in 'wrap_pointer' does not copy or own the memory of 'values'
}

torch::Tensor out_parameter_of_a_helper() {
  std::vector<float> values(3);
  torch::Tensor t;
  wrap_into(values, t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: from_blob in 'wrap_into' does not copy or own the memory of 'values', and the tensor is returned
  return t;
}

torch::Tensor g_cached;

void helper_result_stored_in_a_global() {
  std::vector<float> values(3);
  g_cached = wrap_twice(values);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: from_blob in 'wrap_twice' does not copy or own the memory of 'values', and the tensor is stored in 'g_cached', which outlives it
}

// --- Not flagged -------------------------------------------------------------------

std::vector<float> g_values(3);

torch::Tensor memory_that_outlives_the_caller(std::vector<float> &values) {
  auto a = wrap(values);
  auto b = wrap(g_values);
  return a + b;
}

float used_while_the_memory_lives() {
  std::vector<float> values(3);
  torch::Tensor t;
  wrap_into(values, t);
  return wrap(values).sum().item<float>() + t.sum().item<float>();
}

torch::Tensor cloned_before_it_escapes() {
  std::vector<float> values(3);
  return wrap(values).clone();
}

static torch::Tensor copy_of(std::vector<float> &values) {
  return torch::from_blob(values.data(), {3}).clone();
}

torch::Tensor helper_that_copies() {
  std::vector<float> values(3);
  return copy_of(values);
}
