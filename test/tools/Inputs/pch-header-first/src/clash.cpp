#include "clash.h"

void reload_clash(torch::nn::Module &m) {
  torch::load(m, "m.pt");
}
