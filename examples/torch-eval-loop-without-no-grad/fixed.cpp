// torch-eval-loop-without-no-grad, fixed: the evaluation loop runs under
// torch::NoGradGuard (the check's fix-it), so no graph is recorded and no
// activation is saved; the outputs have no grad_fn.
//
// Standalone: fixed [batches]
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <vector>

namespace fixed {

// Runs Model in evaluation mode over Batches and returns its outputs.
std::vector<torch::Tensor> evaluate(torch::nn::Sequential &Model,
                                    const std::vector<torch::Tensor> &Batches) {
  Model->eval();
  std::vector<torch::Tensor> Outputs;
  torch::NoGradGuard no_grad;
  for (const torch::Tensor &Batch : Batches) {
    Outputs.push_back(Model->forward(Batch));
  }
  return Outputs;
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main(int argc, char **argv) {
  const int Count = argc > 1 ? std::atoi(argv[1]) : 10;
  torch::manual_seed(0);
  torch::nn::Sequential Model(torch::nn::Linear(8, 64), torch::nn::ReLU(),
                              torch::nn::Dropout(0.5),
                              torch::nn::Linear(64, 2));
  std::vector<torch::Tensor> Batches;
  for (int I = 0; I < Count; ++I)
    Batches.push_back(torch::randn({32, 8}));
  std::vector<torch::Tensor> Outputs = fixed::evaluate(Model, Batches);
  int WithGraph = 0;
  for (const torch::Tensor &Out : Outputs)
    WithGraph += Out.grad_fn() != nullptr;
  std::cout << WithGraph << " of " << Outputs.size()
            << " outputs carry a grad_fn (their activations stay alive)\n";
  return WithGraph == 0 ? 0 : 1;
}
#endif
