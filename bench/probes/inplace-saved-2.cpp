// Report: https://github.com/pytorch/pytorch/issues/34429
// What went wrong: two successive in-place ReLU operations after conv + batch norm made
// backward fail: the second relu_ modifies the output the first one saved.
#include <torch/torch.h>

torch::Tensor stem(torch::nn::Conv2d &conv1, torch::nn::BatchNorm2d &bn, const torch::Tensor &input) {
  auto x = conv1(input);
  x = bn(x);
  x.relu_();   // bn does not need its output: fine
  x.relu_(); // EXPECT: torch-inplace-on-saved-tensor
  return x.flatten().sum();
}

void run(torch::nn::Conv2d &conv1, torch::nn::BatchNorm2d &bn) {
  auto input = torch::randn({10, 3, 8, 8});
  auto loss = stem(conv1, bn, input);
  loss.backward();
}
