// torch-from-blob-outlives-buffer, buggy: tensors over memory that is freed.
//
// torch::from_blob(ptr, sizes) neither copies nor owns ptr's memory: the
// tensor is valid only while that memory lives. Both functions below wrap a
// local std::vector and return the tensor (one through a view): when the
// function returns, the vector frees its memory, and the caller's tensor reads
// freed memory that the next allocation of the same size overwrites. The
// runtime test (test/runtime/torch-from-blob-outlives-buffer_test.cpp) shows
// the returned tensors reading another buffer's values.
//
// Standalone: buggy (prints the first pixels after another buffer is made).
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <vector>

namespace buggy {

// Turns an interleaved 8-bit RGB image (height x width x 3 bytes, as an image
// library hands it out) into the CHW tensor a convolutional model takes.
torch::Tensor imageToTensor(const std::vector<uint8_t> &Interleaved,
                            int64_t Height, int64_t Width) {
  std::vector<uint8_t> Pixels(Interleaved.begin(), Interleaved.end());
  torch::Tensor Image =
      torch::from_blob(Pixels.data(), {Height, Width, 3}, torch::kByte);
  return Image.permute({2, 0, 1});
}

// Standardises raw features to zero mean and unit variance.
torch::Tensor standardise(const std::vector<float> &Raw) {
  double Mean = 0, Square = 0;
  for (float V : Raw) {
    Mean += V;
    Square += double(V) * V;
  }
  Mean /= Raw.size();
  const double Std = std::sqrt(Square / Raw.size() - Mean * Mean) + 1e-6;
  std::vector<float> Features(Raw.size());
  for (size_t I = 0; I < Raw.size(); ++I)
    Features[I] = static_cast<float>((Raw[I] - Mean) / Std);
  return torch::from_blob(Features.data(),
                          {static_cast<int64_t>(Features.size())});
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  std::vector<uint8_t> Interleaved(5 * 7 * 3);
  for (size_t I = 0; I < Interleaved.size(); ++I)
    Interleaved[I] = static_cast<uint8_t>(I);
  torch::Tensor Image = buggy::imageToTensor(Interleaved, 5, 7);
  std::vector<uint8_t> Next(Interleaved.size(), 0xEE); // reuses the memory
  std::cout << "pixel (0,0,0..2): " << Image.select(2, 0).select(1, 0) << "\n";
  return 0;
}
#endif
