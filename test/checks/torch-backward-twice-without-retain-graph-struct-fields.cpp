// Tensors kept in the fields of a local struct (`State st; st.h = ...`) are
// followed like local tensors once assigned: recurrent state carried in
// `st.h` / `st.c` from one iteration into the next keeps its graph.
// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct State {
  torch::Tensor h;
  torch::Tensor c;
};

// --- Positive ------------------------------------------------------------------

void carriedInStruct(torch::nn::RNNCell cell, torch::nn::Linear out,
                     torch::optim::SGD &opt, torch::Tensor x) {
  State st;
  st.h = torch::zeros({2, 8});
  for (int step = 0; step < 20; ++step) {
    st.h = cell(x, st.h);
    opt.zero_grad();
    out(st.h).sum().backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'st.h' from the previous iteration, which that iteration's backward pass freed; detach 'st.h' where it is carried into the next iteration, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: 'st.h' is computed here from its value in the previous iteration
    opt.step();
  }
}

// --- Negative twins ---------------------------------------------------------------

void detachedInStruct(torch::nn::RNNCell cell, torch::nn::Linear out,
                      torch::optim::SGD &opt, torch::Tensor x) {
  State st;
  st.h = torch::zeros({2, 8});
  for (int step = 0; step < 20; ++step) {
    st.h = cell(x, st.h.detach());
    opt.zero_grad();
    out(st.h).sum().backward();
    opt.step();
  }
}

// A struct of the iteration: nothing is carried.
void structPerIteration(torch::nn::RNNCell cell, torch::nn::Linear out,
                        torch::optim::SGD &opt, torch::Tensor x) {
  for (int step = 0; step < 20; ++step) {
    State st;
    st.h = cell(x, torch::zeros({2, 8}));
    st.c = out(st.h);
    opt.zero_grad();
    st.c.sum().backward();
    opt.step();
  }
}
