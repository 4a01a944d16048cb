// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

// Where the diagnostic goes: where the user acts. An evaluation loop's own
// forward carries it; a loop that reaches the forward only through a helper
// gets it at the call in the loop, the helper's forward in a note. A helper
// that training shares gets no warning inside it, whatever order the
// functions are defined in.

#include <torch/torch.h>
#include <vector>

using Batch = std::vector<torch::Tensor>;

struct Net : torch::nn::Module {
  torch::nn::Linear fc{4, 2};
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
};

// --- Helper defined before its callers -----------------------------------------

// Shared by training and evaluation.
torch::Tensor embed(Net &net, const torch::Tensor &x) { return net.forward(x); }

void fit_embed(Net &net, torch::optim::SGD &opt, const Batch &xs) {
  for (const auto &x : xs) {
    opt.zero_grad();
    embed(net, x).sum().backward();
    opt.step();
  }
}

// The loop's own forward carries the warning, not the helper's.
double evaluate_both(Net &net, const Batch &xs) {
  net.eval();
  double total = 0;
  for (const auto &x : xs) {
    auto e = embed(net, x);
    auto y = net.forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: module put into evaluation mode here
    total += (e + y).sum().item<double>();
  }
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : xs) {{{$}}
  return total;
}

// Only the helper: the warning at the call in the loop, the helper's forward
// in a note.
double evaluate_embed(Net &net, const Batch &xs) {
  net.eval();
  double total = 0;
  for (const auto &x : xs)
    total += embed(net, x).sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward through this call in an evaluation loop without a gradient-disabling guard records{{.*}} [torch-eval-loop-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-34]]:64: note: the module forward that the call runs
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: module put into evaluation mode here
  return total;
}

// --- Helper defined after its callers (forward declarations) -------------------

torch::Tensor encode(Net &net, const torch::Tensor &x);
void fit_encode(Net &net, torch::optim::SGD &opt, const Batch &xs);

double evaluate_both_late(Net &net, const Batch &xs) {
  net.eval();
  double total = 0;
  for (const auto &x : xs) {
    auto e = encode(net, x);
    auto y = net.forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward in an evaluation loop without a gradient-disabling guard records{{.*}} [torch-eval-loop-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: module put into evaluation mode here
    total += (e + y).sum().item<double>();
  }
  return total;
}

double evaluate_encode(Net &net, const Batch &xs) {
  net.eval();
  double total = 0;
  for (const auto &x : xs)
    total += encode(net, x).sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward through this call in an evaluation loop without a gradient-disabling guard records{{.*}} [torch-eval-loop-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE+6]]:65: note: the module forward that the call runs
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: module put into evaluation mode here
  return total;
}

// Shared by training and evaluation, defined last.
torch::Tensor encode(Net &net, const torch::Tensor &x) { return net.forward(x); }

void fit_encode(Net &net, torch::optim::SGD &opt, const Batch &xs) {
  for (const auto &x : xs) {
    opt.zero_grad();
    encode(net, x).sum().backward();
    opt.step();
  }
}

// --- Two forwards of the loop's own: the first one carries the warning ---------

double evaluate_two(Net &a, Net &b, const Batch &xs) {
  a.eval();
  b.eval();
  double total = 0;
  for (const auto &x : xs) {
    auto h = embed(a, x);
    auto y = a.forward(h);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward in an evaluation loop without a gradient-disabling guard records{{.*}} [torch-eval-loop-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: module put into evaluation mode here
    auto z = b.forward(y);
    total += z.sum().item<double>();
  }
  return total;
}

// --- (b) A loop in a method named like an evaluation that training runs ----------

// A decoder whose predict() unrolls a loop; its forward calls it, and training
// backpropagates the forward's result.
struct DecoderImpl : torch::nn::Module {
  torch::nn::Linear cell{4, 4};
  torch::Tensor predict(torch::Tensor h, int steps) {
    for (int i = 0; i < steps; ++i)
      h = cell->forward(h);
    return h;
  }
  torch::Tensor forward(torch::Tensor h) { return predict(h, 4); }
};
TORCH_MODULE(Decoder);

void train_decoder(Decoder &decoder, torch::optim::Adam &opt, const Batch &xs,
                   const torch::Tensor &target) {
  for (const auto &x : xs) {
    opt.zero_grad();
    auto out = decoder->forward(x);
    auto loss = torch::mse_loss(out, target);
    loss.backward();
    opt.step();
  }
}

// infer() computes what a loss function returns, and training backpropagates
// that loss.
class Forecaster {
public:
  torch::Tensor infer(torch::Tensor h) {
    for (int i = 0; i < 3; ++i)
      h = rnn_->forward(h);
    return h;
  }
  torch::Tensor loss_of(const torch::Tensor &h, const torch::Tensor &y) {
    return torch::mse_loss(infer(h), y);
  }
  void fit(torch::optim::SGD &opt, const torch::Tensor &h,
           const torch::Tensor &y) {
    opt.zero_grad();
    loss_of(h, y).backward();
    opt.step();
  }

private:
  torch::nn::Linear rnn_{4, 4};
};

// A module's forward named after prediction, called by training through the
// module holder.
struct PredictHeadImpl : torch::nn::Module {
  torch::nn::Linear layer{4, 4};
  torch::Tensor PredictSteps(torch::Tensor x) {
    for (int i = 0; i < 2; ++i)
      x = layer->forward(x);
    return x;
  }
  torch::Tensor forward(torch::Tensor x) {
    auto y = PredictSteps(x);
    return y;
  }
};
TORCH_MODULE(PredictHead);

void train_head(PredictHead &head, torch::optim::SGD &opt, const torch::Tensor &x,
                const torch::Tensor &t) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    opt.zero_grad();
    torch::mse_loss(head->forward(x), t).backward();
    opt.step();
  }
}

// --- (c) A model that differentiates inside its forward needs grad mode -------------

struct ForceFieldImpl : torch::nn::Module {
  torch::nn::Linear energy{3, 1};
  torch::Tensor forward(torch::Tensor positions) {
    positions.requires_grad_(true);
    auto e = energy->forward(positions).sum();
    auto grads = torch::autograd::grad({e}, {positions}, {}, true, true);
    return -grads[0];
  }
};
TORCH_MODULE(ForceField);

double evaluate_forces(ForceField &model, const Batch &xs) {
  model->eval();
  double total = 0;
  for (const auto &x : xs)
    total += model->forward(x).sum().item<double>();
  return total;
}

// Through a helper of the evaluation.
torch::Tensor forces_of(ForceField &model, const torch::Tensor &x) {
  return model->forward(x);
}
double validate_forces(ForceField &model, const Batch &xs) {
  model->eval();
  double total = 0;
  for (const auto &x : xs)
    total += forces_of(model, x).sum().item<double>();
  return total;
}

// --- (d) Sampling under a guard inside a forward is no evidence ----------------------

// The whole forward samples under a guard: the loop records nothing.
struct SamplerImpl : torch::nn::Module {
  torch::nn::Linear head{4, 4};
  torch::Tensor forward(torch::Tensor x) {
    torch::NoGradGuard no_grad;
    return head->forward(x).softmax(-1).argmax(1);
  }
};
TORCH_MODULE(Sampler);

double evaluate_sampler(Sampler &sampler, const Batch &xs) {
  sampler->eval();
  double total = 0;
  for (const auto &x : xs)
    total += sampler->forward(x).sum().item<double>();
  return total;
}

// A policy that samples its action under a guard: training backpropagates
// through its log-probabilities, and the sampled tensor says nothing about
// evaluation.
struct PolicyImpl : torch::nn::Module {
  torch::nn::Linear head{4, 2};
  torch::Tensor forward(torch::Tensor s) {
    auto logits = head->forward(s);
    torch::Tensor action;
    {
      torch::NoGradGuard no_grad;
      action = logits.softmax(-1).argmax(1);
    }
    return logits.softmax(-1) * action;
  }
};
TORCH_MODULE(Policy);

void train_policy(Policy &policy, torch::optim::Adam &opt, const Batch &states) {
  for (const auto &s : states) {
    opt.zero_grad();
    policy->forward(s).sum().backward();
    opt.step();
  }
}

// --- Positive twins -------------------------------------------------------------

// The same unrolled predict() returned by a forward, but nothing backpropagates
// the forward's output: its name still makes it an evaluation.
struct GreedyDecoderImpl : torch::nn::Module {
  torch::nn::Linear cell{4, 4};
  torch::Tensor predict(torch::Tensor h, int steps) {
    for (int i = 0; i < steps; ++i)
      h = cell->forward(h);
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: module forward in an evaluation loop without a gradient-disabling guard records{{.*}} [torch-eval-loop-without-no-grad]
    return h;
  }
  torch::Tensor forward(torch::Tensor h) { return predict(h, 4); }
};
TORCH_MODULE(GreedyDecoder);

double score_decoder(GreedyDecoder &decoder, const torch::Tensor &x) {
  return decoder->forward(x).sum().item<double>();
}

// The policy records outside its sampling block: evaluating it records a graph.
double evaluate_policy(Policy &policy, const Batch &states) {
  policy->eval();
  double total = 0;
  for (const auto &s : states)
    total += policy->forward(s).sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward in an evaluation loop without a gradient-disabling guard records{{.*}} [torch-eval-loop-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: module put into evaluation mode here
  return total;
}
