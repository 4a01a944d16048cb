//===- torch-missing-epsilon_test.cpp - runtime proof, check 5 ------------===//
//
// torch-missing-epsilon: each buggy computation
// (examples/torch-missing-epsilon/ buggy.cpp) meets its boundary input and its
// gradient holds NaN; under torch::autograd::DetectAnomalyGuard, backward()
// throws and names the backward function that produced it. The fixed twins
// (fixed.cpp), written as the check's fix-its write them, give finite gradients
// on the same inputs, and anomaly mode stays silent.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <functional>
#include <regex>
#include <string>

namespace buggy {
torch::Tensor distanceGradient(torch::Device Device);
torch::Tensor angleGradient(torch::Device Device);
torch::Tensor normalizeGradient(torch::Device Device);
torch::Tensor logProbabilityGradient(torch::Device Device);
} // namespace buggy

namespace fixed {
torch::Tensor distanceGradient(torch::Device Device);
torch::Tensor angleGradient(torch::Device Device);
torch::Tensor normalizeGradient(torch::Device Device);
torch::Tensor logProbabilityGradient(torch::Device Device);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

using GradientFn = torch::Tensor (*)(torch::Device);

bool hasNaN(const torch::Tensor &T) {
  return torch::isnan(T).any().item<bool>();
}
bool allFinite(const torch::Tensor &T) {
  return torch::isfinite(T).all().item<bool>();
}

/// What backward() throws with anomaly detection on ("" if nothing).
std::string anomalyMessage(GradientFn Fn) {
  return thrownMessage([&] {
    torch::autograd::DetectAnomalyGuard Detect;
    Fn(testDevice());
  });
}

struct Case {
  const char *Name;
  GradientFn Buggy;
  GradientFn Fixed;
  /// The backward function anomaly mode names for the buggy version: the first
  /// one whose output holds NaN (an infinite gradient alone is not reported;
  /// it becomes NaN where it meets a zero factor). Null where that node is an
  /// implementation detail of a LibTorch function that differs between
  /// versions: then any backward function must be named.
  const char *BackwardFunction;
};

/// How GoogleTest prints a Case (ctest's output, a failure's "where
/// GetParam() = ..."): its name, not the struct's bytes.
void PrintTo(const Case &C, std::ostream *OS) { *OS << C.Name; }

class MissingEpsilon : public ::testing::TestWithParam<Case> {};

TEST_P(MissingEpsilon, BuggyGradientHasNaN) {
  torch::Tensor Grad = GetParam().Buggy(testDevice());
  ASSERT_TRUE(Grad.defined());
  EXPECT_TRUE(hasNaN(Grad)) << GetParam().Name << " gradient: " << Grad;
}

TEST_P(MissingEpsilon, AnomalyModeNamesTheBackwardFunction) {
  const std::string Message = anomalyMessage(GetParam().Buggy);
  const std::string Function = GetParam().BackwardFunction
                                   ? GetParam().BackwardFunction
                                   : "[A-Za-z]+Backward[0-9]*";
  const std::regex Expected("Function '" + Function +
                            "' returned nan values in its [0-9]+th output");
  EXPECT_TRUE(std::regex_search(Message, Expected))
      << "expected Function '" << Function
      << "' returned nan values, got: " << Message;
}

TEST_P(MissingEpsilon, FixedGradientIsFinite) {
  torch::Tensor Grad = GetParam().Fixed(testDevice());
  ASSERT_TRUE(Grad.defined());
  EXPECT_TRUE(allFinite(Grad)) << GetParam().Name << " gradient: " << Grad;
  EXPECT_EQ(anomalyMessage(GetParam().Fixed), "");
}

INSTANTIATE_TEST_SUITE_P(
    Examples, MissingEpsilon,
    ::testing::Values(
        // sqrt'(0) = inf; pow's backward multiplies it by 2 (a - b) = 0.
        Case{"distance", buggy::distanceGradient, fixed::distanceGradient,
             "PowBackward0"},
        // acos'(1) = -inf at parallel vectors; the NaN appears inside
        // cosine_similarity's backward (ExpandBackward0 in LibTorch 1.13).
        Case{"angle", buggy::angleGradient, fixed::angleGradient, nullptr},
        // x / |x| at x = 0: 0 / 0.
        Case{"normalize", buggy::normalizeGradient, fixed::normalizeGradient,
             "DivBackward0"},
        // softmax underflows to 0, log gives -inf, softmax's backward
        // multiplies it by 0.
        Case{"log-probability", buggy::logProbabilityGradient,
             fixed::logProbabilityGradient, "SoftmaxBackward0"}),
    [](const ::testing::TestParamInfo<Case> &Info) {
      std::string Name = Info.param.Name;
      for (char &C : Name)
        if (C == '-')
          C = '_';
      return Name;
    });

// The fixed twin changes nothing away from the boundary: the same gradient as
// the buggy version on an ordinary input (here: the distance of two distinct
// points), to the epsilon's precision.
TEST(MissingEpsilonFix, LeavesOrdinaryGradientsAlone) {
  auto A = torch::tensor({{1.0, 2.0, 3.0}}).requires_grad_();
  auto B = torch::tensor({{2.0, 2.0, 5.0}});
  torch::sqrt((A - B).pow(2).sum(1)).sum().backward();
  torch::Tensor Buggy = A.grad().clone();
  A.grad().zero_();
  torch::sqrt((A - B).pow(2).sum(1) + 1e-8).sum().backward();
  EXPECT_TRUE(torch::allclose(Buggy, A.grad(), 1e-5, 1e-6));
}

// Why the acos fix-it clamps with 1e-6, not the 1e-8 the other fix-its add:
// in float32, 1 - 1e-8 is 1, and the clamp would keep the infinite gradient.
TEST(MissingEpsilonFix, ClampMarginSurvivesFloat32) {
  auto One = torch::ones({1});
  EXPECT_EQ(One.clamp(-1 + 1e-8, 1 - 1e-8).item<float>(), 1.0f);
  EXPECT_LT(One.clamp(-1 + 1e-6, 1 - 1e-6).item<float>(), 1.0f);
}

} // namespace
