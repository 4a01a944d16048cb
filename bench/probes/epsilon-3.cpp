// Report: https://github.com/huggingface/sentence-transformers/issues/625
// What went wrong: the cosine-similarity helper normalised embeddings by their norms with no
// guard; all-zero embeddings (unknown words) gave NaN.
#include <torch/torch.h>

torch::Tensor cos_sim(const torch::Tensor &a, const torch::Tensor &b) {
  auto a_norm = a / a.norm(2, 1, true); // EXPECT: torch-missing-epsilon
  auto b_norm = b / b.norm(2, 1, true); // EXPECT: torch-missing-epsilon
  return a_norm.mm(b_norm.t());
}

// The fix: normalize() with its built-in epsilon.
torch::Tensor cos_sim_fixed(const torch::Tensor &a, const torch::Tensor &b) {
  namespace F = torch::nn::functional;
  auto a_norm = F::normalize(a, F::NormalizeFuncOptions().dim(1));
  auto b_norm = F::normalize(b, F::NormalizeFuncOptions().dim(1));
  return a_norm.mm(b_norm.t());
}

torch::Tensor contrastive_loss(const torch::Tensor &anchors, const torch::Tensor &positives,
                               const torch::Tensor &labels) {
  auto scores = cos_sim(anchors, positives) * 20.0;
  return torch::nn::functional::cross_entropy(scores, labels);
}
