// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <map>
#include <string>
#include <vector>

// Elements of a local container named by a literal index or key (`v[0]`,
// `m.at("loss")`), when the function accesses the container no other way, are
// locations of their own: assigning one replaces what it held (docs/design.md,
// "Access paths").

// --- Positive --------------------------------------------------------------

void same_element_twice(torch::nn::Linear &model, torch::Tensor x) {
  std::vector<torch::Tensor> losses{model(x).sum()};
  losses[0].backward();
  losses[0].backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: backward pass reaches the graph of 'losses', whose buffers an earlier backward pass freed
  // CHECK-FIXES: losses[0].backward({}, /*retain_graph=*/true);
}

void element_kept_across_iterations(torch::nn::Linear &model, torch::Tensor x) {
  std::map<std::string, torch::Tensor> losses;
  losses["mse"] = model(x).pow(2).mean();
  for (int i = 0; i < 3; ++i)
    losses.at("mse").backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'losses["mse"]', which was built before the loop
}

// --- Negative --------------------------------------------------------------

void element_recomputed(torch::nn::Linear &model, torch::Tensor x) {
  std::vector<torch::Tensor> out{model(x)};
  std::vector<torch::Tensor> l{out[0].sum()};
  l[0].backward();
  out[0] = model(x);
  l[0] = out[0].mean();
  l[0].backward();
}

void element_recomputed_in_loop(torch::nn::Linear &model, torch::Tensor x,
                                torch::optim::SGD &opt) {
  std::map<std::string, torch::Tensor> losses;
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    losses["mse"] = model(x).pow(2).mean();
    losses.at("mse").backward();
    opt.step();
  }
}
