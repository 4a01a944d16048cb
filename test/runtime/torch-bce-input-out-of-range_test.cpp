//===- torch-bce-input-out-of-range_test.cpp - runtime proof -------------===//
//
// torch-bce-input-out-of-range: binary_cross_entropy given the raw scores of a
// Linear layer (examples/torch-bce-input-out-of-range/buggy.cpp). On the CPU
// the loss throws "all elements of input should be between 0 and 1" (inputs
// with a large spread: some scores leave [0, 1] at once); on CUDA the kernel's
// assertion `input_val >= zero && input_val <= one` fails, and the error
// surfaces as "device-side assert triggered" at the next synchronisation
// (checked in a child process; SKIPPED without a GPU, never passed). The fixed
// twin, binary_cross_entropy_with_logits on the same scores (what the fix-it
// writes; the autofix build runs these tests against the fix-it's output),
// gives a finite loss that training lowers.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <cmath>

namespace buggy {
double trainedLoss(torch::Device Device, int Steps);
} // namespace buggy

namespace fixed {
double trainedLoss(torch::Device Device, int Steps);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

TEST(BceInputOutOfRange, RunDescription) { std::cout << runDescription() << "\n"; }

TEST(BceInputOutOfRange, BuggyThrowsInputOutOfRangeOnCpu) {
  EXPECT_TRUE(contains(thrownMessage([] { buggy::trainedLoss(torch::kCPU, 1); }),
                       "all elements of input should be between 0 and 1"));
}

TEST(BceInputOutOfRange, FixedTrainsOnCpu) {
  double First = 0, Last = 0;
  EXPECT_EQ(thrownMessage([&] {
              First = fixed::trainedLoss(torch::kCPU, 1);
              Last = fixed::trainedLoss(torch::kCPU, 50);
            }),
            "");
  EXPECT_TRUE(std::isfinite(First));
  EXPECT_LT(Last, First);
}

// CUDA-only: the error users see, from a child process.
TEST(BceInputOutOfRange, BuggyTriggersDeviceSideAssertOnCuda) {
  TORCH_TIDY_REQUIRE_CUDA();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exitAfterDeviceSideAssert([] { buggy::trainedLoss(torch::kCUDA, 1); }),
              ::testing::ExitedWithCode(0), "");
}

TEST(BceInputOutOfRange, FixedTrainsOnCuda) {
  TORCH_TIDY_REQUIRE_CUDA();
  double First = 0, Last = 0;
  EXPECT_EQ(thrownMessage([&] {
              First = fixed::trainedLoss(torch::kCUDA, 1);
              Last = fixed::trainedLoss(torch::kCUDA, 50);
            }),
            "");
  EXPECT_TRUE(std::isfinite(First));
  EXPECT_LT(Last, First);
}

} // namespace
