// Report: https://github.com/samuelyu2002/ImVisible/issues/2
// What went wrong: `running_loss += loss` kept the graphs; the fix accumulates
// loss.item(). This file holds only correct look-alikes (no diagnostic expected).
// CHECKS: torch-loss-accumulated-without-item
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  NetImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Net);

void train_fixed(Net &net, torch::optim::SGD &opt,
                 const std::vector<torch::data::Example<>> &loader) {
  double running_loss = 0, running_mse = 0;
  for (const auto &batch : loader) {
    auto out = net(batch.data);
    auto mse = torch::mse_loss(out, batch.target);
    auto ce = torch::nn::functional::cross_entropy(out, batch.target);
    auto loss = mse + ce;
    opt.zero_grad();
    loss.backward();
    opt.step();
    running_loss += loss.item<double>();
    running_mse += mse.item<float>();
  }
}

// Gradient accumulation: the accumulator is itself backpropagated and reset.
void train_accumulated(Net &net, torch::optim::SGD &opt,
                       const std::vector<torch::data::Example<>> &loader, int k) {
  torch::Tensor acc = torch::zeros({});
  int i = 0;
  for (const auto &batch : loader) {
    acc = acc + torch::mse_loss(net(batch.data), batch.target) / k;
    if (++i % k == 0) {
      opt.zero_grad();
      acc.backward();
      opt.step();
      acc = torch::zeros({});
    }
  }
}

// Detached history for plotting.
std::vector<torch::Tensor> train_logged(Net &net, torch::optim::SGD &opt,
                                        const std::vector<torch::data::Example<>> &loader) {
  std::vector<torch::Tensor> history;
  for (const auto &batch : loader) {
    auto loss = torch::mse_loss(net(batch.data), batch.target);
    opt.zero_grad();
    loss.backward();
    opt.step();
    history.push_back(loss.detach());
  }
  return history;
}
