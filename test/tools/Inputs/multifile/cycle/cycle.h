// A cycle of calls across two files: ping() (ping.cpp) calls pong()
// (pong.cpp), which calls ping() back, and trains at the end of the
// recursion. Each trains because the other does; train.cpp's loop trains
// through ping().
#pragma once
#include <torch/torch.h>

void ping(torch::optim::SGD &opt, torch::Tensor loss, int depth);
void pong(torch::optim::SGD &opt, torch::Tensor loss, int depth);
