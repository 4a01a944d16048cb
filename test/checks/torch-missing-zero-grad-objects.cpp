// Which optimizer (or model) object a clearing clears: the same object
// reached through a pointer member, a reference, an accessor, a smart pointer
// or a copy of a holder counts as clearing the optimizer that steps; another
// object reached that way does not.
// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

#include <torch/torch.h>

#include <memory>

// --- Not flagged ---------------------------------------------------------------

class PointerMember {
public:
  void train(torch::Tensor x, torch::Tensor y) {
    for (int i = 0; i < 100; ++i) {
      m_optimizer->zero_grad();
      torch::mse_loss(m_model(x), y).backward();
      m_optimizer->step();
    }
  }
  void trainThroughAccessor(torch::Tensor x, torch::Tensor y) {
    for (int i = 0; i < 100; ++i) {
      optimizer().zero_grad();
      torch::mse_loss(m_model(x), y).backward();
      m_optimizer->step();
    }
  }
  void trainThroughReference(torch::Tensor x, torch::Tensor y) {
    torch::optim::Adam &opt = *m_optimizer;
    for (int i = 0; i < 100; ++i) {
      m_optimizer->zero_grad();
      torch::mse_loss(m_model(x), y).backward();
      opt.step();
    }
  }

private:
  torch::optim::Adam &optimizer() { return *m_optimizer; }
  torch::nn::Linear m_model;
  torch::optim::Adam *m_optimizer = nullptr;
};

class SharedOptimizer {
public:
  std::shared_ptr<torch::optim::Adam> optimizer() const { return m_opt; }
  void train(torch::Tensor x, torch::Tensor y) {
    auto opt = optimizer();
    for (int i = 0; i < 100; ++i) {
      m_opt->zero_grad();
      torch::mse_loss(m_model(x), y).backward();
      opt->step();
    }
  }
  void trainThroughCopy(torch::Tensor x, torch::Tensor y) {
    std::shared_ptr<torch::optim::Adam> opt = m_opt;
    for (int i = 0; i < 100; ++i) {
      opt->zero_grad();
      torch::mse_loss(m_model(x), y).backward();
      m_opt->step();
    }
  }

private:
  torch::nn::Linear m_model;
  std::shared_ptr<torch::optim::Adam> m_opt;
};

void uniqueGet(torch::nn::Linear model, std::unique_ptr<torch::optim::Adam> &owner,
               torch::Tensor x) {
  torch::optim::Adam *raw = owner.get();
  for (int i = 0; i < 100; ++i) {
    raw->zero_grad();
    model(x).sum().backward();
    owner->step();
  }
}

// A copy of a module holder shares the module: clearing it clears the
// optimizer's parameters.
void holderCopy(torch::nn::Linear model, torch::Tensor x) {
  torch::optim::SGD opt(model->parameters(),
                        torch::optim::SGDOptions(0.1).momentum(0.9));
  torch::nn::Linear net = model;
  for (int i = 0; i < 100; ++i) {
    net->zero_grad();
    net(x).sum().backward();
    opt.step();
  }
}

// A local pointer that is pointed elsewhere in the loop: it may be either.
void reboundPointer(torch::nn::Linear G, torch::nn::Linear D, torch::Tensor real) {
  torch::optim::Adam optG(G->parameters()), optD(D->parameters());
  torch::optim::Adam *current = &optD;
  for (int i = 0; i < 100; ++i) {
    current->zero_grad();
    (D(G(torch::randn({4, 4}))).mean() - D(real).mean()).backward();
    current->step();
    current = i % 2 ? &optD : &optG;
    optG.step();
  }
}

// --- Flagged -------------------------------------------------------------------

// Two optimizers held by pointer members: only the other one is cleared.
class Gan {
public:
  void train(torch::Tensor real) {
    for (int i = 0; i < 100; ++i) {
      m_optD->zero_grad();
      auto fake = m_G(torch::randn({4, 4}));
      (m_D(fake.detach()).mean() - m_D(real).mean()).backward();
      m_optD->step();
      (-m_D(fake).mean()).backward();
      m_optG->step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: optimizer step in a training loop that clears other gradients but never those of 'm_optG'
      // CHECK-MESSAGES: :[[@LINE-7]]:7: note: this clears the gradients of another model or optimizer
      // CHECK-MESSAGES: :[[@LINE-4]]:7: note: gradients accumulate across iterations here
    }
  }

private:
  torch::nn::Linear m_G, m_D;
  torch::optim::Adam *m_optG = nullptr;
  torch::optim::Adam *m_optD = nullptr;
};

// A local pointer to the other optimizer.
void ganThroughPointer(torch::nn::Linear G, torch::nn::Linear D,
                       torch::Tensor real) {
  torch::optim::Adam optG(G->parameters()), optD(D->parameters());
  torch::optim::Adam *critic = &optD;
  for (int i = 0; i < 100; ++i) {
    critic->zero_grad();
    auto fake = G(torch::randn({4, 4}));
    (D(fake.detach()).mean() - D(real).mean()).backward();
    critic->step();
    (-D(fake).mean()).backward();
    optG.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that clears other gradients but never those of 'optG'
    // CHECK-MESSAGES: :[[@LINE-7]]:5: note: this clears the gradients of another model or optimizer
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}
