// A tensor member of the analysed method's own object (a trainer's
// `hidden_`) is followed like a local: carried from one iteration into the
// next without detach(), it keeps the graph the previous backward pass freed.
// A method of the object called in the loop that replaces the member starts
// afresh.
// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>

class LMTrainer {
public:
  void trainCarried(torch::Tensor data, int chunks) {
    hidden_ = torch::zeros({1, 8});
    for (int i = 0; i < chunks; ++i) {
      auto [output, hidden] = rnn_->forward(data, hidden_);
      hidden_ = hidden;
      auto loss = output.sum();
      loss.backward();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: backward pass in a loop reaches the graph of 'hidden_' from the previous iteration, which that iteration's backward pass freed; detach 'hidden_' where it is carried into the next iteration, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
      // CHECK-MESSAGES: :[[@LINE-4]]:7: note: 'hidden_' is computed here from its value in the previous iteration
    }
  }

  void trainDetached(torch::Tensor data, int chunks) {
    hidden_ = torch::zeros({1, 8});
    for (int i = 0; i < chunks; ++i) {
      auto [output, hidden] = rnn_->forward(data, hidden_);
      hidden_ = hidden.detach();
      output.sum().backward();
    }
  }

  void trainRepackaged(torch::Tensor data, int chunks) {
    hidden_ = torch::zeros({1, 8});
    for (int i = 0; i < chunks; ++i) {
      repackage();
      auto [output, hidden] = rnn_->forward(data, hidden_);
      hidden_ = hidden;
      output.sum().backward();
    }
  }

  // A fresh state per chunk, kept only for inspection.
  void trainFresh(torch::Tensor data, int chunks) {
    for (int i = 0; i < chunks; ++i) {
      auto [output, hidden] = rnn_->forward(data, torch::zeros({1, 8}));
      hidden_ = hidden;
      output.sum().backward();
    }
  }

private:
  void repackage() { hidden_ = hidden_.detach(); }
  torch::nn::GRU rnn_{8, 8};
  torch::Tensor hidden_;
};
