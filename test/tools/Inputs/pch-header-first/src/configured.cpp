#include "configured.h"

void reload(torch::nn::Module &m) {
  torch::load(m, "m.pt");
}
