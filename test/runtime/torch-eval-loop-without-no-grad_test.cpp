//===- torch-eval-loop-without-no-grad_test.cpp - runtime proof, check 2
//---===//
//
// torch-eval-loop-without-no-grad: an evaluation loop without a gradient-
// disabling guard (examples/torch-eval-loop-without-no-grad/buggy.cpp)
// records a graph for every batch even though the module is in eval() mode:
// the outputs carry grad_fn and hold the saved activations (on a GPU: more
// allocated bytes than the guarded twin). The fixed twin, under
// torch::NoGradGuard, returns outputs without any graph and the same values.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <vector>

namespace buggy {
std::vector<torch::Tensor> evaluate(torch::nn::Sequential &Model,
                                    const std::vector<torch::Tensor> &Batches);
} // namespace buggy

namespace fixed {
std::vector<torch::Tensor> evaluate(torch::nn::Sequential &Model,
                                    const std::vector<torch::Tensor> &Batches);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

torch::nn::Sequential makeModel() {
  torch::manual_seed(0);
  torch::nn::Sequential Model(torch::nn::Linear(8, 256), torch::nn::ReLU(),
                              torch::nn::Dropout(0.5),
                              torch::nn::Linear(256, 2));
  Model->to(testDevice());
  return Model;
}

std::vector<torch::Tensor> makeBatches(int Count) {
  std::vector<torch::Tensor> Batches;
  for (int I = 0; I < Count; ++I)
    Batches.push_back(torch::randn({64, 8}, testDevice()));
  return Batches;
}

TEST(EvalLoopWithoutNoGrad, RunDescription) {
  std::cout << runDescription() << "\n";
}

TEST(EvalLoopWithoutNoGrad, BuggyOutputsCarryGraphs) {
  torch::nn::Sequential Model = makeModel();
  std::vector<torch::Tensor> Outputs = buggy::evaluate(Model, makeBatches(8));
  ASSERT_EQ(Outputs.size(), 8u);
  for (const torch::Tensor &Out : Outputs) {
    EXPECT_TRUE(Out.requires_grad());
    ASSERT_NE(Out.grad_fn(), nullptr);
    // Linear -> ReLU -> Linear: the saved activations live in these nodes.
    EXPECT_GE(countGraphNodes(Out), 4u);
  }
  EXPECT_FALSE(Model->is_training()) << "eval() alone does not stop autograd";
}

TEST(EvalLoopWithoutNoGrad, FixedOutputsHaveNoGraphAndSameValues) {
  torch::nn::Sequential Model = makeModel();
  std::vector<torch::Tensor> Batches = makeBatches(8);
  std::vector<torch::Tensor> Fixed = fixed::evaluate(Model, Batches);
  std::vector<torch::Tensor> Buggy = buggy::evaluate(Model, Batches);
  ASSERT_EQ(Fixed.size(), Buggy.size());
  for (size_t I = 0; I < Fixed.size(); ++I) {
    EXPECT_FALSE(Fixed[I].requires_grad());
    EXPECT_EQ(countGraphNodes(Fixed[I]), 0u);
    EXPECT_TRUE(torch::allclose(Fixed[I], Buggy[I].detach()));
  }
}

TEST(EvalLoopWithoutNoGrad, CudaBuggyKeepsMoreMemory) {
  TORCH_TIDY_REQUIRE_CUDA_ALLOCATOR_STATS();
  torch::nn::Sequential Model = makeModel();
  std::vector<torch::Tensor> Batches = makeBatches(32);
  const int64_t Before = cudaAllocatedBytes();
  int64_t Buggy = 0, Fixed = 0;
  {
    std::vector<torch::Tensor> Outputs = buggy::evaluate(Model, Batches);
    Buggy = cudaAllocatedBytes() - Before;
  }
  {
    std::vector<torch::Tensor> Outputs = fixed::evaluate(Model, Batches);
    Fixed = cudaAllocatedBytes() - Before;
  }
  EXPECT_GT(Buggy, Fixed) << "saved activations stay alive with the outputs";
}

} // namespace
