#include "cycle.h"

void ping(torch::optim::SGD &opt, torch::Tensor loss, int depth) {
  if (depth > 0)
    pong(opt, loss, depth - 1);
}
