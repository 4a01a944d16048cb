// RUN: %check_torch_tidy %s torch-optimizer-created-in-loop %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// --- Positives

void adam_per_epoch(Net &model, const Batches &data) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed inside the training loop starts from fresh state on every iteration (moments, momentum buffers, step count); construct it once before the loop [torch-optimizer-created-in-loop]
  // CHECK-MESSAGES: :[[@LINE-4]]:26: note: its parameters come from 'model', which outlives the loop
    for (const auto &batch : data) {
      opt.zero_grad();
      model->forward(batch.first).sum().backward();
      opt.step();
    }
  }
}

void per_batch_local_model() {
  Net model;
  std::vector<torch::Tensor> params = model->parameters();
  for (int step = 0; step < 100; ++step) {
    auto params_here = params;
    torch::optim::RMSprop opt(params_here);
    // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: optimizer constructed inside the training loop
  // CHECK-MESSAGES: :[[@LINE-5]]:30: note: its parameters come from 'params'
    opt.zero_grad();
    model->forward(torch::ones({1})).sum().backward();
    opt.step();
  }
}

// SGD with momentum keeps a buffer.
void sgd_momentum(Net &model, const Batches &data) {
  for (const auto &batch : data) {
    torch::optim::SGD opt(model->parameters(),
                          torch::optim::SGDOptions(0.1).momentum(0.9));
    // CHECK-MESSAGES: :[[@LINE-2]]:23: warning: optimizer constructed inside the training loop
  // CHECK-MESSAGES: :[[@LINE-5]]:24: note: its parameters come from 'model'
    opt.zero_grad();
    model->forward(batch.first).sum().backward();
    opt.step();
  }
}

// make_unique, make_shared and new count as constructions; so does an
// unconditional store into a variable declared before the loop.
void through_pointers(Net &model, const Batches &data) {
  std::unique_ptr<torch::optim::Optimizer> opt;
  for (const auto &batch : data) {
    opt = std::make_unique<torch::optim::Adam>(model->parameters());
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: optimizer constructed inside the training loop
  // CHECK-MESSAGES: :[[@LINE-5]]:28: note: its parameters come from 'model'
    opt->zero_grad();
    model->forward(batch.first).sum().backward();
    opt->step();
  }
  for (const auto &batch : data) {
    auto shared = std::make_shared<torch::optim::Adam>(model->parameters());
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: optimizer constructed inside the training loop
    std::unique_ptr<torch::optim::Adam> raw(new torch::optim::Adam(model->parameters()));
    // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: optimizer constructed inside the training loop
    model->forward(batch.first).sum().backward();
    shared->step();
    raw->step();
  }
}

// A member model: the trainer's loop rebuilds its optimizer.
struct Trainer {
  Net model;
  void fit(const Batches &data) {
    for (const auto &batch : data) {
      torch::optim::Adam(model->parameters()).step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer constructed inside the training loop
  // CHECK-MESSAGES: :[[@LINE-5]]:7: note: its parameters come from 'model'
    }
  }
};

// A macro around the construction: reported at the expansion.
#define MAKE_ADAM(name, m) torch::optim::Adam name((m)->parameters())
void in_macro(Net &model, const Batches &data) {
  for (const auto &batch : data) {
    MAKE_ADAM(opt, model);
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: optimizer constructed inside the training loop
  // CHECK-MESSAGES: :[[@LINE-4]]:20: note: its parameters come from 'model'
    opt.step();
  }
}

// --- Templates: one diagnostic in the written form, dependent arguments too.

template <typename Model> void fit_template(Model &model, const Batches &data) {
  for (const auto &batch : data) {
    torch::optim::Adam opt(model->parameters());
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed inside the training loop
  // CHECK-MESSAGES: :[[@LINE-4]]:52: note: its parameters come from 'model'
    model->forward(batch.first).sum().backward();
    opt.step();
  }
}
template void fit_template(Net &, const Batches &);
template void fit_template(torch::nn::Linear &, const Batches &);

template <typename Model> struct TemplateTrainer {
  Model model;
  void fit(const Batches &data) {
    for (const auto &batch : data) {
      auto opt = std::make_unique<torch::optim::Adam>(model->parameters());
      // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: optimizer constructed inside the training loop
  // CHECK-MESSAGES: :[[@LINE-5]]:9: note: its parameters come from 'model'
      opt->step();
    }
  }
};
template struct TemplateTrainer<Net>;

// --- Negatives

void created_once(Net &model, const Batches &data) {
  torch::optim::Adam opt(model->parameters());
  for (const auto &batch : data) {
    opt.zero_grad();
    model->forward(batch.first).sum().backward();
    opt.step();
  }
}

// A fresh model each fold / each trial: its own optimizer is right.
void cross_validation(const std::vector<Batches> &folds) {
  for (const Batches &fold : folds) {
    Net model;
    torch::optim::Adam opt(model->parameters());
    for (const auto &batch : fold) {
      opt.zero_grad();
      model->forward(batch.first).sum().backward();
      opt.step();
    }
  }
}
void hyper_parameter_search(const Batches &data) {
  Net model;
  for (double lr : {1e-3, 1e-2}) {
    model = Net();
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(lr));
    for (const auto &batch : data) {
      model->forward(batch.first).sum().backward();
      opt.step();
    }
  }
  for (int trial = 0; trial < 3; ++trial) {
    auto fresh = Net();
    auto params = fresh->parameters();
    torch::optim::Adam opt(params);
    opt.step();
  }
}
// Each element of a collection is another model.
void ensemble(std::vector<Net> &models, const Batches &data) {
  for (auto &m : models) {
    torch::optim::Adam opt(m->parameters());
    for (const auto &batch : data) {
      m->forward(batch.first).sum().backward();
      opt.step();
    }
  }
  for (size_t i = 0; i < models.size(); ++i) {
    torch::optim::Adam opt(models[i]->parameters());
    opt.step();
  }
}

// Created under a condition and kept: created once.
void stored_once(Net &model, const Batches &data) {
  std::unique_ptr<torch::optim::Adam> opt;
  for (const auto &batch : data) {
    if (!opt)
      opt = std::make_unique<torch::optim::Adam>(model->parameters());
    model->forward(batch.first).sum().backward();
    opt->step();
  }
}

// A static optimizer is constructed once.
void static_optimizer(Net &model, const Batches &data) {
  for (const auto &batch : data) {
    static torch::optim::Adam opt(model->parameters());
    opt.step();
  }
}

// Plain SGD keeps no state: a new one each epoch (to change the learning rate)
// changes nothing else.
void plain_sgd(Net &model, const Batches &data) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::optim::SGD opt(model->parameters(),
                          torch::optim::SGDOptions(0.1 / (epoch + 1)));
    for (const auto &batch : data) {
      opt.zero_grad();
      model->forward(batch.first).sum().backward();
      opt.step();
    }
  }
}

// Loops without a step: building optimizers, one per parameter group.
void setup(Net &model, std::vector<std::unique_ptr<torch::optim::Optimizer>> &opts) {
  for (int i = 0; i < 3; ++i)
    opts.push_back(std::make_unique<torch::optim::Adam>(model->parameters()));
}

// Parameters from a function call: unknown, not reported.
std::vector<torch::Tensor> make_params();
void unknown_params(const Batches &data) {
  for (const auto &batch : data) {
    torch::optim::Adam opt(make_params());
    opt.step();
  }
}

// NOLINT silences it.
void silenced(Net &model, const Batches &data) {
  for (const auto &batch : data) {
    torch::optim::Adam opt(model->parameters()); // NOLINT(torch-optimizer-created-in-loop)
    opt.step();
  }
}
