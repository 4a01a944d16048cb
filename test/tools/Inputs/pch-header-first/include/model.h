// The project's own header, which each source includes first: LibTorch comes
// through it.
#pragma once
#include <torch/torch.h>

#include <string>

struct Net : torch::nn::Module {};
