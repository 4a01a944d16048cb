// Report: https://github.com/pytorch/pytorch/issues/14068
// What went wrong: a tensor's device could not be changed "in place"; `.to` gives a new
// tensor on the desired device and leaves the old one where it was.
#include <torch/torch.h>

void move_all(std::vector<torch::Tensor> &tensors, torch::Device device) {
  for (auto &t : tensors)
    t.to(device); // EXPECT: torch-discarded-tensor-result
}

// The fix: assign the result.
void move_all_fixed(std::vector<torch::Tensor> &tensors, torch::Device device) {
  for (auto &t : tensors)
    t = t.to(device);
}

struct State {
  torch::Tensor h;
  torch::Tensor c;
};

void move_state(State &s, torch::Device device) {
  s.h.to(device); // EXPECT: torch-discarded-tensor-result
  s.c = s.c.to(device);
}
