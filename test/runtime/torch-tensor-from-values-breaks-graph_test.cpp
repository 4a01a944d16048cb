//===- torch-tensor-from-values-breaks-graph_test.cpp - check 3 -----------===//
//
// torch-tensor-from-values-breaks-graph: a forward() that rebuilds its output
// with torch::tensor from item() reads
// (examples/torch-tensor-from-values-breaks-graph/buggy.cpp) returns a tensor
// without grad_fn: backward() on a loss of it throws "element 0 of tensors
// does not require grad and does not have a grad_fn", and when other terms
// keep the loss differentiable, the layer's parameters silently get no
// gradient. The torch::stack twin (fixed.cpp) trains.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <string>

#include <vector>

namespace buggy {
torch::Tensor trainStep(torch::Device Device);
} // namespace buggy

namespace fixed {
torch::Tensor trainStep(torch::Device Device);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

TEST(TensorFromValuesBreaksGraph, BackwardThrowsWithoutGradFn) {
  std::cout << runDescription() << "\n";
  EXPECT_TRUE(contains(thrownMessage([] { buggy::trainStep(testDevice()); }),
                       "element 0 of tensors does not require grad and does "
                       "not have a grad_fn"));
}

// The same construction next to a differentiable term: backward() runs, but
// the parameters behind the rebuilt tensor get no gradient.
TEST(TensorFromValuesBreaksGraph, ParametersSilentlyGetNoGradient) {
  const torch::Device Device = testDevice();
  torch::manual_seed(0);
  torch::nn::Linear Scorer(4, 3), Other(4, 1);
  Scorer->to(Device);
  Other->to(Device);
  auto X = torch::randn({8, 4}, Device);
  auto Scores = Scorer(X);
  std::vector<float> Best;
  for (int64_t I = 0; I < Scores.size(0); ++I)
    Best.push_back(Scores[I].max().item<float>());
  auto Rebuilt = torch::tensor(Best).to(Device);
  EXPECT_EQ(countGraphNodes(Rebuilt), 0u);
  EXPECT_FALSE(Rebuilt.requires_grad());
  auto Loss = Rebuilt.pow(2).mean() + Other(X).pow(2).mean();
  EXPECT_EQ(thrownMessage([&] { Loss.backward(); }), "");
  EXPECT_TRUE(Other->weight.grad().defined());
  EXPECT_FALSE(Scorer->weight.grad().defined()); // never learns
}

TEST(TensorFromValuesBreaksGraph, StackTwinTrains) {
  torch::Tensor Grad;
  EXPECT_EQ(thrownMessage([&] { Grad = fixed::trainStep(testDevice()); }), "");
  ASSERT_TRUE(Grad.defined());
  EXPECT_GT(Grad.abs().sum().item<double>(), 0.0);
}

} // namespace
