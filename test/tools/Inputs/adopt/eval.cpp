// Standard headers before LibTorch are fine for the precompiled header.
#include <vector>
#include <torch/torch.h>

#include "checkpoint.h"

void load_for_eval(const std::string &path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path);
}

// Committed after the branch point (the commit HEAD of the diff test).
void load_other(torch::serialize::InputArchive &archive) {
  archive.load_from("other.pt");
}
