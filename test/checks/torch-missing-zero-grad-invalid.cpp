// Broken input: clang's own errors, no crash, and no diagnostic from
// torch-missing-zero-grad or torch-optimizer-created-in-loop built on
// half-understood code.
// RUN: %check_torch_tidy --expect-compiler-errors %s torch-missing-zero-grad,torch-optimizer-created-in-loop %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

void broken(Net &model, torch::optim::SGD &opt, std::vector<torch::Tensor> xs) {
  for (auto &x : xs) {
    undeclared(x).backward();
    torch::optim::Adam a(model->parameters(), undeclared_options);
    auto b = std::make_unique<torch::optim::Adam>(nothing);
    torch::optim::Adam c(undeclared_params);
    a.step();
  }
  for (auto &x : xs) {
    model->forward(x, too_many).backward();
    opt.step(undeclared_closure);
    opt.zero_grad(1, 2, 3);
  }
}

template <class T> void dependent_broken(T &t, torch::optim::Optimizer &o) {
  for (;;) {
    t.backward(undeclared);
    o.step();
    o.zero_grad(undeclared);
    torch::optim::Adam q(t.parameters(), undeclared_options);
    q.step();
  }
}
