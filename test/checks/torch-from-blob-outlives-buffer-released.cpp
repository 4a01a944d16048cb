// RUN: %check_torch_tidy %s torch-from-blob-outlives-buffer %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <cstdlib>
#include <memory>

// Memory the function releases by hand ends at the release: `delete[] p`,
// `free(p)` of a local pointer it allocated, `up.reset()` of a local
// std::unique_ptr (docs/checks/torch-from-blob-outlives-buffer.md).

// --- Positive --------------------------------------------------------------

float deleted_before_use(int n) {
  float *features = new float[n];
  at::Tensor tensor = torch::from_blob(features, {1, n});
  delete[] features;
  return tensor.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-3]]:23: warning: from_blob does not copy or own the memory of 'features', and the tensor is used through 'tensor' after that memory is freed
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: 'tensor' is read here after 'features' is freed
}

float freed_before_use(int n) {
  float *buf = static_cast<float *>(std::malloc(n * sizeof(float)));
  auto t = torch::from_blob(buf, {n});
  std::free(buf);
  return t.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-3]]:12: warning: from_blob does not copy or own the memory of 'buf', and the tensor is used through 't' after that memory is freed
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: 't' is read here after 'buf' is freed
}

float reset_before_use(int n) {
  std::unique_ptr<float[]> p(new float[n]);
  auto t = torch::from_blob(p.get(), {n});
  p.reset();
  return t.sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-3]]:12: warning: from_blob does not copy or own the memory of 'p', and the tensor is used through 't' after that memory is freed
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: 't' is read here after 'p' is freed
}

// --- Negative --------------------------------------------------------------

// Read before the release.
float read_then_delete(int n) {
  float *buf = new float[n];
  auto t = torch::from_blob(buf, {n});
  float s = t.sum().item<float>();
  delete[] buf;
  return s;
}

// Released only on the path that does not use it; the returned tensor keeps
// heap memory that nobody frees (a leak, not a dangling tensor).
torch::Tensor released_on_error(int n) {
  float *buf = new float[n];
  if (n <= 0) {
    delete[] buf;
    return {};
  }
  return torch::from_blob(buf, {n});
}

// Heap memory never released here: it outlives the function.
torch::Tensor kept(int n) {
  float *buf = new float[n];
  return torch::from_blob(buf, {n});
}
