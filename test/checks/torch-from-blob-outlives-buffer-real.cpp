// The same patterns against Debian's real LibTorch headers, so the mock cannot
// drift from the real API (from_blob's overloads with strides and a deleter,
// the dtype constants, to()'s signature, torch::data::Example); the fixed file
// must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-from-blob-outlives-buffer %t -- -- %libtorch_flags

#include <torch/torch.h>

#include <array>
#include <functional>
#include <memory>
#include <vector>

std::vector<float> make_values();

torch::Tensor returned_view(int64_t h, int64_t w) {
  std::vector<uint8_t> pixels(h * w * 3);
  auto image = torch::from_blob(pixels.data(), {h, w, 3}, torch::kByte);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: from_blob does not copy or own the memory of 'pixels', and the tensor is returned
  image = image.to(torch::kByte).to(torch::kCPU);
  return image.permute({2, 0, 1});
  // CHECK-FIXES: {{^}}  return image.permute({2, 0, 1}).clone();{{$}}
}

torch::Tensor returned_with_options(int64_t n) {
  std::vector<double> values(n);
  return at::from_blob(values.data(), {n}, torch::TensorOptions().dtype(torch::kFloat64)).view({1, n});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob does not copy or own the memory of 'values', and the tensor is returned
  // CHECK-FIXES: {{^}}  return at::from_blob(values.data(), {n}, torch::TensorOptions().dtype(torch::kFloat64)).view({1, n}).clone();{{$}}
}

torch::Tensor over_a_temporary() {
  return torch::from_blob(make_values().data(), {3}).unsqueeze(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: from_blob does not copy or own the memory of a temporary
  // CHECK-FIXES: {{^}}  return torch::from_blob(make_values().data(), {3}).unsqueeze(0).clone();{{$}}
}

torch::data::Example<> example(int64_t label) {
  std::array<float, 4> features{1, 2, 3, 4};
  auto data = torch::from_blob(features.data(), {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: from_blob does not copy or own the memory of 'features', and the tensor is returned
  return {data, torch::full({1}, label)};
}

struct Cache {
  std::vector<torch::Tensor> rows_;
  torch::Tensor last_;
  void add(const std::vector<float> &row) {
    std::vector<float> copy(row);
    rows_.push_back(torch::from_blob(copy.data(), {static_cast<int64_t>(copy.size())}));
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: from_blob does not copy or own the memory of 'copy', and the tensor is stored in 'rows_'
  }
};

torch::Tensor batch(const std::vector<std::vector<float>> &rows) {
  std::vector<torch::Tensor> parts;
  for (const auto &row : rows) {
    std::vector<float> normalised(row);
    parts.push_back(torch::from_blob(normalised.data(), {3}));
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: from_blob does not copy or own the memory of 'normalised', and the tensor is used through 'parts'
  }
  return torch::stack(parts);
}

// Not flagged.

torch::Tensor copies(int64_t h, int64_t w, torch::Device device, bool which) {
  std::vector<uint8_t> pixels(h * w * 3);
  auto image = torch::from_blob(pixels.data(), {h, w, 3}, torch::kByte);
  if (which)
    return image.permute({2, 0, 1}).to(torch::kFloat).div(255);
  if (h > 1)
    return image.permute({2, 0, 1}).contiguous();
  if (w > 1)
    return image.to(device);
  if (h > 2)
    return image.to(torch::kByte, /*non_blocking=*/false, /*copy=*/true);
  return image.clone();
}

torch::Tensor strided_and_deleter(std::vector<float> &callers) {
  std::vector<float> values(6);
  auto strided = torch::from_blob(values.data(), {2, 3}, {1, 2}).contiguous();
  auto *heap = new std::vector<float>(6);
  auto owned = torch::from_blob(heap->data(), {6}, [heap](void *) { delete heap; });
  return strided.flatten() + owned + torch::from_blob(callers.data(), {6});
}

float used_in_scope(torch::nn::Linear &model) {
  std::vector<float> values(4);
  auto input = torch::from_blob(values.data(), {1, 4});
  return model(input).sum().item<float>();
}
