#include <torch/torch.h>
void f(torch::nn::Module &m) {
  torch::load(m, "a.pt");
}
