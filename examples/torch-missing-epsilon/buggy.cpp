// torch-missing-epsilon, buggy: operations whose value or gradient is infinite
// at a boundary input, applied where nothing keeps the input away from it.
//
// Every function below trains fine on typical inputs and breaks on one that
// real data produces sooner or later: two identical embeddings (distance 0),
// two parallel vectors (cosine 1), an all-zero feature vector (norm 0), a very
// confident classifier (a probability that underflows to 0). The gradient then
// holds NaN, and one optimizer step spreads it into every parameter. The
// runtime test (test/runtime/torch-missing-epsilon_test.cpp) shows each
// gradient's NaN and, under torch::autograd::DetectAnomalyGuard, the backward
// function that produced it.
#include <torch/torch.h>

#include <iostream>

namespace buggy {

// Gradient of the Euclidean distance between a point and itself:
// sqrt'(0) is infinite, times the zero gradient of the squared difference.
torch::Tensor distanceGradient(torch::Device Device) {
  auto A = torch::tensor({{1.0, 2.0, 3.0}}, torch::TensorOptions(Device))
               .requires_grad_();
  auto B = A.detach().clone();
  auto Distance = torch::sqrt((A - B).pow(2).sum(1));
  Distance.sum().backward();
  return A.grad();
}

// Gradient of the angle between two parallel vectors: acos'(1) is infinite.
torch::Tensor angleGradient(torch::Device Device) {
  auto A = torch::tensor({{3.0, 4.0}}, torch::TensorOptions(Device))
               .requires_grad_();
  auto B = A.detach().clone();
  auto Angle = torch::acos(torch::cosine_similarity(A, B, 1));
  Angle.sum().backward();
  return A.grad();
}

// Gradient of a vector scaled to unit length, for the zero vector: 0 / 0.
torch::Tensor normalizeGradient(torch::Device Device) {
  auto X = torch::zeros({3}, torch::TensorOptions(Device)).requires_grad_();
  auto Unit = X / X.norm();
  Unit.sum().backward();
  return X.grad();
}

// Gradient of the negative log-likelihood of the second class for a classifier
// that is sure of the first one: softmax underflows to 0 and log gives -inf.
torch::Tensor logProbabilityGradient(torch::Device Device) {
  auto Logits = torch::tensor({{0.0f, -200.0f}}, torch::TensorOptions(Device))
                    .requires_grad_();
  auto LogProbabilities = torch::log(torch::softmax(Logits, 1));
  auto Loss = -LogProbabilities.select(1, 1).sum();
  Loss.backward();
  return Logits.grad();
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
static int report(const char *What, const torch::Tensor &Grad) {
  const bool Finite = torch::isfinite(Grad).all().item<bool>();
  std::cout << What << ": gradient " << (Finite ? "finite" : "has inf/NaN")
            << "\n";
  return Finite ? 0 : 1;
}

int main() {
  const torch::Device Device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  int Failures = report("distance", buggy::distanceGradient(Device));
  Failures += report("angle", buggy::angleGradient(Device));
  Failures += report("normalize", buggy::normalizeGradient(Device));
  Failures += report("log-probability", buggy::logProbabilityGradient(Device));
  return Failures == 0 ? 0 : 1;
}
#endif
