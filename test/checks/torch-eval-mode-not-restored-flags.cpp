// A helper that sets the mode from its bool parameter (`m->train(training)`,
// `m->train(!frozen)`): eval() or train() as each call passes it, through
// helpers that pass their own parameter on, and members of a trainer.
// RUN: %check_torch_tidy %s torch-eval-mode-not-restored %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

void set_mode(torch::nn::Linear &m, bool training) { m->train(training); }
void freeze(torch::nn::Linear &m, bool frozen) { m->train(!frozen); }
void enter_phase(torch::nn::Linear &m, bool training) { set_mode(m, training); }

double evaluate(torch::nn::Linear &m, const std::vector<torch::Tensor> &xs) {
  torch::NoGradGuard guard;
  double total = 0;
  for (const auto &x : xs)
    total += m->forward(x).sum().item<double>();
  return total;
}

// --- Positive ------------------------------------------------------------------

void validateWithFlag(torch::nn::Linear model, torch::optim::SGD &opt,
                      const std::vector<torch::Tensor> &xs) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    set_mode(model, false);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
    // CHECK-MESSAGES: :[[@LINE-24]]:54: note: the mode is set here from the argument
    // CHECK-MESSAGES: :[[@LINE-6]]:7: note: trained here without train() on some path since
    evaluate(model, xs);
  }
}

void validateFrozen(torch::nn::Linear model, torch::optim::SGD &opt,
                    const std::vector<torch::Tensor> &xs) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    freeze(model, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
    // CHECK-MESSAGES: :[[@LINE-39]]:50: note: the mode is set here from the argument
    // CHECK-MESSAGES: :[[@LINE-6]]:7: note: trained here without train() on some path since
    evaluate(model, xs);
  }
}

void validateThroughTwoHelpers(torch::nn::Linear model, torch::optim::SGD &opt,
                               const std::vector<torch::Tensor> &xs) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    enter_phase(model, /*training=*/false);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
    // CHECK-MESSAGES: :[[@LINE-56]]:54: note: the mode is set here from the argument
    // CHECK-MESSAGES: :[[@LINE-6]]:7: note: trained here without train() on some path since
    evaluate(model, xs);
  }
}

class Trainer {
public:
  void fit(const std::vector<torch::Tensor> &xs) {
    for (int epoch = 0; epoch < 10; ++epoch) {
      for (const auto &x : xs) {
        opt_.zero_grad();
        model_->forward(x).sum().backward();
        opt_.step();
      }
      set_training(false);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: module put into evaluation mode in a training loop is still in evaluation mode when a later iteration trains it, so dropout and batch norm train in inference mode; call train() on it before training [torch-eval-mode-not-restored]
      // CHECK-MESSAGES: :[[@LINE+7]]:32: note: the mode is set here from the argument
      // CHECK-MESSAGES: :[[@LINE-6]]:9: note: trained here without train() on some path since
      evaluate(model_, xs);
    }
  }

private:
  void set_training(bool on) { model_->train(on); }
  torch::nn::Linear model_{4, 1};
  torch::optim::SGD opt_{model_->parameters(), 0.1};
};

// --- Negative twins ---------------------------------------------------------------

// The mode is set back at the top of every iteration.
void restoredWithFlag(torch::nn::Linear model, torch::optim::SGD &opt,
                      const std::vector<torch::Tensor> &xs) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    set_mode(model, true);
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    set_mode(model, false);
    evaluate(model, xs);
  }
}

void unfrozen(torch::nn::Linear model, torch::optim::SGD &opt,
              const std::vector<torch::Tensor> &xs) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    freeze(model, false);
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    freeze(model, true);
    evaluate(model, xs);
  }
}

// A flag not known here: nothing is claimed.
void unknownFlag(torch::nn::Linear model, torch::optim::SGD &opt,
                 const std::vector<torch::Tensor> &xs, bool validate) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    set_mode(model, validate && epoch % 2 == 0);
    evaluate(model, xs);
  }
}

// Evaluation after training: no later iteration trains.
void evaluateAfterTraining(torch::nn::Linear model, torch::optim::SGD &opt,
                           const std::vector<torch::Tensor> &xs) {
  for (int epoch = 0; epoch < 10; ++epoch)
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
  set_mode(model, false);
  evaluate(model, xs);
}

class RestoringTrainer {
public:
  void fit(const std::vector<torch::Tensor> &xs) {
    for (int epoch = 0; epoch < 10; ++epoch) {
      set_training(true);
      for (const auto &x : xs) {
        opt_.zero_grad();
        model_->forward(x).sum().backward();
        opt_.step();
      }
      set_training(false);
      evaluate(model_, xs);
    }
  }

private:
  void set_training(bool on) { model_->train(on); }
  torch::nn::Linear model_{4, 1};
  torch::optim::SGD opt_{model_->parameters(), 0.1};
};

// The helper puts back the mode it found (`train(was_training)`): whatever the
// flag holds, it may be training, so the caller's next iteration is not claimed.
double scoreRestoring(torch::nn::Linear &m, const std::vector<torch::Tensor> &xs) {
  const bool was_training = m->is_training();
  m->eval();
  const double total = evaluate(m, xs);
  m->train(was_training);
  return total;
}

void restoresPreviousMode(torch::nn::Linear model, torch::optim::SGD &opt,
                          const std::vector<torch::Tensor> &xs) {
  model->train();
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    scoreRestoring(model, xs);
  }
}

// The same in the loop itself, with a flag from a configuration.
struct RunConfig {
  bool finetune = true;
};

void modeFromConfig(torch::nn::Linear model, torch::optim::SGD &opt,
                    const std::vector<torch::Tensor> &xs, const RunConfig &cfg) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    model->eval();
    evaluate(model, xs);
    model->train(cfg.finetune);
  }
}

void modeFromConfigViaHelper(torch::nn::Linear model, torch::optim::SGD &opt,
                             const std::vector<torch::Tensor> &xs,
                             const RunConfig &cfg) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : xs) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    set_mode(model, false);
    evaluate(model, xs);
    set_mode(model, cfg.finetune);
  }
}
