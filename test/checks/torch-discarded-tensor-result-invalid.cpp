// Broken input: clang's own errors, no crash, and no diagnostic from
// torch-discarded-tensor-result on calls clang could not resolve.
// RUN: %check_torch_tidy --expect-compiler-errors %s torch-discarded-tensor-result %t -- -- -isystem %mock_torch

#include <torch/torch.h>

void broken(torch::Tensor x, torch::Device device) {
  x.to(undeclared_device);
  x.clamp(0, 1, 2, 3);
  x.no_such_method();
  torch::relu(x, too_many);
  undeclared.to(device);
  torch::no_such_function(x);
  x.to(device).clamp(undeclared);
}

template <class T> void dependentBroken(T t, torch::Tensor x) {
  t.to(undeclared_too);
  x.clamp(t, undeclared_hi);
  torch::relu(t, t, t);
}
