// torch-discarded-tensor-result, buggy: out-of-place tensor operations whose
// results are dropped.
//
// `Images.to(torch::kFloat);` returns a converted copy and leaves `Images` as
// it was; so do contiguous(), div(), clamp() and to(device), and so does
// `P.sub(...)` on a parameter. Every one of these statements does nothing: the
// batch stays 8-bit, channels-last and unscaled, a model fed it throws, and
// the "optimizer step" leaves the parameters where they were. The runtime
// test (test/runtime/torch-discarded-tensor-result_test.cpp) measures both.
//
// Standalone: buggy
#include <torch/torch.h>

#include <iostream>

namespace buggy {

// Turns a batch of 8-bit images (N x H x W x C) into the network's input:
// channels first, contiguous, float in [0, 1], on the device.
torch::Tensor prepareImages(torch::Tensor Images, torch::Device Device) {
  Images = Images.permute({0, 3, 1, 2});
  Images.contiguous();
  Images.to(torch::kFloat);
  Images.div(255);
  Images.clamp(0, 1);
  Images.to(Device);
  return Images;
}

// One step of plain gradient descent on the network's parameters.
void sgdStep(torch::nn::Linear &Net, double LearningRate) {
  torch::NoGradGuard NoGrad;
  for (auto &P : Net->parameters())
    P.sub(P.grad() * LearningRate);
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  torch::Tensor Images =
      torch::randint(0, 256, {2, 2, 2, 3}, torch::TensorOptions(torch::kByte));
  torch::Tensor Input = buggy::prepareImages(Images, torch::kCPU);
  std::cout << "dtype " << Input.dtype() << ", contiguous "
            << Input.is_contiguous() << ", max " << Input.max().item<double>()
            << "\n";
  return Input.scalar_type() == torch::kFloat && Input.is_contiguous() &&
                 Input.max().item<double>() <= 1
             ? 0
             : 1;
}
#endif
