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
#include <torch/version.h>

#include <cmath>
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
  /// Whether this LibTorch's anomaly mode catches the NaN at all. LibTorch 2.x
  /// misses the angle case: the gradient is NaN (BuggyGradientHasNaN) but
  /// backward() throws nothing, so there the test asserts exactly that.
  bool AnomalyModeCatchesIt = true;
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
  if (!GetParam().AnomalyModeCatchesIt) {
    EXPECT_EQ(Message, "") << "this LibTorch's anomaly mode now catches the "
                           << GetParam().Name << " NaN: update the test";
    return;
  }
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
        // cosine_similarity's backward (ExpandBackward0 in LibTorch 1.13; in
        // 2.x anomaly mode names no function: the NaN gradient is the evidence).
        Case{"angle", buggy::angleGradient, fixed::angleGradient, nullptr,
             TORCH_VERSION_MAJOR < 2},
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

// --- The value-range families (issue 18) -------------------------------------
//
// Each family the value-range domain (utils/analysis/ValueRange.h) reports, at
// its boundary input, next to the guarded twin the check's fix-it writes.
// These computations are written here, not in the examples: the example pair
// shows the check's four classic shapes.

bool anyNonFinite(const torch::Tensor &T) { return !allFinite(T); }

/// The gradient of the image: sqrt of the sum of the squared Sobel responses
/// of a flat image (both responses are exactly 0).
torch::Tensor gradientMagnitudeGradient(double Eps) {
  auto Img = torch::ones({1, 1, 5, 5}).requires_grad_();
  auto Kx = torch::tensor({-1.0f, 0.0f, 1.0f, -2.0f, 0.0f, 2.0f, -1.0f, 0.0f, 1.0f})
                .view({1, 1, 3, 3});
  auto Ky = Kx.transpose(2, 3).contiguous();
  auto Gx = torch::conv2d(Img, Kx);
  auto Gy = torch::conv2d(Img, Ky);
  torch::sqrt(Gx * Gx + Gy * Gy + Eps).sum().backward();
  return Img.grad();
}

/// sqrt(1 - c * c) of the cosine of two parallel vectors (c == 1).
torch::Tensor sineOfCosineGradient(double Eps) {
  auto A = torch::tensor({{1.0f, 0.0f, 0.0f}}).requires_grad_();
  auto B = torch::tensor({{2.0f, 0.0f, 0.0f}});
  auto C = torch::cosine_similarity(A, B, 1);
  torch::sqrt(1 - C * C + Eps).sum().backward();
  return A.grad();
}

/// acos of the same cosine, clamped with a margin \p Margin.
torch::Tensor clampedAngleGradient(double Margin) {
  auto A = torch::tensor({{1.0f, 0.0f, 0.0f}}).requires_grad_();
  auto B = torch::tensor({{2.0f, 0.0f, 0.0f}});
  auto C = torch::cosine_similarity(A, B, 1);
  torch::acos(C.clamp(-1 + Margin, 1 - Margin)).sum().backward();
  return A.grad();
}

/// sqrt of band energies: a matrix product of squared magnitudes with a
/// filterbank, for silent frames (all zeros).
torch::Tensor bandEnergyGradient(double Eps) {
  auto Spec = torch::zeros({2, 4}).requires_grad_();
  auto Fbank = torch::full({4, 3}, 0.5f);
  auto Bands = torch::matmul(Spec.abs().pow(2), Fbank);
  torch::sqrt(Bands + Eps).sum().backward();
  return Spec.grad();
}

/// The local energy of an image, sqrt of a box filter over its squares, on a
/// black image.
torch::Tensor localEnergyGradient(double Eps) {
  auto Img = torch::zeros({1, 1, 4, 4}).requires_grad_();
  auto Window = torch::full({1, 1, 3, 3}, 1.0f / 9);
  torch::sqrt(torch::conv2d(Img * Img, Window) + Eps).sum().backward();
  return Img.grad();
}

/// A pairwise cosine matrix: dot products over mm of the norms, with a zero
/// embedding in the batch.
torch::Tensor productOfNormsGradient(double Eps) {
  auto A = torch::tensor({{0.0f, 0.0f}, {1.0f, 2.0f}}).requires_grad_();
  auto B = torch::tensor({{3.0f, 1.0f}, {1.0f, 1.0f}});
  auto Na = A.norm(2, 1, true);
  auto Nb = B.norm(2, 1, true);
  (torch::mm(A, B.t()) / (torch::mm(Na, Nb.t()) + Eps)).sum().backward();
  return A.grad();
}

/// A Gaussian negative log-likelihood whose predicted scale is a relu output
/// (0 for a negative pre-activation): log(scale) is -inf, and the gradient of
/// the predicted mean, (mu - y) / scale^2, is inf.
torch::Tensor reluScaleGradient(double Eps) {
  auto H = torch::tensor({-1.0f, 2.0f});
  auto Mu = torch::tensor({0.5f, 0.5f}).requires_grad_();
  auto Y = torch::tensor({0.0f, 0.0f});
  auto Scale = torch::relu(H);
  auto Nll = torch::log(Scale + Eps) + (Mu - Y).pow(2) / (2 * (Scale + Eps).pow(2));
  Nll.sum().backward();
  return Mu.grad();
}

struct RangeCase {
  const char *Name;
  torch::Tensor (*Gradient)(double);
  /// The guard the fix-it (or the documented remedy) adds.
  double Guard;
};
void PrintTo(const RangeCase &C, std::ostream *OS) { *OS << C.Name; }

class MissingEpsilonRanges : public ::testing::TestWithParam<RangeCase> {};

TEST_P(MissingEpsilonRanges, UnguardedGradientIsNotFinite) {
  torch::Tensor Grad = GetParam().Gradient(0.0);
  ASSERT_TRUE(Grad.defined());
  EXPECT_TRUE(anyNonFinite(Grad)) << GetParam().Name << " gradient: " << Grad;
  // The measurement the docs quote: how many entries are NaN, how many inf.
  RecordProperty("nan", torch::isnan(Grad).sum().item<int64_t>());
  RecordProperty("inf", torch::isinf(Grad).sum().item<int64_t>());
  RecordProperty("entries", Grad.numel());
}

TEST_P(MissingEpsilonRanges, GuardedGradientIsFinite) {
  torch::Tensor Grad = GetParam().Gradient(GetParam().Guard);
  ASSERT_TRUE(Grad.defined());
  EXPECT_TRUE(allFinite(Grad)) << GetParam().Name << " gradient: " << Grad;
}

INSTANTIATE_TEST_SUITE_P(
    Families, MissingEpsilonRanges,
    ::testing::Values(
        RangeCase{"gradient_magnitude", gradientMagnitudeGradient, 1e-8},
        RangeCase{"sine_of_cosine", sineOfCosineGradient, 1e-8},
        // The margin float32 cannot represent (1 - 1e-8 == 1) against the
        // fix-it's 1e-6.
        RangeCase{"clamped_angle", clampedAngleGradient, 1e-6},
        RangeCase{"band_energy", bandEnergyGradient, 1e-8},
        RangeCase{"local_energy", localEnergyGradient, 1e-8},
        RangeCase{"product_of_norms", productOfNormsGradient, 1e-8},
        RangeCase{"relu_scale", reluScaleGradient, 1e-8}),
    [](const ::testing::TestParamInfo<RangeCase> &Info) {
      return std::string(Info.param.Name);
    });

TEST(MissingEpsilonRanges, ClampMarginOf1e8IsNoMarginInFloat32) {
  EXPECT_TRUE(anyNonFinite(clampedAngleGradient(1e-8)));
}

// The decision documented for softplus (and exp): both are > 0 for every
// input a network produces in practice and count as guards, although float32
// rounds them to exactly 0 far out in the negative tail, where log is -inf.
TEST(MissingEpsilonRanges, SoftplusUnderflowsOnlyFarOut) {
  namespace F = torch::nn::functional;
  auto Far = torch::tensor({-110.0f});
  EXPECT_EQ(F::softplus(Far).item<float>(), 0.0f);
  EXPECT_TRUE(std::isinf(torch::log(F::softplus(Far)).item<float>()));
  EXPECT_EQ(torch::exp(Far).item<float>(), 0.0f);
  auto Near = torch::tensor({-80.0f});
  EXPECT_GT(F::softplus(Near).item<float>(), 0.0f);
  EXPECT_TRUE(std::isfinite(torch::log(F::softplus(Near)).item<float>()));
}

// The decision documented for sigmoid: > 0 in practice like softplus, except
// under log, whose stable form log_sigmoid exists. float32 rounds sigmoid to
// exactly 0 once exp(-x) overflows (x below about -88): log(sigmoid) is -inf
// there and its gradient NaN (sigmoid's backward multiplies inf by 0), where
// log_sigmoid stays finite.
TEST(MissingEpsilonRanges, LogOfSigmoidIsInfWhereLogSigmoidIsNot) {
  auto X = torch::tensor({-100.0f}, torch::requires_grad());
  auto Buggy = torch::log(torch::sigmoid(X));
  EXPECT_TRUE(std::isinf(Buggy.item<float>()));
  Buggy.sum().backward();
  EXPECT_TRUE(anyNonFinite(X.grad()));
  auto Y = torch::tensor({-100.0f}, torch::requires_grad());
  auto Fixed = torch::log_sigmoid(Y);
  EXPECT_TRUE(std::isfinite(Fixed.item<float>()));
  Fixed.sum().backward();
  EXPECT_TRUE(allFinite(Y.grad()));
  EXPECT_TRUE(std::isfinite(
      torch::log(torch::sigmoid(torch::tensor({-80.0f}))).item<float>()));
}

} // namespace
