// torch-tensor-from-values-breaks-graph, buggy: forward() reads numbers out of
// tensors and builds a new tensor from them.
//
// `.item<float>()` copies a value to the host; torch::tensor(values) (like
// torch::from_blob) makes a fresh tensor from host memory, with no grad_fn.
// The prediction that forward() returns is cut off from the parameters: the
// loss built on it cannot be backpropagated ("element 0 of tensors does not
// require grad and does not have a grad_fn"), and the layer never learns. This
// is the C++ form of Python's `torch.as_tensor([t.item() for t in ...])`. The
// runtime test (test/runtime/torch-tensor-from-values-breaks-graph_test.cpp)
// shows it.
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <vector>

namespace buggy {

// Scores each row with a linear layer and keeps the best class score.
struct BestScoreImpl : torch::nn::Module {
  BestScoreImpl() : Fc(register_module("fc", torch::nn::Linear(4, 3))) {}

  torch::Tensor forward(torch::Tensor X) {
    auto Scores = Fc(X);
    std::vector<float> Best;
    for (int64_t I = 0; I < Scores.size(0); ++I)
      Best.push_back(Scores[I].max().item<float>());
    return torch::tensor(Best).to(X.device());
  }

  torch::nn::Linear Fc;
};
TORCH_MODULE(BestScore);

// One regression step on the best score. Returns the layer's weight gradient
// (undefined when no gradient reached it).
torch::Tensor trainStep(torch::Device Device) {
  torch::manual_seed(0);
  BestScore Model;
  Model->to(Device);
  auto X = torch::randn({8, 4}, Device);
  auto Y = torch::randn({8}, Device);
  auto Loss = torch::mse_loss(Model(X), Y);
  Loss.backward(); // throws: the prediction has no grad_fn
  return Model->Fc->weight.grad();
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  const torch::Device Device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  try {
    auto Grad = buggy::trainStep(Device);
    std::cout << "gradient " << (Grad.defined() ? "reached" : "did not reach")
              << " the layer\n";
    return Grad.defined() ? 0 : 1;
  } catch (const std::exception &E) {
    const std::string Message = E.what(); // first line: c10 adds a backtrace
    std::cout << "failed: " << Message.substr(0, Message.find('\n')) << "\n";
    return 1;
  }
}
#endif
