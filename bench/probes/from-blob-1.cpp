// Report: https://github.com/pytorch/pytorch/issues/17537
// What went wrong: a function filled a local std::vector of indices, wrapped it with
// from_blob and returned the tensor; the caller saw gibberish once the vector was freed.
#include <torch/torch.h>
#include <array>

torch::Tensor triangle_indices(const std::vector<std::array<int64_t, 3>> &faces) {
  std::vector<int64_t> overall_indices;
  for (const auto &f : faces)
    for (int64_t v : f)
      overall_indices.push_back(v);
  const int64_t n = static_cast<int64_t>(faces.size());
  torch::TensorOptions opts(torch::kLong);
  auto t = torch::from_blob(overall_indices.data(), {n, 3}, opts); // EXPECT: torch-from-blob-outlives-buffer
  return t;
}

// The fix: clone before the vector dies.
torch::Tensor triangle_indices_fixed(const std::vector<std::array<int64_t, 3>> &faces) {
  std::vector<int64_t> overall_indices;
  for (const auto &f : faces)
    for (int64_t v : f)
      overall_indices.push_back(v);
  const int64_t n = static_cast<int64_t>(faces.size());
  return torch::from_blob(overall_indices.data(), {n, 3}, torch::kLong).clone();
}
