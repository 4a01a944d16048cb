// torch-loss-accumulated-without-item, buggy: the training loop keeps the loss
// tensors themselves, so every iteration's autograd graph stays alive.
//
// `Total += Loss` (or `History.push_back(Loss)`) in a training loop stores a
// tensor that still references the graph that computed it: the forward's
// saved activations and every node up to the parameters. Nothing frees them
// until the accumulator dies, so memory grows with every iteration until the
// process runs out of it. The runtime test
// (test/runtime/torch-loss-accumulated-without-item_test.cpp) counts the
// autograd nodes reachable from the accumulator (and, on a GPU, the caching
// allocator's bytes) and shows them growing linearly with the iterations.
//
// Standalone: buggy [steps]
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <vector>

namespace buggy {

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
    Total += Loss;
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
    History.push_back(Loss);
  }
  return History;
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main(int argc, char **argv) {
  const int Steps = argc > 1 ? std::atoi(argv[1]) : 100;
  torch::Tensor Total = buggy::runningLoss(Steps, torch::kCPU);
  std::cout << "summed loss " << Total.item<double>()
            << ", requires_grad=" << Total.requires_grad()
            << " (the graphs of all " << Steps << " iterations are alive)\n";
  std::vector<torch::Tensor> History = buggy::lossHistory(Steps, torch::kCPU);
  std::cout << "history of " << History.size() << " losses, last has grad_fn: "
            << (History.back().grad_fn() != nullptr) << "\n";
  return Total.requires_grad() ? 1 : 0;
}
#endif
