//===- torch-stacked-samples-vary-in-size_test.cpp - runtime proof -------===//
//
// torch-stacked-samples-vary-in-size: a data set whose get() returns each
// sentence's tokens at the sentence's own length
// (examples/torch-stacked-samples-vary-in-size/buggy.cpp), batched with
// torch::data::transforms::Stack<>(), throws "stack expects each tensor to be
// equal size" at the first batch that holds two sentences of different
// lengths. The fixed twin pads (or cuts) every sentence to MaxLength (8)
// tokens on every path and yields a batch of BatchSize x 8 tokens and
// BatchSize labels.
//
// On a GPU: the throw is LibTorch's check of the sizes in torch::stack on the
// host, while the batch is assembled from CPU samples, before any kernel runs
// (no device-side assert). The CUDA test shows the same throw with a GPU
// present and moves the fixed batch to the GPU and checks it there.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace buggy {
torch::data::Example<> firstBatch(const std::vector<std::vector<int64_t>> &Tokens,
                                  const std::vector<int64_t> &Labels,
                                  size_t BatchSize);
} // namespace buggy

namespace fixed {
torch::data::Example<> firstBatch(const std::vector<std::vector<int64_t>> &Tokens,
                                  const std::vector<int64_t> &Labels,
                                  size_t BatchSize);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

constexpr int64_t MaxLength = 8; // fixed::MaxLength.

// Three sentences of three different lengths (one longer than MaxLength).
const std::vector<std::vector<int64_t>> Tokens = {
    {5, 6, 7}, {8, 9}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}};
const std::vector<int64_t> Labels = {0, 1, 1};

// What the fixed batch must hold: each sentence padded with 0 or cut to
// MaxLength tokens.
torch::Tensor expectedTokens() {
  torch::Tensor Expected = torch::zeros({3, MaxLength}, torch::kLong);
  for (size_t I = 0; I < Tokens.size(); ++I)
    for (size_t J = 0; J < Tokens[I].size() && J < size_t(MaxLength); ++J)
      Expected[I][J] = Tokens[I][J];
  return Expected;
}

TEST(StackedSamplesVaryInSize, RunDescription) {
  std::cout << runDescription() << "\n";
}

TEST(StackedSamplesVaryInSize, BuggyBatchOfTwoLengthsThrows) {
  const std::string Message =
      thrownMessage([] { buggy::firstBatch(Tokens, Labels, 3); });
  EXPECT_TRUE(contains(Message, "stack expects each tensor to be equal size"));
  // Samples of one length stack: it is the difference that throws.
  const std::string Same = thrownMessage(
      [] { buggy::firstBatch({{1, 2}, {3, 4}}, {0, 1}, 2); });
  EXPECT_EQ(Same, "");
}

TEST(StackedSamplesVaryInSize, FixedBatchHasFixedSizes) {
  torch::data::Example<> Batch;
  ASSERT_EQ(thrownMessage([&] { Batch = fixed::firstBatch(Tokens, Labels, 3); }),
            "");
  EXPECT_EQ(Batch.data.sizes(), torch::IntArrayRef({3, MaxLength}));
  EXPECT_EQ(Batch.target.sizes(), torch::IntArrayRef({3}));
  EXPECT_TRUE(torch::equal(Batch.data, expectedTokens()));
  EXPECT_TRUE(torch::equal(Batch.target, torch::tensor(Labels)));
}

TEST(StackedSamplesVaryInSize, CudaThrowsOnTheHostAndFixedBatchMoves) {
  TORCH_TIDY_REQUIRE_CUDA();
  // The throw comes from stacking the CPU samples, a GPU present or not.
  EXPECT_TRUE(contains(
      thrownMessage([] { buggy::firstBatch(Tokens, Labels, 3); }),
      "stack expects each tensor to be equal size"));
  torch::data::Example<> Batch = fixed::firstBatch(Tokens, Labels, 3);
  torch::Device Device = testDevice();
  torch::Tensor Data = Batch.data.to(Device);
  torch::Tensor Target = Batch.target.to(Device);
  EXPECT_TRUE(Data.is_cuda());
  EXPECT_EQ(Data.sizes(), torch::IntArrayRef({3, MaxLength}));
  EXPECT_TRUE(torch::equal(Data.cpu(), expectedTokens()));
  EXPECT_TRUE(torch::equal(Target.cpu(), torch::tensor(Labels)));
  // An embedding lookup of the whole batch runs on the GPU.
  torch::nn::Embedding Embed(16, 4);
  Embed->to(Device);
  torch::Tensor Out = Embed->forward(Data);
  EXPECT_EQ(Out.sizes(), torch::IntArrayRef({3, MaxLength, 4}));
  EXPECT_TRUE(Out.is_cuda());
}

} // namespace
