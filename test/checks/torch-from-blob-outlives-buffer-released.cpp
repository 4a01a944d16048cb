// RUN: %check_torch_tidy %s torch-from-blob-outlives-buffer %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <cstdlib>
#include <memory>
#include <vector>

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

// A tensor over local memory kept in a container and returned from it.
torch::Tensor returned_from_list() {
  float buffer[3] = {1, 2, 3};
  std::vector<torch::Tensor> kept{torch::from_blob(buffer, {3})};
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: from_blob does not copy or own the memory of 'buffer', and the tensor is returned
  return kept[0];
  // CHECK-MESSAGES: :[[@LINE-1]]:10: note: the tensor is returned here
  // CHECK-FIXES: return kept[0].clone();
}

// --- Negative --------------------------------------------------------------

// The element is replaced by a copy (another dtype) before it is returned:
// an element written by literal index is a location of its own.
torch::Tensor element_replaced_by_copy(std::vector<unsigned char> bytes) {
  std::vector<torch::Tensor> t{torch::from_blob(bytes.data(), {3}, torch::kByte)};
  t[0] = t[0].to(torch::kFloat);
  return t[0];
}

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
