// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <tuple>
#include <utility>

// Access paths (docs/design.md, "Access paths"): the elements of a pair, a
// tuple or a struct are different tensors.

struct Net : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};

struct Losses {
  torch::Tensor a;
  torch::Tensor b;
};

// --- Negative: two graphs, one pass each -----------------------------------

void pair_two_graphs(Net &net, const torch::Tensor &x, const torch::Tensor &y) {
  std::pair<torch::Tensor, torch::Tensor> p{torch::mse_loss(net.forward(x), y),
                                            torch::mse_loss(net.forward(y), x)};
  p.first.backward();
  p.second.backward();
}

void tuple_two_graphs(Net &net, const torch::Tensor &x, const torch::Tensor &y) {
  std::tuple<int, torch::Tensor, torch::Tensor> t{
      0, torch::mse_loss(net.forward(x), y), torch::mse_loss(net.forward(y), x)};
  std::get<1>(t).backward();
  std::get<2>(t).backward();
}

void struct_two_graphs(Net &net, const torch::Tensor &x,
                       const torch::Tensor &y) {
  Losses l{torch::mse_loss(net.forward(x), y),
           torch::mse_loss(net.forward(y), x)};
  l.a.backward();
  l.b.backward();
}

// --- Positive: the same element twice --------------------------------------

void pair_same_element(Net &net, const torch::Tensor &x,
                       const torch::Tensor &y) {
  std::pair<torch::Tensor, double> p{torch::mse_loss(net.forward(x), y), 0.0};
  p.first.backward();
  // CHECK-FIXES: p.first.backward({}, /*retain_graph=*/true);
  p.first.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: {{.*}} [torch-backward-twice-without-retain-graph]
}

void struct_same_field(Net &net, const torch::Tensor &x,
                       const torch::Tensor &y) {
  Losses l{torch::mse_loss(net.forward(x), y), torch::zeros({})};
  l.a.backward();
  // CHECK-FIXES: l.a.backward({}, /*retain_graph=*/true);
  l.a.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: {{.*}} [torch-backward-twice-without-retain-graph]
}
