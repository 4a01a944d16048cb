// A module's parameter members are leaves that require grad, like the
// tensors of its parameters(): a registered layer's weight and bias
// (`model->fc->weight`, `conv1->bias`, `fc.weight`), a member a user's module
// registers with register_parameter (`this->weight`). Values read out of them
// and rebuilt into a loss term cut the graph. Buffers (register_buffer: the
// running statistics of a norm layer, a loss module's class weights), tensor
// members a user's module does not register, parameters registered with
// requires_grad=false and reads under a no-grad guard carry no history.
// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

namespace F = torch::nn::functional;

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 3))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

// --- Positive ------------------------------------------------------------------

// The report: an L2 penalty on a registered submodule's weight, computed on
// the host and added to the loss.
void l2Penalty(Net &model, torch::Tensor x, torch::Tensor y) {
  auto ce = F::cross_entropy(model->forward(x), y);
  auto loss = ce + 0.01 * torch::tensor(model->fc->weight.norm().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES: :[[@LINE-2]]:66: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

// A layer's bias read through its holder, into a host vector.
void convBias(torch::nn::Conv2d &conv1, torch::Tensor x, torch::Tensor y) {
  std::vector<float> b;
  for (int64_t i = 0; i < 4; ++i)
    b.push_back(conv1->bias[i].item<float>());
  auto loss = torch::mse_loss(conv1(x), y) + torch::tensor(b).abs().sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-3]]:32: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

// The module itself (not its holder): `fc.weight`, read through data_ptr and
// rebuilt as the prediction of a loss.
void implWeight(torch::nn::LinearImpl &fc, torch::Tensor target) {
  float *raw = fc.weight.data_ptr<float>();
  auto pred = torch::from_blob(raw, {12}).clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::from_blob builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-3]]:26: note: values read out of a tensor with autograd history here
  auto loss = torch::mse_loss(pred, target);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: note: the new tensor is the prediction of this loss
  loss.backward();
}

// Through a local reference to the parameter.
void throughReference(Net &model, torch::Tensor x, torch::Tensor y) {
  auto &w = model->fc->weight;
  double l2 = w.pow(2).sum().item<double>();
  auto loss = torch::mse_loss(model(x), y) + torch::full({}, 1e-4 * l2);
  // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: at::full builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-3]]:30: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

// A norm layer's affine weight is a parameter (its running statistics are
// not: see below).
void normWeight(torch::nn::BatchNorm2d &bn, torch::Tensor x, torch::Tensor y) {
  float g = bn->weight.abs().sum().item<float>();
  auto loss = torch::mse_loss(bn(x), y) + torch::tensor(g);
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-3]]:36: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

// A member the user's module registers as a parameter, read in its own
// method as `this->weight` and as `weight`.
struct ScaleImpl : torch::nn::Module {
  ScaleImpl() { weight = register_parameter("weight", torch::ones({4})); }
  torch::Tensor forward(torch::Tensor x) { return x * weight; }

  void step(torch::Tensor x, torch::Tensor y) {
    auto loss = torch::mse_loss(forward(x), y);
    float l2 = this->weight.pow(2).sum().item<float>();
    (loss + 1e-3 * torch::tensor(l2)).backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: torch::tensor builds a tensor without autograd history
    // CHECK-MESSAGES: :[[@LINE-3]]:42: note: values read out of a tensor with autograd history here
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  }
  void stepImplicit(torch::Tensor x, torch::Tensor y) {
    auto loss = torch::mse_loss(forward(x), y);
    std::vector<float> w;
    for (int64_t i = 0; i < 4; ++i)
      w.push_back(weight[i].item<float>());
    (loss + torch::tensor(w).sum()).backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: torch::tensor builds a tensor without autograd history
    // CHECK-MESSAGES: :[[@LINE-3]]:29: note: values read out of a tensor with autograd history here
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  }

  torch::Tensor weight;
};
TORCH_MODULE(Scale);

// Registered in a constructor's member initialiser, read from outside the
// module through its holder.
struct GainImpl : torch::nn::Module {
  GainImpl() : gain(register_parameter("gain", torch::ones({1}))) {}
  torch::Tensor forward(torch::Tensor x) { return x * gain; }
  torch::Tensor gain;
};
TORCH_MODULE(Gain);

void gainFromOutside(Gain &g, torch::Tensor x) {
  auto out = g(x);
  auto loss = out.pow(2).mean() + torch::tensor(g->gain.item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-2]]:57: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

// A helper that reads the value out of the parameter and returns it: the
// call is the read.
float weightNorm(Net &m) { return m->fc->weight.norm().item<float>(); }

void helperPenalty(Net &model, torch::Tensor x, torch::Tensor y) {
  auto loss = F::cross_entropy(model(x), y) + torch::tensor(weightNorm(model));
  // CHECK-MESSAGES: :[[@LINE-1]]:47: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-2]]:61: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the new tensor is a term of the loss backpropagated here; without history it adds a constant, which changes no gradient
  loss.backward();
}

// --- Negative twins ---------------------------------------------------------------

// The running statistics of a norm layer are buffers: no gradient.
void normRunningStats(torch::nn::BatchNorm2d &bn, torch::Tensor x,
                      torch::Tensor y) {
  float m = bn->running_mean.mean().item<float>();
  float v = bn->running_var.mean().item<float>();
  auto loss = torch::mse_loss(bn(x), y) + torch::tensor(m) + torch::tensor(v);
  loss.backward();
}

// A buffer a user's module registers, and a tensor member it does not
// register (unknown: silent).
struct StatsImpl : torch::nn::Module {
  StatsImpl() {
    fc = register_module("fc", torch::nn::Linear(4, 4));
    mean_ = register_buffer("mean", torch::zeros({4}));
    scale_ = torch::ones({4});
    frozen_ = register_parameter("frozen", torch::ones({4}),
                                 /*requires_grad=*/false);
  }
  torch::Tensor forward(torch::Tensor x) { return fc((x - mean_) * scale_); }

  void step(torch::Tensor x, torch::Tensor y) {
    auto loss = torch::mse_loss(forward(x), y);
    float m = mean_.sum().item<float>();
    float s = this->scale_.sum().item<float>();
    float f = frozen_.sum().item<float>();
    (loss + torch::tensor(m) + torch::tensor(s) + torch::tensor(f)).backward();
  }

  torch::nn::Linear fc{nullptr};
  torch::Tensor mean_, scale_, frozen_;
};
TORCH_MODULE(Stats);

void statsFromOutside(Stats &stats, torch::Tensor x, torch::Tensor y) {
  auto loss = torch::mse_loss(stats(x), y) +
              torch::tensor(stats->mean_.sum().item<float>()) +
              torch::tensor(stats->scale_.sum().item<float>());
  loss.backward();
}

// A loss module's class weights are a buffer.
void classWeights(torch::nn::CrossEntropyLoss &criterion, Net &model,
                  torch::Tensor x, torch::Tensor y) {
  float w = criterion->weight.sum().item<float>();
  auto loss = criterion(model(x), y) + torch::tensor(w);
  loss.backward();
}

// Read under a no-grad guard: no history recorded, none read out.
void underGuard(Net &model, torch::Tensor x, torch::Tensor y) {
  float n = 0, b = 0;
  {
    torch::NoGradGuard no_grad;
    n = model->fc->weight.norm().item<float>();
    b = model->fc->bias.item<float>();
  }
  auto loss = F::cross_entropy(model(x), y) + torch::tensor(n) +
              torch::tensor(b);
  loss.backward();
}

// The same over parameters(), read directly (no operation in between).
void parametersUnderGuard(Net &model, torch::Tensor x, torch::Tensor y) {
  std::vector<float> first;
  {
    torch::NoGradGuard no_grad;
    for (auto &p : model->parameters())
      first.push_back(p.data_ptr<float>()[0]);
  }
  auto loss = F::cross_entropy(model(x), y) + torch::tensor(first).sum();
  loss.backward();
}

// The penalty kept as a tensor: the graph is whole.
void tensorPenalty(Net &model, torch::Tensor x, torch::Tensor y) {
  auto loss = F::cross_entropy(model(x), y) +
              0.01 * model->fc->weight.norm();
  loss.backward();
}

// A parameter's values as a constant factor, not a term of the loss.
void asWeight(Net &model, torch::Tensor x) {
  float s = model->fc->bias.sum().item<float>();
  auto loss = (model(x) * torch::tensor(s)).sum();
  loss.backward();
}

// A parameter's gradient has no history of its own: its norm rebuilt into
// the next loss is a constant by design (gradient norms are not flagged).
void gradientNorm(Net &model, torch::Tensor x, torch::Tensor y) {
  double g = model->fc->weight.grad().norm().item<double>();
  auto loss = F::cross_entropy(model(x), y) + 0.1 * torch::tensor(g);
  loss.backward();
}

// The same over parameters().
void gradientNorms(Net &model, torch::Tensor x, torch::Tensor y) {
  double g = 0;
  for (auto &p : model->parameters())
    g += p.grad().norm().item<double>();
  auto loss = F::cross_entropy(model(x), y) + 0.1 * torch::tensor(g);
  loss.backward();
}

// Values only logged.
void logged(Net &model, torch::Tensor x, torch::Tensor y) {
  auto loss = F::cross_entropy(model(x), y);
  auto shown = loss + torch::tensor(model->fc->weight.norm().item<float>());
  loss.backward();
  (void)shown;
}
