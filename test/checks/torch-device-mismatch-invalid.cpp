// Broken input: clang's own errors, no crash, nothing reported from the
// broken statements.
// RUN: %check_torch_tidy --expect-compiler-errors %s torch-device-mismatch %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

void undeclared(torch::Device device) {
  Net model;
  model->to(undeclared_device);
  auto x = torch::randn({2, 3}, undeclared_options);
  model->forward(missing);
  model->forward(x.to(unknown));
  torch::Tensor loaded;
  torch::load(loaded, missing_path, missing_device);
  model->forward(loaded);
}

void incomplete(torch::Device device) {
  Net model;
  model->to(device;
  auto x = torch::zeros({2, 3}, torch::TensorOptions().device();
  model->forward(x
  for (auto &batch : *undeclared_loader)
    model->forward(batch.data);
}
