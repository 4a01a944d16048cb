// torch-tensor-from-values-breaks-graph, fixed: forward() keeps the selected
// scores as tensors and joins them with torch::stack, so the prediction keeps
// its grad_fn and the gradient reaches the layer.
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <vector>

namespace fixed {

// Scores each row with a linear layer and keeps the best class score.
struct BestScoreImpl : torch::nn::Module {
  BestScoreImpl() : Fc(register_module("fc", torch::nn::Linear(4, 3))) {}

  torch::Tensor forward(torch::Tensor X) {
    auto Scores = Fc(X);
    std::vector<torch::Tensor> Best;
    for (int64_t I = 0; I < Scores.size(0); ++I)
      Best.push_back(Scores[I].max());
    return torch::stack(Best);
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
  Loss.backward();
  return Model->Fc->weight.grad();
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  const torch::Device Device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  try {
    auto Grad = fixed::trainStep(Device);
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
