// RUN: %check_torch_tidy %s torch-optimizer-created-in-loop %t -- -- -isystem %mock_torch

// A fresh model in the same iteration as its optimizer (a hyper-parameter
// search, folds, an ensemble): however the iteration renews the model, a new
// optimizer is right; when nothing renews it, the optimizer is reported.

#include <torch/torch.h>

#include <memory>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

template <typename M>
void fit(M &model, torch::optim::Optimizer &opt, const Batches &data) {}

// --- Not flagged ---------------------------------------------------------------

void appended_to_container(const Batches &data, const std::vector<double> &lrs) {
  std::vector<Net> ensemble;
  for (double lr : lrs) {
    ensemble.push_back(Net());
    torch::optim::Adam opt(ensemble.back()->parameters(), lr);
    for (const auto &b : data) {
      opt.zero_grad();
      ensemble.back()->forward(b.first).sum().backward();
      opt.step();
    }
  }
}

void emplaced_in_container(const Batches &data, int folds) {
  std::vector<std::shared_ptr<NetImpl>> models;
  for (int fold = 0; fold < folds; ++fold) {
    models.emplace_back(std::make_shared<NetImpl>());
    auto opt = std::make_unique<torch::optim::Adam>(models.back()->parameters());
    for (const auto &b : data) {
      opt->zero_grad();
      models.back()->forward(b.first).sum().backward();
      opt->step();
    }
  }
}

void rebuild(Net &model) { model = Net(); }

void renewed_by_helper(const Batches &data, const std::vector<double> &lrs) {
  Net model;
  for (double lr : lrs) {
    rebuild(model);
    torch::optim::Adam opt(model->parameters(), lr);
    for (const auto &b : data) {
      opt.zero_grad();
      model->forward(b.first).sum().backward();
      opt.step();
    }
  }
}

struct Search {
  Net model_{nullptr};
  std::vector<double> lrs_;
  void init_model() { model_ = Net(); }
  void reinit() { init_model(); }

  void run(const Batches &data) {
    for (double lr : lrs_) {
      reinit();
      torch::optim::Adam opt(model_->parameters(), lr);
      for (const auto &b : data) {
        opt.zero_grad();
        model_->forward(b.first).sum().backward();
        opt.step();
      }
    }
  }
};

// A model constructed in the iteration, with its optimizer: a fresh model per
// learning rate or seed, also when built through constructor arguments.
struct MlpImpl : torch::nn::Module {
  MlpImpl(int64_t in = 4, int64_t hidden = 8) {}
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};
TORCH_MODULE(Mlp);

struct Config {
  int64_t in = 4, hidden = 8;
};

template <typename M, typename O> void train(M &model, O &opt) {
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    model->forward(torch::randn({2, 4})).sum().backward();
    opt.step();
  }
}

void per_learning_rate(const std::vector<double> &lrs) {
  for (double lr : lrs) {
    Net net;
    torch::optim::Adam opt(net->parameters(), lr);
    train(net, opt);
  }
}

void per_seed_with_arguments(const Config &cfg, int64_t in, int seeds) {
  for (int seed = 0; seed < seeds; ++seed) {
    Mlp net(in, cfg.hidden);
    torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-3));
    for (int i = 0; i < 10; ++i) {
      opt.zero_grad();
      net->forward(torch::randn({2, 4})).sum().backward();
      opt.step();
    }
  }
}

void per_seed_make_shared(const Config &cfg, int seeds) {
  for (int seed = 0; seed < seeds; ++seed) {
    auto net = std::make_shared<MlpImpl>(cfg.in, cfg.hidden);
    torch::optim::Adam opt(net->parameters());
    train(net, opt);
  }
}

void per_width_layer(const std::vector<int64_t> &widths, int64_t in) {
  for (int64_t w : widths) {
    torch::nn::Linear layer(in, w);
    torch::optim::Adam opt(layer->parameters());
    train(layer, opt);
  }
}

// --- Flagged: nothing renews the model -----------------------------------------

// A copy of a holder made in the iteration shares the model that outlives it.
void holder_copy(const Batches &data, Net &model, const std::vector<double> &lrs) {
  for (double lr : lrs) {
    Net net = model;
    torch::optim::Adam opt(net->parameters(), lr);
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed inside the training loop
    // CHECK-MESSAGES: :[[@LINE-5]]:44: note: its parameters come from 'model', which outlives the loop
    train(net, opt);
  }
}

// Built from a module that outlives the loop (the holder shares it).
void wraps_outer_impl(const Batches &data, std::shared_ptr<MlpImpl> impl, int seeds) {
  for (int seed = 0; seed < seeds; ++seed) {
    Mlp net(impl);
    torch::optim::Adam opt(net->parameters());
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed inside the training loop
    // CHECK-MESSAGES: :[[@LINE-5]]:69: note: its parameters come from 'impl', which outlives the loop
    train(net, opt);
  }
}


void same_element_every_time(const Batches &data, std::vector<Net> &ensemble,
                             const std::vector<double> &lrs) {
  for (double lr : lrs) {
    torch::optim::Adam opt(ensemble.back()->parameters(), lr);
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed inside the training loop
    // CHECK-MESSAGES: :[[@LINE-5]]:69: note: its parameters come from 'ensemble', which outlives the loop
    for (const auto &b : data) {
      opt.zero_grad();
      ensemble.back()->forward(b.first).sum().backward();
      opt.step();
    }
  }
}

void log_model(const Net &model);
void inspect(Net &model);

void helper_only_reads(const Batches &data, const std::vector<double> &lrs) {
  Net model;
  for (double lr : lrs) {
    log_model(model);
    inspect(model);
    torch::optim::Adam opt(model->parameters(), lr);
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed inside the training loop
    // CHECK-MESSAGES: :[[@LINE-6]]:7: note: its parameters come from 'model', which outlives the loop
    for (const auto &b : data) {
      opt.zero_grad();
      model->forward(b.first).sum().backward();
      opt.step();
    }
  }
}

void inspect(Net &model) { model->train(); }

struct NoSearch {
  Net model_{nullptr};
  std::vector<double> lrs_;
  void log() const {}

  void run(const Batches &data) {
    for (double lr : lrs_) {
      log();
      torch::optim::Adam opt(model_->parameters(), lr);
      // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: optimizer constructed inside the training loop
      // CHECK-MESSAGES: :[[@LINE-9]]:7: note: its parameters come from 'model_', which outlives the loop
      for (const auto &b : data) {
        opt.zero_grad();
        model_->forward(b.first).sum().backward();
        opt.step();
      }
    }
  }
};
