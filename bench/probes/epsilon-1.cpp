// Report: https://github.com/EricGuo5513/HumanML3D/issues/44
// What went wrong: qnormalize divided a quaternion by its norm; an all-zero quaternion in
// one file produced NaN, and the fix adds an epsilon to the denominator.
#include <torch/torch.h>

torch::Tensor qnormalize(const torch::Tensor &q) {
  return q / q.norm(2, -1, true); // EXPECT: torch-missing-epsilon
}

// The fix from the report.
torch::Tensor qnormalize_safe(const torch::Tensor &q) {
  return q / (q.norm(2, -1, true) + 1e-8);
}

struct RootNetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  RootNetImpl() { fc = register_module("fc", torch::nn::Linear(16, 4)); }
  torch::Tensor forward(const torch::Tensor &x) { return qnormalize(fc(x)); }
};
