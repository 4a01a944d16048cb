#include <torch/torch.h>
void f(torch::nn::Module &m) {
  torch::load(m, "a.pt", torch::kCPU);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
}
