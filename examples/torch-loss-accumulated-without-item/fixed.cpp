// torch-loss-accumulated-without-item, fixed: the training loop accumulates
// detached values, so each iteration's graph is freed after its step.
//
// `Total += Loss.detach()` (the check's fix-it) keeps the value and drops the
// graph; accumulating `Loss.item<double>()` into a double does the same
// without a tensor at all. The runtime test shows the node count staying at
// zero whatever the number of iterations.
//
// Standalone: fixed [steps]
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <vector>

namespace fixed {

// Trains a small regression network for Steps iterations on Device and
// returns the summed training loss (as a tensor, the way a Python port often
// keeps it).
torch::Tensor runningLoss(int Steps, torch::Device Device) {
  torch::manual_seed(0);
  torch::nn::Sequential Model(torch::nn::Linear(8, 32), torch::nn::ReLU(),
                              torch::nn::Linear(32, 1));
  Model->to(Device);
  torch::optim::SGD Optimizer(Model->parameters(),
                              torch::optim::SGDOptions(0.01));
  torch::Tensor Total = torch::zeros({}, Device);
  for (int Step = 0; Step < Steps; ++Step) {
    torch::Tensor Input = torch::randn({16, 8}, Device);
    torch::Tensor Target = torch::randn({16, 1}, Device);
    torch::Tensor Loss = torch::mse_loss(Model->forward(Input), Target);
    Optimizer.zero_grad();
    Loss.backward();
    Optimizer.step();
    Total += Loss.detach();
  }
  return Total;
}

// The same training, keeping every iteration's loss for a plot.
std::vector<torch::Tensor> lossHistory(int Steps, torch::Device Device) {
  torch::manual_seed(0);
  torch::nn::Linear Model(8, 1);
  Model->to(Device);
  torch::optim::SGD Optimizer(Model->parameters(),
                              torch::optim::SGDOptions(0.01));
  std::vector<torch::Tensor> History;
  for (int Step = 0; Step < Steps; ++Step) {
    torch::Tensor Input = torch::randn({16, 8}, Device);
    torch::Tensor Target = torch::randn({16, 1}, Device);
    torch::Tensor Loss = torch::mse_loss(Model(Input), Target);
    Optimizer.zero_grad();
    Loss.backward();
    Optimizer.step();
    History.push_back(Loss.detach());
  }
  return History;
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main(int argc, char **argv) {
  const int Steps = argc > 1 ? std::atoi(argv[1]) : 100;
  torch::Tensor Total = fixed::runningLoss(Steps, torch::kCPU);
  std::cout << "summed loss " << Total.item<double>()
            << ", requires_grad=" << Total.requires_grad()
            << " (no graph is kept)\n";
  std::vector<torch::Tensor> History = fixed::lossHistory(Steps, torch::kCPU);
  std::cout << "history of " << History.size() << " losses, last has grad_fn: "
            << (History.back().grad_fn() != nullptr) << "\n";
  return Total.requires_grad() ? 1 : 0; // 0: nothing keeps a graph
}
#endif
