//===- RuntimeSupportSelfTest.cpp - tests of the runtime suite's helpers --===//
//
// The runtime proofs of the checks measure with these helpers, so the helpers
// are tested themselves: graph sizes on graphs whose node count is known, the
// messages thrownMessage returns, and the CUDA skips.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <stdexcept>

namespace {

using namespace torch_tidy_runtime;

TEST(RuntimeSupport, CountGraphNodesIsZeroWithoutHistory) {
  const torch::Tensor Leaf = torch::ones({2}, torch::requires_grad());
  EXPECT_EQ(countGraphNodes(Leaf), 0u);
  EXPECT_EQ(countGraphNodes((Leaf * 2).detach()), 0u);
  EXPECT_EQ(countGraphNodes(torch::ones({2}) * 2), 0u);
  torch::NoGradGuard NoGrad;
  EXPECT_EQ(countGraphNodes(Leaf * 2), 0u);
}

TEST(RuntimeSupport, CountGraphNodesCountsEachNodeOnce) {
  const torch::Tensor X = torch::ones({2}, torch::requires_grad());
  // SumBackward0 -> MulBackward0 -> AccumulateGrad(X).
  EXPECT_EQ(countGraphNodes((X * 2).sum()), 3u);
  // A diamond: AddBackward0 reaches MulBackward0 twice; it counts once.
  const torch::Tensor Y = X * 2;
  EXPECT_EQ(countGraphNodes(Y + Y), 3u);
}

TEST(RuntimeSupport, CountGraphNodesGrowsLinearlyWithAccumulatedGraphs) {
  const torch::Tensor X = torch::ones({2}, torch::requires_grad());
  torch::Tensor Acc = torch::zeros({});
  std::vector<size_t> Sizes;
  for (int I = 0; I < 4; ++I) {
    Acc = Acc + (X * 2).sum();
    Sizes.push_back(countGraphNodes(Acc));
  }
  // Each iteration adds AddBackward0, SumBackward0, MulBackward0.
  for (size_t I = 1; I < Sizes.size(); ++I)
    EXPECT_EQ(Sizes[I] - Sizes[I - 1], 3u);
}

TEST(RuntimeSupport, ThrownMessage) {
  EXPECT_EQ(thrownMessage([] {}), "");
  EXPECT_EQ(thrownMessage([] { throw std::runtime_error("plain"); }), "plain");
  EXPECT_NE(
      thrownMessage([] { TORCH_CHECK(false, "from c10"); }).find("from c10"),
      std::string::npos);
  EXPECT_EQ(thrownMessage([] { throw 42; }), "<non-std exception>");
  // A real LibTorch failure: its what() carries the message.
  const torch::Tensor X = torch::ones({2}, torch::requires_grad());
  const torch::Tensor L = (X * X).sum();
  L.backward();
  EXPECT_NE(thrownMessage([&] {
              L.backward();
            }).find("Trying to backward through the graph a second time"),
            std::string::npos);
}

TEST(RuntimeSupport, ContainsMatchesSubstringsAndShowsTheText) {
  EXPECT_TRUE(
      contains("Trying to backward\nException raised from", "backward"));
  EXPECT_TRUE(contains("abc", ""));
  const ::testing::AssertionResult Missing =
      contains("first line\nsecond", "third");
  EXPECT_FALSE(Missing);
  EXPECT_NE(std::string(Missing.message())
                .find("expected \"third\" in:\nfirst line\nsecond"),
            std::string::npos)
      << Missing.message();
}

TEST(RuntimeSupport, TestDeviceFollowsCudaAvailability) {
  std::cout << "[ info     ] " << runDescription() << "\n";
  EXPECT_EQ(testDevice().is_cuda(), cudaAvailable());
  EXPECT_EQ(cudaAvailable(), torch::cuda::is_available());
  if (!cudaAllocatorStatsAvailable()) {
    EXPECT_EQ(cudaAllocatedBytes(), -1);
  }
}

// The build says which LibTorch it linked (test/runtime/CMakeLists.txt): Debian's
// CPU-only one, or a CUDA build (the torch wheel's) whose libtorch_cuda must really be
// loaded, GPU or not: linked with --as-needed it would silently drop out, and every
// CUDA-only test would then skip for the wrong reason.
TEST(RuntimeSupport, CudaBackendIsLinkedExactlyWhenTheBuildSaysSo) {
  EXPECT_EQ(libtorchHasCudaBackend(), TORCH_TIDY_RUNTIME_EXPECT_CUDA_BACKEND != 0)
      << runDescription();
}

// Must report SKIPPED on a machine without a GPU (ctest: "Not Run (Skipped)").
TEST(RuntimeSupport, CudaOnlyRequireCudaRunsOnlyWithGpu) {
  TORCH_TIDY_REQUIRE_CUDA();
  EXPECT_TRUE(cudaAvailable());
  EXPECT_TRUE(testDevice().is_cuda());
}

TEST(RuntimeSupport, CudaOnlyAllocatorBytesFollowAllocations) {
  TORCH_TIDY_REQUIRE_CUDA_ALLOCATOR_STATS();
  const int64_t Before = cudaAllocatedBytes();
  ASSERT_GE(Before, 0);
  torch::Tensor Block =
      torch::empty({1 << 20}, torch::dtype(torch::kFloat).device(torch::kCUDA));
  EXPECT_GE(cudaAllocatedBytes() - Before, int64_t{4} << 20);
  Block.reset();
  EXPECT_EQ(cudaAllocatedBytes(), Before);
}

} // namespace
