//===- torch-loss-accumulated-without-item_test.cpp - runtime proof, check 1
//===//
//
// torch-loss-accumulated-without-item: a training loop that accumulates the
// loss tensor itself (examples/torch-loss-accumulated-without-item/buggy.cpp)
// keeps every iteration's autograd graph alive: the number of autograd nodes
// reachable from the accumulator grows linearly with the iterations, and on a
// GPU so do the caching allocator's bytes. The fixed twin accumulates detached
// values: no node, and memory stays flat.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <vector>

namespace buggy {
torch::Tensor runningLoss(int Steps, torch::Device Device);
std::vector<torch::Tensor> lossHistory(int Steps, torch::Device Device);
} // namespace buggy

namespace fixed {
torch::Tensor runningLoss(int Steps, torch::Device Device);
std::vector<torch::Tensor> lossHistory(int Steps, torch::Device Device);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

TEST(LossAccumulatedWithoutItem, RunDescription) {
  std::cout << runDescription() << "\n";
}

TEST(LossAccumulatedWithoutItem, BuggyAccumulatorGraphGrowsLinearly) {
  const size_t Nodes10 = countGraphNodes(buggy::runningLoss(10, testDevice()));
  const size_t Nodes20 = countGraphNodes(buggy::runningLoss(20, testDevice()));
  const size_t Nodes40 = countGraphNodes(buggy::runningLoss(40, testDevice()));
  // Every iteration adds the same number of nodes (its loss graph and the
  // AddBackward that chains it on); the parameters' AccumulateGrad nodes are
  // shared.
  std::cout << "autograd nodes reachable from the accumulator after 10/20/40 "
               "iterations: "
            << Nodes10 << " / " << Nodes20 << " / " << Nodes40 << "\n";
  ASSERT_GT(Nodes10, 10u);
  EXPECT_GT(Nodes20, Nodes10);
  EXPECT_EQ(Nodes40 - Nodes20, 2 * (Nodes20 - Nodes10))
      << "nodes: " << Nodes10 << ", " << Nodes20 << ", " << Nodes40;
}

TEST(LossAccumulatedWithoutItem, FixedAccumulatorHasNoGraph) {
  for (int Steps : {10, 40}) {
    torch::Tensor Total = fixed::runningLoss(Steps, testDevice());
    EXPECT_EQ(countGraphNodes(Total), 0u);
    EXPECT_FALSE(Total.requires_grad());
  }
  // Same values: only the graph is gone.
  EXPECT_TRUE(torch::allclose(fixed::runningLoss(10, testDevice()),
                              buggy::runningLoss(10, testDevice()).detach()));
}

TEST(LossAccumulatedWithoutItem, BuggyHistoryKeepsEveryGraph) {
  std::vector<torch::Tensor> History = buggy::lossHistory(20, testDevice());
  ASSERT_EQ(History.size(), 20u);
  for (const torch::Tensor &Loss : History)
    EXPECT_GT(countGraphNodes(Loss), 0u) << "each kept loss holds its graph";
}

TEST(LossAccumulatedWithoutItem, FixedHistoryKeepsNoGraph) {
  std::vector<torch::Tensor> History = fixed::lossHistory(20, testDevice());
  ASSERT_EQ(History.size(), 20u);
  for (const torch::Tensor &Loss : History)
    EXPECT_EQ(countGraphNodes(Loss), 0u);
}

TEST(LossAccumulatedWithoutItem, CudaAllocatedBytesGrowOnlyInBuggy) {
  TORCH_TIDY_REQUIRE_CUDA_ALLOCATOR_STATS();
  const int64_t Before = cudaAllocatedBytes();
  int64_t Buggy10 = 0, Buggy40 = 0, Fixed10 = 0, Fixed40 = 0;
  {
    torch::Tensor Total = buggy::runningLoss(10, testDevice());
    Buggy10 = cudaAllocatedBytes() - Before;
  }
  {
    torch::Tensor Total = buggy::runningLoss(40, testDevice());
    Buggy40 = cudaAllocatedBytes() - Before;
  }
  {
    torch::Tensor Total = fixed::runningLoss(10, testDevice());
    Fixed10 = cudaAllocatedBytes() - Before;
  }
  {
    torch::Tensor Total = fixed::runningLoss(40, testDevice());
    Fixed40 = cudaAllocatedBytes() - Before;
  }
  EXPECT_GT(Buggy40, Buggy10) << "the kept graphs hold device memory";
  EXPECT_EQ(Fixed40, Fixed10) << "detached accumulation stays flat";
}

} // namespace
