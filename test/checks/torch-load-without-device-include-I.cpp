// LibTorch included with -I (as hand-written Makefiles do) and every header
// diagnosed (--header-filter=.*): LibTorch's own code is still never flagged,
// while a user header next to the test is.
// RUN: %check_torch_tidy --no-fix %s torch-load-without-device %t -- --header-filter=.* -- -I%mock_torch -I%S/Inputs/user
// RUN: %check_torch_tidy_plugin --no-fix %s torch-load-without-device %t-plugin -- --header-filter=.* -- -I%mock_torch -I%S/Inputs/user

#include <torch/script.h>
#include "user_loader.h"
// CHECK-MESSAGES: user_loader.h:6:3: warning: torch::load without a device

void main_file(torch::nn::Module &m) {
  torch::load(m, "net.pt", torch::kCPU);
  torch::mock_internal_reload(m, "net.pt");
}
