// torch-backward-twice-without-retain-graph, buggy: a second backward pass
// runs through a graph whose buffers the first pass already freed.
//
// backward() frees the tensors each autograd node saved for its gradient (the
// inputs of a matmul, the output of a relu) unless retain_graph=true. A second
// pass that reaches those nodes throws "Trying to backward through the graph a
// second time". Here it happens twice: two losses share the encoder's output,
// and a loop backpropagates a loss computed once, before the loop. The runtime
// test (test/runtime/torch-backward-twice-without-retain-graph_test.cpp) shows
// both functions throwing.
#include <torch/torch.h>

#include <iostream>
#include <string>

namespace buggy {

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
  LossA.backward();
  LossB.backward(); // throws: the encoder's part of the graph is freed
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
  auto Loss = torch::mse_loss(Model(X), Y);
  for (int Step = 0; Step < Steps; ++Step) {
    Optimizer.zero_grad();
    Loss.backward(); // throws in the second iteration
    Optimizer.step();
  }
  return Loss.item<double>();
}

} // namespace buggy

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
  int Failures = attempt("two heads", [&] { buggy::twoHeadStep(Device); });
  Failures += attempt("loop", [&] { buggy::optimiseSteps(Device, 3); });
  return Failures == 0 ? 0 : 1;
}
#endif
