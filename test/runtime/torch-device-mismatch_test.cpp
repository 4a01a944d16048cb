//===- torch-device-mismatch_test.cpp - runtime proof ---------------------===//
//
// torch-device-mismatch: a module moved to a device and fed a tensor made on
// the CPU (examples/torch-device-mismatch/buggy.cpp) throws "Expected all
// tensors to be on the same device" as soon as the device is not the CPU.
// Debian's LibTorch 1.13 is CPU-only, but it has the `meta` device (shapes,
// no data). Its Module::to cannot move CPU parameters there (set_data
// refuses: "incompatible tensor type"), so the example's regressor creates
// its parameters on meta and `to(meta)` keeps them there; 1.13's meta
// kernels for matmul do not compare devices, and the loss is the first
// operation that does: the buggy example throws naming meta and cpu, the
// fixed twin computes its loss on meta. On the CPU both run (the bug is
// invisible on a CPU-only machine, which is why it ships). On a GPU the
// CUDA-only test asserts the "cuda:0 and cpu" message; without one it reports
// itself skipped.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <cmath>

namespace buggy {
torch::Tensor batchLoss(torch::Device Device,
                        const torch::TensorOptions &ParameterOptions);
} // namespace buggy

namespace fixed {
torch::Tensor batchLoss(torch::Device Device,
                        const torch::TensorOptions &ParameterOptions);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

constexpr const char *Mismatch =
    "Expected all tensors to be on the same device, but found at least two "
    "devices";

TEST(DeviceMismatch, RunDescription) { std::cout << runDescription() << "\n"; }

// On the CPU the buggy program runs: the bug does not show on a CPU-only
// machine.
TEST(DeviceMismatch, BothRunOnTheCpu) {
  const torch::Tensor BuggyLoss = buggy::batchLoss(torch::kCPU, {});
  const torch::Tensor FixedLoss = fixed::batchLoss(torch::kCPU, {});
  EXPECT_TRUE(BuggyLoss.device().is_cpu());
  EXPECT_TRUE(FixedLoss.device().is_cpu());
  EXPECT_TRUE(std::isfinite(BuggyLoss.item<double>()));
  EXPECT_TRUE(std::isfinite(FixedLoss.item<double>()));
}

// On another device (meta, which the CPU build has) the buggy forward throws.
TEST(DeviceMismatch, BuggyThrowsOnTheMetaDevice) {
  const torch::Device Meta("meta");
  const torch::TensorOptions OnMeta = torch::TensorOptions().device(Meta);
  const std::string Message =
      thrownMessage([&] { buggy::batchLoss(Meta, OnMeta); });
  std::cout << "buggy on meta: " << Message.substr(0, Message.find('\n'))
            << "\n";
  EXPECT_TRUE(contains(Message, Mismatch));
  EXPECT_TRUE(contains(Message, "meta and cpu"));
}

TEST(DeviceMismatch, FixedComputesOnTheMetaDevice) {
  const torch::Device Meta("meta");
  const torch::TensorOptions OnMeta = torch::TensorOptions().device(Meta);
  torch::Tensor Loss;
  EXPECT_EQ(thrownMessage([&] { Loss = fixed::batchLoss(Meta, OnMeta); }), "");
  ASSERT_TRUE(Loss.defined());
  EXPECT_TRUE(Loss.device().is_meta());
  EXPECT_EQ(Loss.dim(), 0);
}

// CUDA-only: the error users see.
TEST(DeviceMismatch, BuggyThrowsOnCuda) {
  TORCH_TIDY_REQUIRE_CUDA();
  const std::string Message =
      thrownMessage([&] { buggy::batchLoss(torch::kCUDA, {}); });
  EXPECT_TRUE(contains(Message, Mismatch));
  EXPECT_TRUE(contains(Message, "cuda:0 and cpu"));
  torch::Tensor Loss;
  EXPECT_EQ(
      thrownMessage([&] { Loss = fixed::batchLoss(torch::kCUDA, {}); }), "");
  EXPECT_TRUE(Loss.device().is_cuda());
  EXPECT_TRUE(std::isfinite(Loss.item<double>()));
}

} // namespace
