// torch-optimizer-created-in-loop, fixed: the Adam optimizer is constructed
// once, before the training loop, so its moments and step count carry over
// from step to step and its updates shrink as the model converges.
//
// Standalone: fixed [steps]
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <vector>

namespace fixed {

// Fits Model to (Input, Target) with Steps Adam steps at learning rate Lr;
// returns the weight after each step.
std::vector<torch::Tensor> train(torch::nn::Linear &Model,
                                 const torch::Tensor &Input,
                                 const torch::Tensor &Target, int Steps,
                                 double Lr) {
  std::vector<torch::Tensor> Trajectory;
  torch::optim::Adam Optimizer(Model->parameters(),
                               torch::optim::AdamOptions(Lr));
  for (int Step = 0; Step < Steps; ++Step) {
    Optimizer.zero_grad();
    torch::Tensor Loss = torch::mse_loss(Model->forward(Input), Target);
    Loss.backward();
    Optimizer.step();
    Trajectory.push_back(Model->weight.detach().clone());
  }
  return Trajectory;
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main(int argc, char **argv) {
  const int Steps = argc > 1 ? std::atoi(argv[1]) : 200;
  torch::manual_seed(0);
  torch::nn::Linear Model(4, 1);
  torch::Tensor Input = torch::randn({64, 4});
  torch::Tensor Target = Input.matmul(torch::ones({4, 1}));
  fixed::train(Model, Input, Target, Steps, /*Lr=*/0.05);
  const double Loss =
      torch::mse_loss(Model->forward(Input), Target).item<double>();
  std::cout << "loss after " << Steps << " steps: " << Loss << "\n";
  return Loss < 1e-3 ? 0 : 1;
}
#endif
