// torch-missing-zero-grad, fixed: the training loop clears the gradients
// (Optimizer.zero_grad()) before every backward(), so each step uses this
// iteration's gradient only: with a learning rate of 0 the gradient after n
// iterations equals the single-step gradient.
//
// Standalone: fixed [steps]
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>

namespace fixed {

// Fits Model to (Input, Target) with Steps iterations of SGD at learning rate
// Lr; returns the last loss.
double train(torch::nn::Linear &Model, const torch::Tensor &Input,
             const torch::Tensor &Target, int Steps, double Lr) {
  torch::optim::SGD Optimizer(Model->parameters(),
                              torch::optim::SGDOptions(Lr));
  double Last = 0;
  for (int Step = 0; Step < Steps; ++Step) {
    Optimizer.zero_grad();
    torch::Tensor Loss = torch::mse_loss(Model->forward(Input), Target);
    Loss.backward();
    Optimizer.step();
    Last = Loss.item<double>();
  }
  return Last;
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main(int argc, char **argv) {
  const int Steps = argc > 1 ? std::atoi(argv[1]) : 5;
  torch::manual_seed(0);
  torch::nn::Linear Model(4, 1);
  torch::Tensor Input = torch::randn({16, 4});
  torch::Tensor Target = torch::randn({16, 1});
  torch::Tensor Single = torch::autograd::grad(
      {torch::mse_loss(Model->forward(Input), Target)}, {Model->weight})[0];
  fixed::train(Model, Input, Target, Steps, /*Lr=*/0.0);
  const double Ratio =
      (Model->weight.grad().norm() / Single.norm()).item<double>();
  std::cout << "gradient after " << Steps << " steps is " << Ratio
            << " times the single-step gradient\n";
  return Ratio < 1.5 ? 0 : 1;
}
#endif
