// src/train.cpp of Inputs/project after an edit: three lines above the old
// finding (torch::load(net, path), now line 11) and a new bug (line 17).
//
#include <torch/torch.h>

#include "checkpoint.h"

struct Net : torch::nn::Module {};

void resume(Net &net, const std::string &path) {
  torch::load(net, path);
}

// New code: the same mistake once more. Only this one is reported against
// the baseline.
void resume_other(Net &net) {
  torch::load(net, "other.pt");
}
