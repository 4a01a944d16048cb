//===- torch-softmax-over-batch-dim_test.cpp - runtime proof --------------===//
//
// torch-softmax-over-batch-dim: softmax over dimension 0 of a [batch,
// classes] tensor (examples/torch-softmax-over-batch-dim/buggy.cpp) raises no
// error; it normalises each class across the samples of the batch. Each
// sample's probabilities then do not sum to 1 (the columns do), and they
// change when another sample of the batch changes. The fixed twin (dimension
// 1) gives rows that sum to 1 and depend on their own sample only. Measured on
// the CPU, and on CUDA where a GPU is usable.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

namespace buggy {
torch::Tensor classProbabilities(torch::nn::Linear &Head,
                                 const torch::Tensor &Features);
} // namespace buggy

namespace fixed {
torch::Tensor classProbabilities(torch::nn::Linear &Head,
                                 const torch::Tensor &Features);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

constexpr int64_t Batch = 8;
constexpr int64_t Classes = 5;

using ProbabilitiesFn = torch::Tensor (*)(torch::nn::Linear &,
                                          const torch::Tensor &);

/// What one implementation does to a batch: how far its rows are from
/// summing to 1, and how much sample 0's probabilities move when only the
/// last sample of the batch changes.
struct Measured {
  double RowSumError = 0;    ///< max |sum over classes - 1|.
  double ColumnSumError = 0; ///< max |sum over the batch - 1|.
  double OtherSampleEffect = 0;
};

Measured measure(ProbabilitiesFn Probabilities, torch::Device Device) {
  torch::manual_seed(0);
  torch::nn::Linear Head(12, Classes);
  Head->to(Device);
  torch::Tensor Features = torch::randn({Batch, 3, 4}, Device);
  torch::NoGradGuard NoGrad;
  torch::Tensor P = Probabilities(Head, Features).cpu();
  EXPECT_EQ(P.sizes(), (std::vector<int64_t>{Batch, Classes}));
  torch::Tensor Changed = Features.clone();
  Changed[Batch - 1] = torch::randn({3, 4}, Device) * 5;
  torch::Tensor Q = Probabilities(Head, Changed).cpu();
  Measured M;
  M.RowSumError = (P.sum(1) - 1).abs().max().item<double>();
  M.ColumnSumError = (P.sum(0) - 1).abs().max().item<double>();
  M.OtherSampleEffect = (Q[0] - P[0]).abs().max().item<double>();
  return M;
}

void expectBuggyMixesSamples(torch::Device Device) {
  const Measured Buggy = measure(buggy::classProbabilities, Device);
  std::cout << "buggy: row sums off by up to " << Buggy.RowSumError
            << ", columns off by " << Buggy.ColumnSumError
            << ", sample 0 moves by " << Buggy.OtherSampleEffect
            << " when sample " << Batch - 1 << " changes\n";
  // Normalised across the samples: the columns sum to 1, the rows do not.
  EXPECT_LT(Buggy.ColumnSumError, 1e-5);
  EXPECT_GT(Buggy.RowSumError, 0.1);
  // Sample 0's probabilities depend on another sample of the batch.
  EXPECT_GT(Buggy.OtherSampleEffect, 1e-3);
}

void expectFixedPerSample(torch::Device Device) {
  const Measured Fixed = measure(fixed::classProbabilities, Device);
  std::cout << "fixed: row sums off by up to " << Fixed.RowSumError
            << ", sample 0 moves by " << Fixed.OtherSampleEffect << "\n";
  EXPECT_LT(Fixed.RowSumError, 1e-5);
  EXPECT_LT(Fixed.OtherSampleEffect, 1e-6);
}

TEST(SoftmaxOverBatchDim, RunDescription) { std::cout << runDescription() << "\n"; }

TEST(SoftmaxOverBatchDim, BuggyNormalisesAcrossSamplesOnCpu) {
  expectBuggyMixesSamples(torch::kCPU);
}

TEST(SoftmaxOverBatchDim, FixedNormalisesEachSampleOnCpu) {
  expectFixedPerSample(torch::kCPU);
}

TEST(SoftmaxOverBatchDim, BuggyNormalisesAcrossSamplesOnCuda) {
  TORCH_TIDY_REQUIRE_CUDA();
  expectBuggyMixesSamples(torch::Device(torch::kCUDA));
}

TEST(SoftmaxOverBatchDim, FixedNormalisesEachSampleOnCuda) {
  TORCH_TIDY_REQUIRE_CUDA();
  expectFixedPerSample(torch::Device(torch::kCUDA));
}

} // namespace
