// A macro defined before the LibTorch include could configure it: this file
// is analysed without the precompiled header.
#define CONFIGURED_BEFORE_TORCH 1
#include <torch/torch.h>

void reload(torch::nn::Module &m) {
  torch::load(m, "m.pt");
}
