//===- torch-from-blob-outlives-buffer_test.cpp - check 14
//-----------------===//
//
// torch-from-blob-outlives-buffer: the functions of
// examples/torch-from-blob-outlives-buffer/buggy.cpp return tensors that
// torch::from_blob made over a local std::vector. Once the function returns,
// the vector's memory is freed; the next allocation of the same size gets it
// back (glibc's allocator reuses a freed chunk first), and the returned
// tensor's storage is that new buffer: the tensor reads its values, not the
// image's or the features'. The .clone() twins (fixed.cpp) keep their values.
// CPU only: from_blob wraps host memory.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace buggy {
torch::Tensor imageToTensor(const std::vector<uint8_t> &Interleaved,
                            int64_t Height, int64_t Width);
torch::Tensor standardise(const std::vector<float> &Raw);
} // namespace buggy

namespace fixed {
torch::Tensor imageToTensor(const std::vector<uint8_t> &Interleaved,
                            int64_t Height, int64_t Width);
torch::Tensor standardise(const std::vector<float> &Raw);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

constexpr int64_t Height = 5, Width = 7;

std::vector<uint8_t> interleavedImage() {
  std::vector<uint8_t> Interleaved(Height * Width * 3);
  for (size_t I = 0; I < Interleaved.size(); ++I)
    Interleaved[I] = static_cast<uint8_t>(I % 200);
  return Interleaved;
}

// What the image tensor must hold: the interleaved bytes as CHW.
torch::Tensor expectedImage(std::vector<uint8_t> Interleaved) {
  return torch::from_blob(Interleaved.data(), {Height, Width, 3}, torch::kByte)
      .permute({2, 0, 1})
      .clone();
}

std::vector<float> rawFeatures() {
  std::vector<float> Raw;
  for (int I = 0; I < 29; ++I)
    Raw.push_back(static_cast<float>(I * I % 17));
  return Raw;
}

using ImageFn = torch::Tensor (*)(const std::vector<uint8_t> &, int64_t,
                                  int64_t);
using FeatureFn = torch::Tensor (*)(const std::vector<float> &);

struct ImageRun {
  torch::Tensor Image;
  bool StorageIsTheNextBuffer;
};

// Calls F, then allocates a buffer of the image's size and fills it with 0xEE
// while the returned tensor is alive.
ImageRun runImage(ImageFn F) {
  const std::vector<uint8_t> Interleaved = interleavedImage();
  torch::Tensor Image = F(Interleaved, Height, Width);
  std::vector<uint8_t> Next(Interleaved.size(), 0xEE);
  const bool Same = Image.data_ptr() == static_cast<void *>(Next.data());
  // Read the values while Next still lives.
  return {Image.clone(), Same};
}

struct FeatureRun {
  torch::Tensor Features;
  bool StorageIsTheNextBuffer;
};

FeatureRun runFeatures(FeatureFn F) {
  const std::vector<float> Raw = rawFeatures();
  torch::Tensor Features = F(Raw);
  std::vector<float> Next(Raw.size(), -123.0f);
  const bool Same = Features.data_ptr() == static_cast<void *>(Next.data());
  return {Features.clone(), Same};
}

torch::Tensor expectedFeatures() {
  auto Raw = torch::tensor(rawFeatures(), torch::kDouble);
  auto Mean = Raw.mean();
  auto Std = (Raw.pow(2).mean() - Mean * Mean).sqrt() + 1e-6;
  return ((Raw - Mean) / Std).to(torch::kFloat);
}

TEST(FromBlobOutlivesBuffer, ImageTensorReadsTheNextBuffer) {
  std::cout << runDescription() << "\n";
  ImageRun Run = runImage(buggy::imageToTensor);
  // The tensor's storage is the memory the vector freed, now another buffer's.
  EXPECT_TRUE(Run.StorageIsTheNextBuffer);
  EXPECT_FALSE(torch::equal(Run.Image, expectedImage(interleavedImage())));
  EXPECT_TRUE(torch::all(Run.Image == 0xEE).item<bool>());
}

TEST(FromBlobOutlivesBuffer, FeatureTensorReadsTheNextBuffer) {
  FeatureRun Run = runFeatures(buggy::standardise);
  EXPECT_TRUE(Run.StorageIsTheNextBuffer);
  EXPECT_FALSE(torch::allclose(Run.Features, expectedFeatures(), 1e-4, 1e-5));
  EXPECT_TRUE(torch::all(Run.Features == -123.0f).item<bool>());
}

TEST(FromBlobOutlivesBuffer, ClonedImageKeepsItsValues) {
  ImageRun Run = runImage(fixed::imageToTensor);
  EXPECT_FALSE(Run.StorageIsTheNextBuffer);
  EXPECT_TRUE(torch::equal(Run.Image, expectedImage(interleavedImage())));
}

TEST(FromBlobOutlivesBuffer, ClonedFeaturesKeepTheirValues) {
  FeatureRun Run = runFeatures(fixed::standardise);
  EXPECT_FALSE(Run.StorageIsTheNextBuffer);
  EXPECT_TRUE(torch::allclose(Run.Features, expectedFeatures(), 1e-4, 1e-5));
}

} // namespace
