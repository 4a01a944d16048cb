// torch-eval-loop-without-no-grad, buggy: an evaluation loop runs the model
// with gradient recording on.
//
// model->eval() switches dropout and batch norm to inference behaviour; it
// does not stop autograd. Without torch::NoGradGuard every forward in the loop
// records a graph and saves its activations for a backward pass that never
// comes: each output carries a grad_fn, and every output the loop keeps (for
// metrics, for a later argmax) holds its batch's activations alive. The
// runtime test (test/runtime/torch-eval-loop-without-no-grad_test.cpp) counts
// the autograd nodes behind the outputs (and, on a GPU, the allocator's bytes
// against the guarded twin).
//
// Standalone: buggy [batches]
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <vector>

namespace buggy {

// Runs Model in evaluation mode over Batches and returns its outputs.
std::vector<torch::Tensor> evaluate(torch::nn::Sequential &Model,
                                    const std::vector<torch::Tensor> &Batches) {
  Model->eval();
  std::vector<torch::Tensor> Outputs;
  for (const torch::Tensor &Batch : Batches) {
    Outputs.push_back(Model->forward(Batch));
  }
  return Outputs;
}

} // namespace buggy

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
  std::vector<torch::Tensor> Outputs = buggy::evaluate(Model, Batches);
  int WithGraph = 0;
  for (const torch::Tensor &Out : Outputs)
    WithGraph += Out.grad_fn() != nullptr;
  std::cout << WithGraph << " of " << Outputs.size()
            << " outputs carry a grad_fn (their activations stay alive)\n";
  return WithGraph == 0 ? 0 : 1;
}
#endif
