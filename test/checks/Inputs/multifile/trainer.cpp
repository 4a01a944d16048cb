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
