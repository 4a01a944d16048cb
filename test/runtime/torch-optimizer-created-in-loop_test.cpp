//===- torch-optimizer-created-in-loop_test.cpp - runtime proof --------===//
//
// torch-optimizer-created-in-loop: an Adam optimizer constructed inside the
// training loop (examples/torch-optimizer-created-in-loop/buggy.cpp) starts
// from fresh state on every iteration, so every step is Adam's first step:
// with bias correction at step 1 the update is lr * g / (|g| + eps), i.e.
// exactly lr on every element whatever the gradient's size. The fixed twin
// keeps its moments: its updates shrink as the model converges, and it
// reaches a far lower loss.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <vector>

namespace buggy {
std::vector<torch::Tensor> train(torch::nn::Linear &Model,
                                 const torch::Tensor &Input,
                                 const torch::Tensor &Target, int Steps,
                                 double Lr);
} // namespace buggy

namespace fixed {
std::vector<torch::Tensor> train(torch::nn::Linear &Model,
                                 const torch::Tensor &Input,
                                 const torch::Tensor &Target, int Steps,
                                 double Lr);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

constexpr double Lr = 0.05;
constexpr int Steps = 200;

struct Problem {
  torch::nn::Linear Model{nullptr};
  torch::Tensor Input, Target, Start;
};

Problem makeProblem() {
  torch::manual_seed(0);
  Problem P;
  P.Model = torch::nn::Linear(4, 1);
  P.Model->to(testDevice());
  P.Input = torch::randn({64, 4}, testDevice());
  P.Target = P.Input.matmul(torch::ones({4, 1}, testDevice()));
  P.Start = P.Model->weight.detach().clone();
  return P;
}

/// The update of every step: trajectory[k] - trajectory[k-1].
std::vector<torch::Tensor> updates(const Problem &P,
                                   const std::vector<torch::Tensor> &Weights) {
  std::vector<torch::Tensor> Result;
  torch::Tensor Previous = P.Start;
  for (const torch::Tensor &W : Weights) {
    Result.push_back(W - Previous);
    Previous = W;
  }
  return Result;
}

double loss(Problem &P) {
  torch::NoGradGuard NoGrad;
  return torch::mse_loss(P.Model->forward(P.Input), P.Target).item<double>();
}

TEST(OptimizerCreatedInLoop, RunDescription) {
  std::cout << runDescription() << "\n";
}

TEST(OptimizerCreatedInLoop, BuggyEveryStepIsAdamsFirstStep) {
  Problem P = makeProblem();
  const auto Updates = updates(P, buggy::train(P.Model, P.Input, P.Target,
                                               Steps, Lr));
  ASSERT_EQ(Updates.size(), static_cast<size_t>(Steps));
  // Step 1 of Adam moves every element by lr; a fresh Adam every iteration
  // does so on every step, to the end.
  for (const torch::Tensor &U : Updates)
    EXPECT_TRUE(torch::allclose(U.abs(), torch::full_like(U, Lr), 1e-3, 1e-6))
        << U;
  std::cout << "buggy: last update " << Updates.back() << ", loss " << loss(P)
            << "\n";
}

TEST(OptimizerCreatedInLoop, FixedKeepsItsStateAndConverges) {
  Problem Buggy = makeProblem();
  buggy::train(Buggy.Model, Buggy.Input, Buggy.Target, Steps, Lr);
  Problem P = makeProblem();
  const auto Updates =
      updates(P, fixed::train(P.Model, P.Input, P.Target, Steps, Lr));
  // The first step is the same (fresh state either way) ...
  EXPECT_TRUE(torch::allclose(Updates.front().abs(),
                              torch::full_like(Updates.front(), Lr), 1e-3,
                              1e-6));
  // ... the later ones carry the moments and shrink as the model converges.
  const double Last = Updates.back().abs().max().item<double>();
  std::cout << "fixed: largest last update " << Last << ", loss " << loss(P)
            << "; buggy loss " << loss(Buggy) << "\n";
  EXPECT_LT(Last, 0.5 * Lr);
  EXPECT_LT(loss(P), 0.1 * loss(Buggy));
}

} // namespace
