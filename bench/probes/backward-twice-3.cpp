// Report: https://github.com/rentruewang/brief/issues/1
// What went wrong (as the author explained): the graph is created once and then
// backpropagated on every step of a loop, which only works with retain_graph=True;
// without it the second backward fails.
#include <torch/torch.h>

struct QNetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  QNetImpl() { fc = register_module("fc", torch::nn::Linear(8, 1)); }
  torch::Tensor forward(const torch::Tensor &s) { return fc(s); }
};
TORCH_MODULE(QNet);

// As the author wrote it: retains the graph (no diagnostic expected here).
void td_updates_retained(QNet &q, torch::optim::SGD &opt, const torch::Tensor &states,
                         const std::vector<float> &targets) {
  auto values = q(states);
  for (size_t t = 0; t < targets.size(); ++t) {
    auto td = (values[t] - targets[t]).pow(2).sum();
    opt.zero_grad();
    td.backward({}, /*retain_graph=*/true);
    opt.step();
  }
}

// Without retain_graph: the second iteration backpropagates through freed buffers.
void td_updates(QNet &q, torch::optim::SGD &opt, const torch::Tensor &states,
                const std::vector<float> &targets) {
  auto values = q(states);
  size_t t = 0;
  while (t < targets.size()) {
    auto td = (values[t] - targets[t]).pow(2).sum();
    opt.zero_grad();
    td.backward(); // EXPECT: torch-backward-twice-without-retain-graph
    opt.step();
    ++t;
  }
}
