#include "cycle.h"

void pong(torch::optim::SGD &opt, torch::Tensor loss, int depth) {
  if (depth > 0) {
    ping(opt, loss, depth - 1);
  } else {
    loss.backward(); // TRAINS
    opt.step();      // TRAINS
  }
}
