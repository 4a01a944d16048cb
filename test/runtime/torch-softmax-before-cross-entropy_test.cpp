//===- torch-softmax-before-cross-entropy_test.cpp - runtime proof --------===//
//
// torch-softmax-before-cross-entropy: cross_entropy applied to softmax output
// (examples/torch-softmax-before-cross-entropy/buggy.cpp) applies softmax
// twice. With C classes the loss cannot fall below log(e + C - 1) - 1
// (1.4611 for C = 10), even for a perfectly confident correct prediction, and
// its gradient with respect to the logits is several times smaller than the
// correct loss's on the same logits. nll_loss applied to probabilities
// returns -mean(p[target]): negative, in [-1, 0]. The fixed twin (logits for
// cross_entropy, log_softmax for nll_loss) reaches ~0 on a confident correct
// prediction and is never negative.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <cmath>

namespace buggy {
torch::Tensor classificationLoss(const torch::Tensor &Logits,
                                 const torch::Tensor &Targets);
torch::Tensor nllClassificationLoss(const torch::Tensor &Logits,
                                    const torch::Tensor &Targets);
} // namespace buggy

namespace fixed {
torch::Tensor classificationLoss(const torch::Tensor &Logits,
                                 const torch::Tensor &Targets);
torch::Tensor nllClassificationLoss(const torch::Tensor &Logits,
                                    const torch::Tensor &Targets);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

constexpr int64_t Classes = 10;

// The lowest value cross_entropy(softmax(z)) can take: softmax output one-hot
// on the target, so the loss is -1 + log(e + C - 1).
double doubleSoftmaxFloor(int64_t C) { return std::log(std::exp(1.0) + C - 1) - 1; }

// Gradient norm of a loss with respect to the logits.
template <typename Loss>
double gradientNorm(Loss L, const torch::Tensor &Logits, const torch::Tensor &Targets) {
  torch::Tensor Z = Logits.clone().set_requires_grad(true);
  L(Z, Targets).backward();
  return Z.grad().norm().item<double>();
}

TEST(SoftmaxBeforeCrossEntropy, RunDescription) { std::cout << runDescription() << "\n"; }

TEST(SoftmaxBeforeCrossEntropy, BuggyLossStopsAtItsFloor) {
  const double Floor = doubleSoftmaxFloor(Classes);
  EXPECT_NEAR(Floor, 1.4611, 1e-4);
  // A perfectly confident, correct prediction.
  torch::Tensor Targets = torch::arange(Classes);
  torch::Tensor Logits = torch::eye(Classes) * 100;
  const double Buggy = buggy::classificationLoss(Logits, Targets).item<double>();
  const double Fixed = fixed::classificationLoss(Logits, Targets).item<double>();
  std::cout << "confident correct prediction: buggy loss " << Buggy << " (floor "
            << Floor << "), fixed loss " << Fixed << "\n";
  EXPECT_NEAR(Buggy, Floor, 1e-4);
  EXPECT_LT(Fixed, 1e-6);
  // Random logits never go below the floor either.
  torch::manual_seed(0);
  for (int I = 0; I < 10; ++I) {
    torch::Tensor Z = torch::randn({64, Classes}) * 10;
    torch::Tensor Y = torch::randint(Classes, {64});
    EXPECT_GE(buggy::classificationLoss(Z, Y).item<double>(), Floor - 1e-6);
  }
}

TEST(SoftmaxBeforeCrossEntropy, BuggyGradientIsSeveralTimesSmaller) {
  torch::manual_seed(0);
  torch::Tensor Logits = torch::randn({64, Classes});
  torch::Tensor Targets = torch::randint(Classes, {64});
  const double Buggy = gradientNorm(buggy::classificationLoss, Logits, Targets);
  const double Fixed = gradientNorm(fixed::classificationLoss, Logits, Targets);
  std::cout << "gradient norm on the same logits: buggy " << Buggy << ", fixed "
            << Fixed << ", ratio " << Fixed / Buggy << "\n";
  EXPECT_GT(Fixed / Buggy, 3.0);
}

TEST(SoftmaxBeforeCrossEntropy, NllLossOnProbabilitiesGoesNegative) {
  torch::manual_seed(0);
  torch::Tensor Logits = torch::randn({64, Classes}) * 3;
  torch::Tensor Targets = torch::randint(Classes, {64});
  const double Buggy = buggy::nllClassificationLoss(Logits, Targets).item<double>();
  const double Fixed = fixed::nllClassificationLoss(Logits, Targets).item<double>();
  std::cout << "nll_loss: buggy " << Buggy << ", fixed " << Fixed << "\n";
  EXPECT_LT(Buggy, 0.0);
  EXPECT_GE(Buggy, -1.0);
  EXPECT_GT(Fixed, 0.0);
  // The correct nll_loss is cross_entropy on the logits.
  EXPECT_NEAR(Fixed, fixed::classificationLoss(Logits, Targets).item<double>(), 1e-5);
}

} // namespace
