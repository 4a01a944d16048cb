// torch-optimizer-created-in-loop, buggy: the Adam optimizer is constructed
// inside the training loop.
//
// Every iteration builds a new torch::optim::Adam over the same parameters,
// so every step is Adam's first: its moments are this step's gradient alone
// and its bias correction is that of step 1. The update is then
// lr * g / (|g| + eps), a step of exactly lr against the gradient's sign on
// every element, however small or noisy the gradient: the model never
// settles. The runtime test (test/runtime/torch-optimizer-created-in-loop_test.cpp)
// measures each update against Adam's first step.
//
// Standalone: buggy [steps]
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <vector>

namespace buggy {

// Fits Model to (Input, Target) with Steps Adam steps at learning rate Lr;
// returns the weight after each step.
std::vector<torch::Tensor> train(torch::nn::Linear &Model,
                                 const torch::Tensor &Input,
                                 const torch::Tensor &Target, int Steps,
                                 double Lr) {
  std::vector<torch::Tensor> Trajectory;
  for (int Step = 0; Step < Steps; ++Step) {
    torch::optim::Adam Optimizer(Model->parameters(),
                                 torch::optim::AdamOptions(Lr));
    Optimizer.zero_grad();
    torch::Tensor Loss = torch::mse_loss(Model->forward(Input), Target);
    Loss.backward();
    Optimizer.step();
    Trajectory.push_back(Model->weight.detach().clone());
  }
  return Trajectory;
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main(int argc, char **argv) {
  const int Steps = argc > 1 ? std::atoi(argv[1]) : 200;
  torch::manual_seed(0);
  torch::nn::Linear Model(4, 1);
  torch::Tensor Input = torch::randn({64, 4});
  torch::Tensor Target = Input.matmul(torch::ones({4, 1}));
  buggy::train(Model, Input, Target, Steps, /*Lr=*/0.05);
  const double Loss =
      torch::mse_loss(Model->forward(Input), Target).item<double>();
  std::cout << "loss after " << Steps << " steps: " << Loss << "\n";
  return Loss < 1e-3 ? 0 : 1;
}
#endif
