// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// --- Positives

void never_cleared(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that never clears gradients: each backward() adds to the gradients of all earlier iterations; call zero_grad() on the optimizer in every iteration before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: gradients accumulate across iterations here
  }
}

// zero_grad before the loop clears once.
void cleared_once(Net &model, torch::optim::Adam &opt, const Batches &data) {
  opt.zero_grad();
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto loss = torch::mse_loss(model->forward(data[0].first), data[0].second);
    loss.backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that never clears gradients
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: gradients accumulate
  }
}

// Cleared once per epoch, stepped every batch: the batches of an epoch add up.
void cleared_per_epoch(Net &model, torch::optim::Adam &opt, const Batches &data) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    opt.zero_grad();
    for (const auto &batch : data) {
      torch::Tensor loss =
          torch::mse_loss(model->forward(batch.first), batch.second);
      loss.backward();
      opt.step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer step in a training loop that never clears gradients
      // CHECK-MESSAGES: :[[@LINE-3]]:7: note: gradients accumulate
    }
  }
}

// Through a pointer, a while loop, torch::autograd::backward; one diagnostic
// per loop (at the first step).
void pointer_while(Net &model, std::unique_ptr<torch::optim::Adam> &opt,
                   torch::optim::SGD &other, const Batches &data) {
  size_t i = 0;
  while (i < data.size()) {
    auto loss = torch::mse_loss(model->forward(data[i].first), data[i].second);
    torch::autograd::backward({loss});
    opt->step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that never clears gradients
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: gradients accumulate
    other.step();
    ++i;
  }
}

// A helper that does something else does not clear.
void log_loss(const torch::Tensor &loss) {}
void helper_not_clearing(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
    loss.backward();
    log_loss(loss);
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that never clears gradients
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate
  }
}

// A macro around the step: reported at the expansion.
#define STEP(o) (o).step()
void in_macro(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    model->forward(batch.first).sum().backward();
    STEP(opt);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that never clears gradients
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: gradients accumulate
  }
}

// In a lambda's loop.
void in_lambda(Net &model, torch::optim::SGD &opt, const Batches &data) {
  auto train = [&] {
    for (const auto &batch : data) {
      model->forward(batch.first).sum().backward();
      opt.step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer step in a training loop that never clears gradients
      // CHECK-MESSAGES: :[[@LINE-3]]:7: note: gradients accumulate
    }
  };
  train();
}

// --- Templates: one diagnostic in the written form, dependent calls too.

template <typename Model, typename Optimizer> struct Trainer {
  Model model;
  Optimizer optimizer;
  void fit(const Batches &data) {
    for (const auto &batch : data) {
      auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
      loss.backward();
      optimizer.step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer step in a training loop that never clears gradients
      // CHECK-MESSAGES: :[[@LINE-3]]:7: note: gradients accumulate
    }
  }
  void fit_cleared(const Batches &data) {
    for (const auto &batch : data) {
      optimizer.zero_grad();
      auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
      loss.backward();
      optimizer.step();
    }
  }
};
template struct Trainer<Net, torch::optim::SGD>;
template struct Trainer<Net, torch::optim::Adam>;

template <typename T>
void dependent_loss(Net &model, torch::optim::SGD &opt, const std::vector<T> &xs) {
  for (const T &x : xs) {
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that never clears gradients
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: gradients accumulate
  }
}
template void dependent_loss(Net &, torch::optim::SGD &,
                             const std::vector<torch::Tensor> &);

// --- Negatives

void cleared_by_optimizer(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
    loss.backward();
    opt.step();
  }
}

// Cleared after the step (the next iteration starts clean).
void cleared_after_step(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
    loss.backward();
    opt.step();
    opt.zero_grad();
  }
}

void cleared_by_module(Net &model, torch::nn::Linear &head,
                       torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    model->zero_grad();
    model->forward(batch.first).sum().backward();
    opt.step();
  }
  for (const auto &batch : data) {
    model->zero_grad(/*set_to_none=*/true);
    model->forward(batch.first).sum().backward();
    opt.step();
  }
  for (const auto &batch : data) {
    head->zero_grad();
    head->forward(batch.first).sum().backward();
    opt.step();
  }
}

void cleared_per_parameter(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    for (auto &p : model->parameters())
      p.grad().zero_();
    model->forward(batch.first).sum().backward();
    opt.step();
  }
  for (const auto &batch : data) {
    for (auto &p : model->parameters())
      p.mutable_grad().zero_();
    model->forward(batch.first).sum().backward();
    opt.step();
  }
  for (const auto &batch : data) {
    for (auto &p : model->parameters())
      p.mutable_grad().reset();
    model->forward(batch.first).sum().backward();
    opt.step();
  }
  for (const auto &batch : data) {
    for (auto &p : model->parameters())
      p.mutable_grad() = torch::Tensor();
    model->forward(batch.first).sum().backward();
    opt.step();
  }
  for (const auto &batch : data) {
    for (auto &p : model->parameters())
      p.grad().data().zero_();
    model->forward(batch.first).sum().backward();
    opt.step();
  }
}

// A helper of this translation unit that clears, directly or through another.
void clear_all(torch::optim::Optimizer &opt) { opt.zero_grad(); }
void reset_gradients(torch::optim::Optimizer &opt) { clear_all(opt); }
void cleared_by_helper(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    reset_gradients(opt);
    model->forward(batch.first).sum().backward();
    opt.step();
  }
}

// A helper only declared here that is handed the model or an optimizer may
// clear it; so may a module's method whose name says so.
void prepare_model(Net &model);
struct OutOfLineImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x);
  void clear_gradients();
  void log_statistics();
};
TORCH_MODULE(OutOfLine);
void out_of_sight(Net &model, OutOfLine &other, torch::optim::SGD &opt,
                  const Batches &data) {
  for (const auto &batch : data) {
    prepare_model(model);
    model->forward(batch.first).sum().backward();
    opt.step();
  }
  for (const auto &batch : data) {
    other->clear_gradients();
    other->forward(batch.first).sum().backward();
    opt.step();
  }
}

// A forward defined in another translation unit does not clear, nor does a
// module method named for something else.
void forward_out_of_sight(OutOfLine &model, torch::optim::SGD &opt,
                          const Batches &data) {
  for (const auto &batch : data) {
    auto loss = model->forward(batch.first).sum();
    loss.backward();
    model->log_statistics();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that never clears gradients
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate
  }
}

// A lambda that clears, called in the loop.
void cleared_by_lambda(Net &model, torch::optim::SGD &opt, const Batches &data) {
  auto clear = [&] { opt.zero_grad(); };
  for (const auto &batch : data) {
    clear();
    model->forward(batch.first).sum().backward();
    opt.step();
  }
}

// Deliberate accumulation: step (and zero_grad) every k iterations.
void accumulate(Net &model, torch::optim::SGD &opt, const Batches &data) {
  int i = 0;
  for (const auto &batch : data) {
    model->forward(batch.first).sum().backward();
    if (++i % 4 == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
  for (const auto &batch : data) {
    model->forward(batch.first).sum().backward();
    if (++i % 4 == 0)
      opt.step();
  }
}

// Gradients accumulated over an epoch's batches, stepped once per epoch.
void step_per_epoch(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    opt.zero_grad();
    for (const auto &batch : data)
      model->forward(batch.first).sum().backward();
    opt.step();
  }
}

// LBFGS-style closure that clears.
void closure(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    opt.step([&] {
      opt.zero_grad();
      auto loss = model->forward(batch.first).sum();
      loss.backward();
      return loss;
    });
  }
}

// A fresh optimizer every iteration (torch-optimizer-created-in-loop's
// business), no loop, no backward, a scheduler's step.
void others(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    torch::optim::SGD fresh(model->parameters(), torch::optim::SGDOptions(0.1));
    model->forward(batch.first).sum().backward();
    fresh.step();
  }
  model->forward(data[0].first).sum().backward();
  opt.step();
  for (const auto &batch : data)
    opt.step();
  torch::optim::StepLR scheduler(opt, 10);
  for (const auto &batch : data) {
    opt.zero_grad();
    model->forward(batch.first).sum().backward();
    opt.step();
    scheduler.step();
  }
}

// A user class with step() and backward(): not LibTorch's.
struct Simulation {
  void step() {}
  void backward() {}
};
void simulate(Simulation &sim) {
  for (int i = 0; i < 10; ++i) {
    sim.backward();
    sim.step();
  }
}

// NOLINT silences it.
void silenced(Net &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    model->forward(batch.first).sum().backward();
    opt.step(); // NOLINT(torch-missing-zero-grad)
  }
}
