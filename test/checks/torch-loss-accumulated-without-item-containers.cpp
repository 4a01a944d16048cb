// RUN: %check_torch_tidy %s torch-loss-accumulated-without-item %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

// The accumulated value read out of a container or a pair: the element keeps
// the history of what was put in (docs/design.md, "Access paths"), whether the
// container is a map built from a braced list, a vector of vectors, a deque,
// or a pair whose field is read through a const reference (`+=` takes one).

struct Net : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};

// --- Positive --------------------------------------------------------------

void pair_field_read(Net &net, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    std::pair<torch::Tensor, double> out{torch::mse_loss(net.forward(x), y), 0.0};
    opt.zero_grad();
    out.first.backward();
    opt.step();
    total += out.first;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total' {{.*}} [torch-loss-accumulated-without-item]
    // CHECK-FIXES: total += out.first.detach();
  }
}

void map_from_braced_list(Net &net, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    std::unordered_map<std::string, torch::Tensor> losses{
        {"mse", torch::mse_loss(net.forward(x), y)}};
    opt.zero_grad();
    losses.at("mse").backward();
    opt.step();
    total += losses.at("mse");
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total' {{.*}} [torch-loss-accumulated-without-item]
  }
}

void nested_vector(Net &net, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    std::vector<std::vector<torch::Tensor>> per_head{{torch::mse_loss(net.forward(x), y)}};
    opt.zero_grad();
    per_head[0][0].backward();
    opt.step();
    total += per_head[0][0];
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total' {{.*}} [torch-loss-accumulated-without-item]
  }
}

void deque_front(Net &net, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    std::deque<torch::Tensor> recent{torch::mse_loss(net.forward(x), y)};
    opt.zero_grad();
    recent.front().backward();
    opt.step();
    total += recent.front();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total' {{.*}} [torch-loss-accumulated-without-item]
  }
}

// Map entries walked by a range-for: `kv.second` is an element of the map.
void map_entries_walked(Net &net, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y,
                        std::map<std::string, torch::Tensor> &totals) {
  for (int i = 0; i < 10; ++i) {
    std::map<std::string, torch::Tensor> losses;
    losses["mse"] = torch::mse_loss(net.forward(x), y);
    losses["l1"] = torch::mse_loss(net.forward(x), y * 2);
    auto loss = torch::zeros({});
    for (auto &kv : losses)
      loss = loss + kv.second;
    opt.zero_grad();
    loss.backward();
    opt.step();
    for (auto &kv : losses)
      totals[kv.first] += kv.second;
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor with autograd history accumulated into 'totals' {{.*}} [torch-loss-accumulated-without-item]
    // CHECK-FIXES: totals[kv.first] += kv.second.detach();
  }
}

// --- Negative --------------------------------------------------------------

// The element is detached before it goes into the container.
void map_of_detached(Net &net, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    auto loss = torch::mse_loss(net.forward(x), y);
    std::unordered_map<std::string, torch::Tensor> logged{{"mse", loss.detach()}};
    opt.zero_grad();
    loss.backward();
    opt.step();
    total += logged.at("mse");
  }
}

// A vector of vectors of fresh tensors: no history anywhere.
void nested_fresh(torch::optim::SGD &opt) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    std::vector<std::vector<torch::Tensor>> grid{{torch::ones({2})}, {torch::zeros({2})}};
    opt.step();
    total += grid[1][0];
  }
}

// The pair's host value is what is accumulated (into a double).
void pair_of_item(Net &net, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  double total = 0;
  for (int i = 0; i < 10; ++i) {
    auto loss = torch::mse_loss(net.forward(x), y);
    std::pair<torch::Tensor, double> out{loss, loss.item<double>()};
    opt.zero_grad();
    out.first.backward();
    opt.step();
    total += out.second;
  }
}
