// A header outside the project (the test puts it in another directory and
// includes it with -I): its bug is not the project's to report.
#pragma once
#include <torch/torch.h>

inline void restore_outside(torch::nn::Module &model) {
  torch::load(model, "outside.pt");
}
