// RUN: %check_torch_tidy %s torch-from-blob-outlives-buffer %t -- -- -isystem %mock_torch

// The notes: one at every place the tensor escapes (no fix-it here: the
// escapes are not returns).

#include <torch/torch.h>
#include <vector>

struct Recorder {
  torch::Tensor last_;
  std::vector<torch::Tensor> all_;

  void record() {
    std::vector<float> values(3);
    auto t = torch::from_blob(values.data(), {3});
    // CHECK-NOTES: :[[@LINE-1]]:14: warning: from_blob does not copy or own the memory of 'values', and the tensor is stored in 'last_', which outlives it; call .clone() before the tensor escapes [torch-from-blob-outlives-buffer]
    last_ = t;
    // CHECK-NOTES: :[[@LINE-1]]:5: note: the tensor is stored here
    all_.push_back(t.view({1, 3}));
    // CHECK-NOTES: :[[@LINE-1]]:5: note: the tensor is stored here
  }
};

torch::Tensor stacked(int n) {
  std::vector<torch::Tensor> rows;
  for (int i = 0; i < n; ++i) {
    float row[4] = {0, 1, 2, 3};
    rows.push_back(torch::from_blob(row, {4}));
    // CHECK-NOTES: :[[@LINE-1]]:20: warning: from_blob does not copy or own the memory of 'row', and the tensor is used through 'rows' after that memory is freed; call .clone() before the tensor escapes [torch-from-blob-outlives-buffer]
  }
  return torch::stack(rows);
  // CHECK-NOTES: :[[@LINE-1]]:23: note: 'rows' is read here after 'row' is freed
}
