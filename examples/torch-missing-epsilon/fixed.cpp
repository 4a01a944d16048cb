// torch-missing-epsilon, fixed: the same computations with the argument kept
// away from the boundary, as the check's fix-its write them: an epsilon added
// under the square root and to the norm, the cosine clamped inside (-1, 1),
// and log_softmax instead of log(softmax). Every gradient is finite.
#include <torch/torch.h>

#include <iostream>

namespace fixed {

torch::Tensor distanceGradient(torch::Device Device) {
  auto A = torch::tensor({{1.0, 2.0, 3.0}}, torch::TensorOptions(Device))
               .requires_grad_();
  auto B = A.detach().clone();
  auto Distance = torch::sqrt((A - B).pow(2).sum(1) + 1e-8);
  Distance.sum().backward();
  return A.grad();
}

torch::Tensor angleGradient(torch::Device Device) {
  auto A = torch::tensor({{3.0, 4.0}}, torch::TensorOptions(Device))
               .requires_grad_();
  auto B = A.detach().clone();
  // 1e-6, not 1e-8: 1 - 1e-8 rounds to 1 in float32.
  auto Angle =
      torch::acos(torch::cosine_similarity(A, B, 1).clamp(-1 + 1e-6, 1 - 1e-6));
  Angle.sum().backward();
  return A.grad();
}

torch::Tensor normalizeGradient(torch::Device Device) {
  auto X = torch::zeros({3}, torch::TensorOptions(Device)).requires_grad_();
  auto Unit = X / (X.norm() + 1e-8);
  Unit.sum().backward();
  return X.grad();
}

torch::Tensor logProbabilityGradient(torch::Device Device) {
  auto Logits = torch::tensor({{0.0f, -200.0f}}, torch::TensorOptions(Device))
                    .requires_grad_();
  auto LogProbabilities = torch::log_softmax(Logits, 1);
  auto Loss = -LogProbabilities.select(1, 1).sum();
  Loss.backward();
  return Logits.grad();
}

} // namespace fixed

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
  int Failures = report("distance", fixed::distanceGradient(Device));
  Failures += report("angle", fixed::angleGradient(Device));
  Failures += report("normalize", fixed::normalizeGradient(Device));
  Failures += report("log-probability", fixed::logProbabilityGradient(Device));
  return Failures == 0 ? 0 : 1;
}
#endif
