// RUN: %check_torch_tidy %s torch-discarded-tensor-result %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// An operation the hand-written table does not list but PyTorch's autograd
// formulas do (derivatives.yaml, checks/utils/libtorch/AutogradOps.def) is out
// of place unless its name ends in '_': dropping its result does nothing.

namespace user {
torch::Tensor gelu(const torch::Tensor &x);
}

void activations(torch::Tensor x) {
  torch::gelu(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of out-of-place 'gelu' is discarded, so the statement changes nothing; assign the result [torch-discarded-tensor-result]
  torch::silu(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: result of out-of-place 'silu' is discarded
}

// --- Negative --------------------------------------------------------------

torch::Tensor kept(torch::Tensor x) {
  auto y = torch::gelu(x);
  x = torch::silu(x);
  return y + x;
}

// A user function of the same name is not LibTorch's.
void user_function(torch::Tensor x) { user::gelu(x); }
