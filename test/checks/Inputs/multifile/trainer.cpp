#include "project.h"

// A validation loss, from another file (with history), summed up inside
// the training loop.
void accumulate(torch::nn::Linear &model, torch::optim::SGD &opt,
                const Batches &data, const Batches &held_out) {
  torch::Tensor val_total = torch::zeros({1});
  for (size_t i = 0; i < data.size(); ++i) {
    opt.zero_grad();
    torch::mse_loss(model->forward(data[i].first), data[i].second).backward();
    opt.step();
    // WITH: :[[@LINE+1]]:5: warning: tensor with autograd history accumulated into 'val_total' {{.*}} [torch-loss-accumulated-without-item]
    val_total += compute_loss(model, held_out[i].first, held_out[i].second);
  }
}

// The loss comes from another file; the loop trains through optimize(),
// which trains through train_step(): three files.
void accumulate_and_optimize(torch::nn::Linear &model, torch::optim::SGD &opt,
                             const Batches &data) {
  torch::Tensor total = torch::zeros({1});
  for (const auto &batch : data) {
    opt.zero_grad();
    auto loss = compute_loss(model, batch.first, batch.second);
    // WITH: :[[@LINE+1]]:5: warning: tensor with autograd history accumulated into 'total'
    total += loss;
    optimize(opt, loss);
  }
}

// The loop trains only through a helper of another file.
void accumulate_through_step(torch::nn::Linear &model, torch::optim::SGD &opt,
                             const Batches &data) {
  torch::Tensor running = torch::zeros({1});
  for (const auto &batch : data) {
    clear_grads(opt);
    auto loss = torch::mse_loss(model->forward(batch.first), batch.second);
    train_step(opt, loss);
    // WITH: :[[@LINE+1]]:5: warning: tensor with autograd history accumulated into 'running'
    running += loss;
  }
}

// Detached in the other file: nothing leaks.
void accumulate_detached(torch::nn::Linear &model, torch::optim::SGD &opt,
                         const Batches &data) {
  torch::Tensor total = torch::zeros({1});
  for (const auto &batch : data) {
    opt.zero_grad();
    torch::mse_loss(model->forward(batch.first), batch.second).backward();
    opt.step();
    total += detached_loss(model, batch.first, batch.second);
  }
}

// The prediction is rebuilt from values in another file.
void rebuilt(torch::nn::Linear &model, torch::optim::SGD &opt,
             const Batches &data) {
  for (const auto &batch : data) {
    opt.zero_grad();
    // WITH: :[[@LINE+3]]:23: warning: rebuild (defined in another file) returns a tensor rebuilt from values read out of a tensor with autograd history{{.*}} [torch-tensor-from-values-breaks-graph]
    // WITH: :[[@LINE+2]]:31: note: values read out of a tensor with autograd history here
    // WITH: :[[@LINE+2]]:5: note: the new tensor is the prediction of this loss
    auto prediction = rebuild(model->forward(batch.first));
    torch::mse_loss(prediction, batch.second).backward();
    opt.step();
  }
}

// The same, two calls deep in the other file.
void rebuilt_twice(torch::nn::Linear &model, torch::optim::SGD &opt,
                   const Batches &data) {
  for (const auto &batch : data) {
    opt.zero_grad();
    // WITH: :[[@LINE+1]]:23: warning: rebuild_twice (defined in another file) returns a tensor rebuilt
    auto prediction = rebuild_twice(model->forward(batch.first));
    torch::mse_loss(prediction, batch.second).backward();
    opt.step();
  }
}

// The helper handed the optimizer clears nothing. Without its summary, a
// declared-only function handed the optimizer may clear: silent.
void never_cleared(torch::nn::Linear &model, torch::optim::SGD &opt,
                   const Batches &data) {
  for (const auto &batch : data) {
    torch::mse_loss(model->forward(batch.first), batch.second).backward();
    // WITH: :[[@LINE+1]]:5: warning: optimizer step in a training loop that never clears gradients{{.*}} [torch-missing-zero-grad]
    opt.step();
    log_metrics(model, opt);
  }
}

// The helper clears.
void cleared(torch::nn::Linear &model, torch::optim::SGD &opt,
             const Batches &data) {
  for (const auto &batch : data) {
    clear_grads(opt);
    torch::mse_loss(model->forward(batch.first), batch.second).backward();
    opt.step();
  }
}

void epoch(torch::nn::Linear &model, torch::optim::SGD &opt,
           const Batches &data) {
  {
    torch::NoGradGuard no_grad;
    evaluate(model, data);
    validate(model, data);
  }
  validate(model, data);
}

// evaluate() (eval.cpp) leaves the model in evaluation mode: from the second
// epoch on, the model trains in inference mode.
void epochs(torch::nn::Linear &model, torch::optim::SGD &opt,
            const Batches &data, const Batches &val) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &batch : data) {
      opt.zero_grad();
      torch::mse_loss(model->forward(batch.first), batch.second).backward();
      opt.step();
    }
    torch::NoGradGuard no_grad;
    // WITH: :[[@LINE+2]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it{{.*}} [torch-eval-mode-not-restored]
    // WITH: :[[@LINE+1]]:5: note: 'evaluate' (defined in another file) leaves the module in evaluation mode
    evaluate(model, val);
  }
}

// The same, with train() at the start of every epoch, or with a helper that
// restores the mode itself.
void epochs_restored(torch::nn::Linear &model, torch::optim::SGD &opt,
                     const Batches &data, const Batches &val) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    model->train();
    for (const auto &batch : data) {
      opt.zero_grad();
      torch::mse_loss(model->forward(batch.first), batch.second).backward();
      opt.step();
    }
    torch::NoGradGuard no_grad;
    evaluate(model, val);
  }
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &batch : data) {
      opt.zero_grad();
      torch::mse_loss(model->forward(batch.first), batch.second).backward();
      opt.step();
    }
    evaluate_and_restore(model, val);
  }
}

// A module whose forward (in steps.cpp) keeps its hidden state between calls.
void stateful(Recurrent &model, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    opt.zero_grad();
    auto loss = model->forward(batch.first).sum();
    // WITH: :[[@LINE+2]]:5: warning: backward pass in a loop reaches the graph of 'RecurrentImpl::h_' that 'model' keeps from the previous iteration{{.*}} [torch-backward-twice-without-retain-graph]
    // WITH: :[[@LINE-2]]:17: note: 'forward' (defined in another file) computes 'h_' from its value in the previous call
    loss.backward();
    opt.step();
  }
}

// The same, reset every iteration (reset_state() in steps.cpp).
void stateful_reset(Recurrent &model, torch::optim::SGD &opt,
                    const Batches &data) {
  for (const auto &batch : data) {
    model->reset_state();
    opt.zero_grad();
    model->forward(batch.first).sum().backward();
    opt.step();
  }
}

// Written in place after a forward (in losses.cpp) that saved its result.
void gated(Gate &gate, torch::optim::SGD &opt, const Batches &data) {
  for (const auto &batch : data) {
    opt.zero_grad();
    auto y = gate->forward(batch.first);
    // WITH: :[[@LINE+2]]:7: warning: in-place 'mul_' changes a tensor that 'gate' saved for the backward pass{{.*}} [torch-inplace-on-saved-tensor]
    // WITH: :[[@LINE-2]]:20: note: 'gate' saves its result for the backward pass here
    y.mul_(2);
    // WITH: :[[@LINE+1]]:13: note: the backward pass that needs it
    y.sum().backward();
    opt.step();
  }
}

// A value read out in another file (of the critic's own output), rebuilt.
void critic_values(torch::nn::Linear &critic, torch::optim::SGD &opt,
                   const Batches &data) {
  std::vector<float> values;
  for (const auto &batch : data)
    values.push_back(value_of(critic, batch.first));
  // WITH: :[[@LINE+2]]:15: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it{{.*}} [torch-tensor-from-values-breaks-graph]
  // WITH: :[[@LINE-2]]:22: note: values read out of a tensor with autograd history here
  auto loss = torch::tensor(values).pow(2).mean();
  // WITH: :[[@LINE+1]]:3: note: the new tensor is backpropagated here, with no other autograd history
  loss.backward();
}
