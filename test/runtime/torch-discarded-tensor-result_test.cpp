//===- torch-discarded-tensor-result_test.cpp - runtime proof ------------===//
//
// torch-discarded-tensor-result: a statement that calls an out-of-place tensor
// operation and drops its result does nothing
// (examples/torch-discarded-tensor-result/buggy.cpp). After
// `Images.contiguous(); Images.to(torch::kFloat); Images.div(255);
// Images.clamp(0, 1); Images.to(Device);` the batch still has its old layout,
// dtype, values and device: a model fed it throws, and `P.sub(...)` on the
// parameters leaves them where they were. The fixed twin (assignments and
// in-place forms) gives a contiguous float batch in [0, 1] and moves the
// parameters.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

namespace buggy {
torch::Tensor prepareImages(torch::Tensor Images, torch::Device Device);
void sgdStep(torch::nn::Linear &Net, double LearningRate);
} // namespace buggy

namespace fixed {
torch::Tensor prepareImages(torch::Tensor Images, torch::Device Device);
void sgdStep(torch::nn::Linear &Net, double LearningRate);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

// A batch of two 2 x 2 RGB images, 8 bits per channel, channels last.
torch::Tensor images() {
  torch::manual_seed(0);
  return torch::randint(0, 256, {2, 2, 2, 3},
                        torch::TensorOptions(torch::kByte));
}

TEST(DiscardedTensorResult, RunDescription) {
  std::cout << runDescription() << "\n";
}

TEST(DiscardedTensorResult, BuggyBatchKeepsDtypeLayoutAndValues) {
  torch::Tensor Raw = images();
  torch::Tensor Buggy = buggy::prepareImages(Raw, torch::kCPU);
  torch::Tensor Fixed = fixed::prepareImages(Raw, torch::kCPU);
  std::cout << "buggy: dtype " << Buggy.dtype() << ", contiguous "
            << Buggy.is_contiguous() << ", max " << Buggy.max().item<double>()
            << "; fixed: dtype " << Fixed.dtype() << ", contiguous "
            << Fixed.is_contiguous() << ", max " << Fixed.max().item<double>()
            << "\n";
  // Every dropped statement left the tensor as permute() made it.
  EXPECT_EQ(Buggy.scalar_type(), torch::kByte);
  EXPECT_FALSE(Buggy.is_contiguous());
  EXPECT_GT(Buggy.max().item<double>(), 1);
  EXPECT_TRUE(torch::equal(Buggy, Raw.permute({0, 3, 1, 2})));
  // The fixed twin converts, lays out and scales.
  EXPECT_EQ(Fixed.scalar_type(), torch::kFloat);
  EXPECT_TRUE(Fixed.is_contiguous());
  EXPECT_LE(Fixed.max().item<double>(), 1);
  EXPECT_GE(Fixed.min().item<double>(), 0);
  EXPECT_TRUE(torch::allclose(
      Fixed, Raw.permute({0, 3, 1, 2}).to(torch::kFloat) / 255));
}

TEST(DiscardedTensorResult, ModelFedTheBuggyBatchSeesTheUnconvertedInput) {
  torch::manual_seed(0);
  torch::nn::Linear Net(12, 2);
  const std::string Buggy = thrownMessage([&] {
    Net->forward(buggy::prepareImages(images(), torch::kCPU).flatten(1));
  });
  std::cout << "model on the buggy batch throws: "
            << Buggy.substr(0, Buggy.find('\n')) << "\n";
  EXPECT_TRUE(contains(Buggy, "mat1 and mat2 must have the same dtype"));
  const std::string Fixed = thrownMessage([&] {
    torch::Tensor Out =
        Net->forward(fixed::prepareImages(images(), torch::kCPU).flatten(1));
    EXPECT_TRUE(torch::isfinite(Out).all().item<bool>());
  });
  EXPECT_EQ(Fixed, "");
}

TEST(DiscardedTensorResult, BuggyStepLeavesTheParametersUnchanged) {
  for (const bool UseFixed : {false, true}) {
    torch::manual_seed(0);
    torch::nn::Linear Net(4, 1);
    torch::Tensor X = torch::randn({8, 4});
    Net->forward(X).pow(2).mean().backward();
    std::vector<torch::Tensor> Before;
    for (const auto &P : Net->parameters())
      Before.push_back(P.detach().clone());
    if (UseFixed)
      fixed::sgdStep(Net, 0.1);
    else
      buggy::sgdStep(Net, 0.1);
    double Moved = 0;
    for (size_t I = 0; I < Before.size(); ++I)
      Moved += (Net->parameters()[I] - Before[I]).abs().sum().item<double>();
    std::cout << (UseFixed ? "fixed" : "buggy")
              << " step moved the parameters by " << Moved << "\n";
    if (UseFixed) {
      EXPECT_GT(Moved, 0);
      for (size_t I = 0; I < Before.size(); ++I)
        EXPECT_TRUE(
            torch::allclose(Net->parameters()[I],
                            Before[I] - 0.1 * Net->parameters()[I].grad()));
    } else {
      EXPECT_EQ(Moved, 0);
    }
  }
}

// On a GPU the dropped `Images.to(Device)` leaves the batch on the CPU while
// the model is on the GPU.
TEST(DiscardedTensorResult, CudaBatchStaysOnTheCpu) {
  TORCH_TIDY_REQUIRE_CUDA();
  torch::Device Device = testDevice();
  torch::Tensor Buggy = buggy::prepareImages(images(), Device);
  torch::Tensor Fixed = fixed::prepareImages(images(), Device);
  EXPECT_TRUE(Buggy.device().is_cpu());
  EXPECT_EQ(Fixed.device(), Device);
  torch::nn::Linear Net(12, 2);
  Net->to(Device);
  EXPECT_NE(
      thrownMessage([&] { Net->forward(Buggy.to(torch::kFloat).flatten(1)); }),
      "");
  EXPECT_EQ(thrownMessage([&] { Net->forward(Fixed.flatten(1)); }), "");
}

} // namespace
