// Comments and blank lines before the project header are fine.

#include "model.h"

void resume_on_cpu(Net &net, const std::string &path) {
  torch::load(net, path, torch::kCPU);
}
