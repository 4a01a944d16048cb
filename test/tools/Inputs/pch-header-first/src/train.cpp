#include "model.h"

void resume(Net &net, const std::string &path) {
  torch::load(net, path);
}
