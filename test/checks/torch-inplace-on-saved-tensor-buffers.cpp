// Writes into a buffer, element by element, while an earlier step saved a
// view of the same buffer for its backward: views share the version counter,
// so the backward pass finds the saved tensor modified.
// RUN: %check_torch_tidy %s torch-inplace-on-saved-tensor %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Positive ----------------------------------------------------------------

// An unrolled recurrence into a preallocated buffer: the layer saved
// states[t] (its input) and the next store writes into states.
void unrolled(torch::nn::Linear cell) {
  auto states = torch::zeros({11, 8});
  for (int t = 0; t < 10; ++t)
    states[t + 1] = torch::sigmoid(cell(states[t]));
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: in-place '=' changes a tensor that 'cell' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
    // CHECK-MESSAGES: :[[@LINE-2]]:36: note: 'cell' saves its input for the backward pass here
    // CHECK-MESSAGES: :[[@LINE+2]]:8: note: the backward pass that needs it
  auto loss = states.sum();
  loss.backward();
}

// pow saves its input, a view of out; index_put_ writes into out.
void indexPut(torch::nn::Linear fc) {
  auto out = fc(torch::randn({5, 4}));
  for (int i = 1; i < 5; ++i)
    out.index_put_({i}, out.index({i - 1}).pow(2));
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: in-place 'index_put_' changes a tensor that 'pow' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
    // CHECK-MESSAGES: :[[@LINE-2]]:44: note: 'pow' saves its input for the backward pass here
    // CHECK-MESSAGES: :[[@LINE+1]]:13: note: the backward pass that needs it
  out.sum().backward();
}

// The same with element stores and select().
void elementStore(torch::nn::Linear fc) {
  auto out = fc(torch::randn({5, 4}));
  for (int i = 1; i < 5; ++i)
    out[i] = out.select(0, i - 1).pow(2);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: in-place '=' changes a tensor that 'pow' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
    // CHECK-MESSAGES: :[[@LINE-2]]:35: note: 'pow' saves its input for the backward pass here
    // CHECK-MESSAGES: :[[@LINE+1]]:13: note: the backward pass that needs it
  out.sum().backward();
}

// A convolution saved its input; the input is then written through a view.
void convInput(torch::nn::Conv2d conv, torch::Tensor x) {
  auto y = conv(x);
  x.narrow(0, 0, 1).copy_(torch::zeros({1, 3, 8, 8}));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: in-place 'copy_' changes a tensor that 'conv' saved for the backward pass, which then throws; compute the new value out of place or write into a clone [torch-inplace-on-saved-tensor]
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'conv' saves its input for the backward pass here
  // CHECK-MESSAGES: :[[@LINE+1]]:11: note: the backward pass that needs it
  y.sum().backward();
}

// --- Negative twins ------------------------------------------------------------

// sigmoid saves its output, a new tensor: copying it into the buffer changes
// nothing it saved.
void savesOutputOnly() {
  auto states = torch::zeros({11, 8}, torch::requires_grad());
  auto buf = torch::zeros({11, 8});
  for (int t = 0; t < 10; ++t)
    buf[t + 1] = torch::sigmoid(buf[t] * 2);
  buf.sum().backward();
}

// Advanced indexing copies: writing into the copy leaves out alone.
void advancedIndexCopy(torch::nn::Linear fc, torch::Tensor idx) {
  auto out = fc(torch::randn({5, 4}));
  auto picked = out.index({idx}).pow(2);
  auto copy = out.index({idx});
  copy.mul_(2);
  picked.sum().backward();
}

// A buffer nothing saved.
void unsavedBuffer(torch::nn::Linear fc) {
  auto out = fc(torch::randn({5, 4}));
  auto buf = torch::zeros({5, 4});
  for (int i = 0; i < 5; ++i)
    buf[i] = torch::relu(out[i]);
  buf.sum().backward();
}

// Written after the backward that needed it.
void afterBackward(torch::nn::Linear fc) {
  auto x = torch::randn({2, 4});
  auto y = fc(x).sum();
  y.backward();
  x.narrow(0, 0, 1).copy_(torch::zeros({1, 4}));
  auto hist = torch::zeros({10});
  for (int i = 0; i < 10; ++i) {
    auto l = fc(torch::randn({2, 4})).pow(2).mean();
    l.backward();
    hist[i] = l.detach();
  }
}

// Under NoGradGuard nothing is saved.
void noGrad(torch::nn::Linear cell) {
  torch::NoGradGuard guard;
  auto states = torch::zeros({11, 8});
  for (int t = 0; t < 10; ++t)
    states[t + 1] = torch::sigmoid(cell(states[t]));
}
