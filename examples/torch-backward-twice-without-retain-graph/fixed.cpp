// torch-backward-twice-without-retain-graph, fixed: every backward pass runs
// through a graph that is still alive.
//
// The two losses are backpropagated once, through their sum (the first pass
// could also keep the graph with `LossA.backward({}, /*retain_graph=*/true)`,
// which is the check's fix-it); the loop recomputes the loss in every
// iteration.
#include <torch/torch.h>

#include <iostream>
#include <string>

namespace fixed {

// One step of a two-head model: both heads read the shared embedding. Returns
// the encoder's weight gradient.
torch::Tensor twoHeadStep(torch::Device Device) {
  torch::manual_seed(0);
  torch::nn::Linear Encoder(4, 8), HeadA(8, 1), HeadB(8, 1);
  Encoder->to(Device);
  HeadA->to(Device);
  HeadB->to(Device);
  auto X = torch::randn({16, 4}, Device);
  auto Emb = torch::relu(Encoder(X));
  auto LossA = HeadA(Emb).pow(2).mean();
  auto LossB = HeadB(Emb).abs().mean();
  (LossA + LossB).backward();
  return Encoder->weight.grad();
}

// A few optimisation steps on one batch. Returns the final loss.
double optimiseSteps(torch::Device Device, int Steps) {
  torch::manual_seed(0);
  torch::nn::Linear Model(4, 1);
  Model->to(Device);
  torch::optim::SGD Optimizer(Model->parameters(), /*lr=*/0.1);
  auto X = torch::randn({16, 4}, Device);
  auto Y = torch::randn({16, 1}, Device);
  torch::Tensor Loss;
  for (int Step = 0; Step < Steps; ++Step) {
    Optimizer.zero_grad();
    Loss = torch::mse_loss(Model(X), Y);
    Loss.backward();
    Optimizer.step();
  }
  return Loss.item<double>();
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
template <typename Fn> static int attempt(const char *What, Fn &&Run) {
  try {
    Run();
    std::cout << What << ": trained\n";
    return 0;
  } catch (const std::exception &E) {
    const std::string Message = E.what(); // first line: c10 adds a backtrace
    std::cout << What << ": failed: " << Message.substr(0, Message.find('\n'))
              << "\n";
    return 1;
  }
}

int main() {
  const torch::Device Device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  int Failures = attempt("two heads", [&] { fixed::twoHeadStep(Device); });
  Failures += attempt("loop", [&] { fixed::optimiseSteps(Device, 3); });
  return Failures == 0 ? 0 : 1;
}
#endif
