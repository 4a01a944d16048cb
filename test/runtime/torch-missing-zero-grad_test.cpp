//===- torch-missing-zero-grad_test.cpp - runtime proof ----------------===//
//
// torch-missing-zero-grad: a training loop without zero_grad()
// (examples/torch-missing-zero-grad/buggy.cpp) steps with the sum of every
// gradient so far. With a learning rate of 0 the parameters stay put, so
// after n iterations their gradient is exactly n times the single-step
// gradient; the fixed twin's equals the single-step gradient. With a real
// learning rate the buggy loop swings around the minimum and never settles,
// while the fixed twin converges.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

namespace buggy {
double train(torch::nn::Linear &Model, const torch::Tensor &Input,
             const torch::Tensor &Target, int Steps, double Lr);
} // namespace buggy

namespace fixed {
double train(torch::nn::Linear &Model, const torch::Tensor &Input,
             const torch::Tensor &Target, int Steps, double Lr);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

struct Problem {
  torch::nn::Linear Model{nullptr};
  torch::Tensor Input, Target;
  /// d loss / d weight and d loss / d bias of one iteration.
  torch::Tensor WeightGrad, BiasGrad;
};

Problem makeProblem() {
  torch::manual_seed(0);
  Problem P;
  P.Model = torch::nn::Linear(4, 1);
  P.Model->to(testDevice());
  P.Input = torch::randn({16, 4}, testDevice());
  P.Target = torch::randn({16, 1}, testDevice());
  auto Grads = torch::autograd::grad(
      {torch::mse_loss(P.Model->forward(P.Input), P.Target)},
      {P.Model->weight, P.Model->bias});
  P.WeightGrad = Grads[0];
  P.BiasGrad = Grads[1];
  return P;
}

using TrainFn = double (*)(torch::nn::Linear &, const torch::Tensor &,
                           const torch::Tensor &, int, double);

/// The ratio of the accumulated gradient to the single-step gradient after
/// \p Steps iterations at learning rate 0 (weight and bias alike).
double gradientRatio(TrainFn Train, int Steps) {
  Problem P = makeProblem();
  Train(P.Model, P.Input, P.Target, Steps, /*Lr=*/0.0);
  const torch::Tensor W = P.Model->weight.grad();
  const torch::Tensor B = P.Model->bias.grad();
  const double Ratio = (W.norm() / P.WeightGrad.norm()).item<double>();
  EXPECT_TRUE(torch::allclose(W, Ratio * P.WeightGrad, 1e-4, 1e-6));
  EXPECT_TRUE(torch::allclose(B, Ratio * P.BiasGrad, 1e-4, 1e-6));
  return Ratio;
}

TEST(MissingZeroGrad, RunDescription) { std::cout << runDescription() << "\n"; }

TEST(MissingZeroGrad, BuggyGradientIsNTimesTheSingleStepGradient) {
  for (int Steps : {1, 2, 5, 10}) {
    const double Ratio = gradientRatio(&buggy::train, Steps);
    std::cout << "buggy: " << Steps << " iterations, gradient ratio " << Ratio
              << "\n";
    EXPECT_NEAR(Ratio, Steps, 1e-3 * Steps);
  }
}

TEST(MissingZeroGrad, FixedGradientIsTheSingleStepGradient) {
  for (int Steps : {1, 2, 5, 10}) {
    const double Ratio = gradientRatio(&fixed::train, Steps);
    std::cout << "fixed: " << Steps << " iterations, gradient ratio " << Ratio
              << "\n";
    EXPECT_NEAR(Ratio, 1.0, 1e-3);
  }
}

// With a real learning rate the summed gradients act like momentum that never
// decays: the buggy loop swings around the least-squares minimum instead of
// settling in it, while the fixed twin converges to it.
TEST(MissingZeroGrad, BuggyNeverSettlesWhereFixedConverges) {
  constexpr double Lr = 0.1;
  Problem Start = makeProblem();
  const double Initial =
      torch::mse_loss(Start.Model->forward(Start.Input), Start.Target)
          .item<double>();
  double Converged = 0;
  for (int Steps : {100, 300}) {
    Problem Buggy = makeProblem();
    const double BuggyLoss =
        buggy::train(Buggy.Model, Buggy.Input, Buggy.Target, Steps, Lr);
    Problem Fixed = makeProblem();
    const double FixedLoss =
        fixed::train(Fixed.Model, Fixed.Input, Fixed.Target, Steps, Lr);
    std::cout << "lr " << Lr << ", " << Steps << " steps: loss from "
              << Initial << " to buggy " << BuggyLoss << ", fixed "
              << FixedLoss << "\n";
    if (Converged != 0)
      EXPECT_NEAR(FixedLoss, Converged, 1e-4) << "the fixed twin has settled";
    Converged = FixedLoss;
    EXPECT_GT(BuggyLoss, FixedLoss + 0.05);
  }
}

} // namespace
