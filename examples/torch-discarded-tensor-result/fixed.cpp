// torch-discarded-tensor-result, fixed: every result of an out-of-place
// tensor operation is kept.
//
// Conversions and views are assigned back (`Images = Images.to(...)`); value
// changes use the in-place forms (`div_`, `clamp_`, `sub_` on the parameters
// under torch::NoGradGuard). The batch comes out float, contiguous and in
// [0, 1], and the step moves the parameters.
//
// Standalone: fixed
#include <torch/torch.h>

#include <iostream>

namespace fixed {

// Turns a batch of 8-bit images (N x H x W x C) into the network's input:
// channels first, contiguous, float in [0, 1], on the device.
torch::Tensor prepareImages(torch::Tensor Images, torch::Device Device) {
  Images = Images.permute({0, 3, 1, 2});
  Images = Images.contiguous();
  Images = Images.to(torch::kFloat);
  Images.div_(255);
  Images.clamp_(0, 1);
  Images = Images.to(Device);
  return Images;
}

// One step of plain gradient descent on the network's parameters.
void sgdStep(torch::nn::Linear &Net, double LearningRate) {
  torch::NoGradGuard NoGrad;
  for (auto &P : Net->parameters())
    P.sub_(P.grad() * LearningRate);
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  torch::Tensor Images =
      torch::randint(0, 256, {2, 2, 2, 3}, torch::TensorOptions(torch::kByte));
  torch::Tensor Input = fixed::prepareImages(Images, torch::kCPU);
  std::cout << "dtype " << Input.dtype() << ", contiguous "
            << Input.is_contiguous() << ", max " << Input.max().item<double>()
            << "\n";
  return Input.scalar_type() == torch::kFloat && Input.is_contiguous() &&
                 Input.max().item<double>() <= 1
             ? 0
             : 1;
}
#endif
