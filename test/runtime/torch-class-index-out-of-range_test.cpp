//===- torch-class-index-out-of-range_test.cpp - runtime proof -----------===//
//
// torch-class-index-out-of-range: labels numbered from 1 given to a 10-class
// head (examples/torch-class-index-out-of-range/buggy.cpp). On the CPU the
// loss throws "Target 10 is out of bounds."; on CUDA the nll_loss kernel's
// assertion `t >= 0 && t < n_classes` fails, and the error surfaces as
// "device-side assert triggered" at the next synchronisation (checked in a
// child process: the CUDA context is unusable afterwards; SKIPPED without a
// GPU, never passed). The fixed twin (the labels shifted to 0..9) gives a
// finite loss that training lowers, on the CPU and on CUDA.
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

TEST(ClassIndexOutOfRange, RunDescription) { std::cout << runDescription() << "\n"; }

TEST(ClassIndexOutOfRange, BuggyThrowsTargetOutOfBoundsOnCpu) {
  EXPECT_TRUE(contains(thrownMessage([] { buggy::trainedLoss(torch::kCPU, 1); }),
                       "Target 10 is out of bounds"));
}

TEST(ClassIndexOutOfRange, FixedTrainsOnCpu) {
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
TEST(ClassIndexOutOfRange, BuggyTriggersDeviceSideAssertOnCuda) {
  TORCH_TIDY_REQUIRE_CUDA();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exitAfterDeviceSideAssert([] { buggy::trainedLoss(torch::kCUDA, 1); }),
              ::testing::ExitedWithCode(0), "");
}

TEST(ClassIndexOutOfRange, FixedTrainsOnCuda) {
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
