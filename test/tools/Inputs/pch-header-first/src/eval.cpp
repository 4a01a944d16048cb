#include "guarded.h"
#include <torch/script.h>

void load_for_eval(Net &net, const std::string &path) {
  torch::load(net, path);
}
