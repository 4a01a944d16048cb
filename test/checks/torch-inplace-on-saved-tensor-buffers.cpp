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

// --- A Sequential whose first layer has weights saves its input -------------

// A staging buffer refilled for the next batch before the backward pass: the
// first Linear saved the buffer to compute its weight's gradient.
void stagedInput(torch::Tensor all_x, torch::Tensor all_y) {
  torch::nn::Sequential net(torch::nn::Linear(20, 64), torch::nn::ReLU(),
                            torch::nn::Linear(64, 1));
  auto x_buf = torch::empty({64, 20});
  x_buf.copy_(all_x);
  for (int64_t offset = 0; offset < 512; offset += 64) {
    auto loss = torch::mse_loss(net->forward(x_buf), all_y);
    if (offset + 64 < 512)
      x_buf.copy_(all_x);
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: in-place 'copy_' changes a tensor that 'net' saved for the backward pass
    // CHECK-MESSAGES: :[[@LINE-4]]:38: note: 'net' saves its input for the backward pass here
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: note: the backward pass that needs it
  }
}

// The same network as a member, registered in the constructor, with named
// layers; the input normalised in place after the forward.
struct Regressor : torch::nn::Module {
  torch::nn::Sequential body{nullptr};
  Regressor() {
    body = register_module(
        "body", torch::nn::Sequential({{"conv", torch::nn::Conv2d(3, 8, 3)},
                                       {"act", torch::nn::ReLU()}}));
  }
  void step(torch::Tensor images) {
    auto out = body->forward(images);
    images.mul_(2);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: in-place 'mul_' changes a tensor that 'body' saved for the backward pass
    // CHECK-MESSAGES: :[[@LINE-3]]:22: note: 'body' saves its input for the backward pass here
    out.sum().backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: note: the backward pass that needs it
  }
};

// Negative: a first layer without weights (ReLU of a tensor that requires no
// grad saves nothing of it), a Sequential handed in (its layers unknown).
void firstLayerPlain(torch::Tensor all_x, torch::Tensor all_y,
                     torch::nn::Sequential &given) {
  torch::nn::Sequential net(torch::nn::ReLU(), torch::nn::Linear(20, 1));
  auto x_buf = torch::empty({64, 20});
  auto loss = torch::mse_loss(net->forward(x_buf), all_y);
  x_buf.copy_(all_x);
  auto other = torch::empty({64, 20});
  auto loss2 = torch::mse_loss(given->forward(other), all_y);
  other.copy_(all_x);
  (loss + loss2).backward();
}
