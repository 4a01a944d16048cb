// RUN: %check_torch_tidy %s torch-eval-loop-without-no-grad %t -- -- -isystem %mock_torch

#include <torch/script.h>

struct Net : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &x) { return x; }
};

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// --- Positive ----------------------------------------------------------------

// .eval() before the loop, forward through a holder's ->forward.
double accuracy(torch::nn::Linear &model, const Batches &batches) {
  model->eval();
  double correct = 0;
  for (const auto &batch : batches) {
    auto out = model->forward(batch.first);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: module forward in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: module put into evaluation mode here
    correct += out.argmax(1).eq(batch.second).sum().item<double>();
  }
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &batch : batches) {{{$}}
  return correct;
}

// Name-based context, operator() on a holder, a while loop.
void validate(torch::nn::Linear &model, const Batches &batches) {
  size_t i = 0;
    while (i < batches.size()) {
      auto out = model(batches[i].first);
      // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: module forward in an evaluation loop
      ++i;
    }
  // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}    while (i < batches.size()) {{{$}}
}

// TorchScript: module.forward({...}) and module({...}), a for and a do loop.
void run_inference(torch::jit::Module &module, const std::vector<torch::Tensor> &xs) {
  for (size_t i = 0; i < xs.size(); ++i) {
    auto out = module.forward({xs[i]}).toTensor();
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: module forward in an evaluation loop
  }
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (size_t i = 0; i < xs.size(); ++i) {{{$}}
  size_t j = 0;
  do {
    auto out = module({xs[j]});
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: module forward in an evaluation loop
  } while (++j < xs.size());
  // The guard inserted before the first loop already covers this one.
  // CHECK-FIXES: {{^}}  size_t j = 0;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  do {{{$}}
}

// A validation loop nested in an epoch loop that also trains: only the
// validation loop is reported, and the guard goes right before it.
void fit(std::shared_ptr<Net> net, torch::optim::SGD &opt, const Batches &train,
         const Batches &valid) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    net->train();
    for (const auto &batch : train) {
      auto loss = torch::mse_loss(net->forward(batch.first), batch.second);
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    net->eval();
    double total = 0;
    for (const auto &batch : valid) {
      total += torch::mse_loss(net->forward(batch.first), batch.second).item<double>();
      // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: module forward in an evaluation loop
      // CHECK-MESSAGES: :[[@LINE-5]]:5: note: module put into evaluation mode here
    }
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
    // CHECK-FIXES-NEXT: {{^}}    for (const auto &batch : valid) {{{$}}
  }
}

// An inner loop in an evaluation loop: the guard goes before the outer one,
// and the loop is reported once for its two forwards.
void predict_sequences(torch::nn::Linear &model, const std::vector<std::vector<torch::Tensor>> &seqs) {
  for (const auto &seq : seqs) {
    for (const auto &x : seq) {
      auto h = model(x);
      // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: module forward in an evaluation loop
      auto h2 = model->forward(h);
    }
  }
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &seq : seqs) {{{$}}
}

// A guard declared after the loop in the same block does not help, and its
// name is taken.
void test_then_guard(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs)
    model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module forward in an evaluation loop
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad_guard;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : xs){{$}}
  torch::NoGradGuard no_grad;
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  model(xs[0]);
}

// Function templates and generic lambdas: reported once, in the template.
template <typename Model>
void evaluate_all(Model &model, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs)
    model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module forward in an evaluation loop
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : xs){{$}}
}

void use_templates(torch::nn::Linear &linear, torch::nn::Conv2d &conv,
                   const std::vector<torch::Tensor> &xs) {
  evaluate_all(linear, xs);
  evaluate_all(conv, xs);
  auto score = [&](auto &model) {
    model->eval();
    for (const auto &x : xs)
      model->forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: module forward in an evaluation loop
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
    // CHECK-FIXES-NEXT: {{^}}    for (const auto &x : xs){{$}}
  };
  score(linear);
  score(conv);
}

// A lambda named for evaluation.
void lambda_named(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  auto infer = [&] {
    for (const auto &x : xs)
      model(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: module forward in an evaluation loop
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
  };
  infer();
}

// Not at the start of a line: the guard is inserted in place.
void test_inline(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  int n = 0; for (const auto &x : xs) { model(x); ++n; }
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: module forward in an evaluation loop
  // CHECK-FIXES: {{^}}  int n = 0; torch::NoGradGuard no_grad; for (const auto &x : xs) { model(x); ++n; }{{$}}
}

// Training follows in the same block: a guard there would outlive the
// evaluation loop and break training, so no fix-it.
void eval_then_train(torch::nn::Linear &model, torch::optim::SGD &opt,
                     const std::vector<torch::Tensor> &xs) {
  model->eval();
  for (const auto &x : xs)
    model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module forward in an evaluation loop
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: module put into evaluation mode here
  // CHECK-FIXES: {{^}}  model->eval();{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : xs){{$}}
  model->train();
  for (const auto &x : xs) {
    auto loss = model(x).sum();
    loss.backward();
    opt.step();
  }
}

// Neither eval() nor an evaluation name, but nothing computed from the
// forward's output leaves the iteration: no backward pass can use the graph
// it records (the evidence from the loop itself).
void run_model(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs)
    model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module forward in an evaluation loop
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : xs){{$}}
}

// The outputs leave the loop and nothing says evaluation: not reported.
std::vector<torch::Tensor> run_and_keep(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  std::vector<torch::Tensor> outs;
  for (const auto &x : xs)
    outs.push_back(model(x));
  return outs;
}

// --- Negative ----------------------------------------------------------------

void guarded(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  model->eval();
  {
    torch::NoGradGuard no_grad;
    for (const auto &x : xs)
      model(x);
  }
  at::NoGradGuard at_guard;
  for (const auto &x : xs)
    model(x);
}

void test_inference_mode(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  c10::InferenceMode guard;
  for (const auto &x : xs) {
    if (x.defined()) {
      model(x);
    }
  }
}

void evaluate_autograd_mode(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  torch::AutoGradMode enable_grad(false);
  for (const auto &x : xs)
    model(x);
}

// The guard inside the loop, before the forward.
void validate_guard_inside(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs) {
    torch::NoGradGuard no_grad;
    model(x);
  }
}

// Guard in the enclosing function of a lambda.
void predict_lambda(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  torch::NoGradGuard no_grad;
  auto run = [&] {
    for (const auto &x : xs)
      model(x);
  };
  run();
}

// Grad mode set by hand.
void test_grad_mode(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  c10::GradMode::set_enabled(false);
  for (const auto &x : xs)
    model(x);
  c10::GradMode::set_enabled(true);
}

// Adversarial inputs: eval mode, but the loop backpropagates into the input.
void test_adversarial(torch::nn::Linear &model, std::vector<torch::Tensor> &xs,
                      const torch::Tensor &y) {
  model->eval();
  for (auto &x : xs) {
    x.requires_grad_(true);
    auto loss = torch::nll_loss(model(x), y);
    loss.backward();
  }
}

// Style transfer: a frozen network in eval mode, an optimizer over the image;
// the forward sits in an inner loop, backward() in the outer one.
void style_transfer(std::vector<torch::nn::Conv2d> &layers, torch::Tensor image,
                    torch::optim::Adam &opt) {
  for (auto &layer : layers)
    layer->eval();
  for (int step = 0; step < 100; ++step) {
    torch::Tensor features = image;
    for (auto &layer : layers)
      features = layer(features);
    auto loss = features.mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// Gradient penalty with torch::autograd::grad in the loop.
void evaluate_gradients(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs) {
    auto out = model(x);
    auto g = torch::autograd::grad({out}, {x});
  }
}


// train() after eval(): the last mode change before the loop is train().
void run_after_train(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  model->eval();
  model->train();
  for (const auto &x : xs)
    model(x);
}

// A forward outside any loop.
torch::Tensor predict_one(torch::nn::Linear &model, const torch::Tensor &x) {
  model->eval();
  return model(x);
}

// Loss modules alone are not the model's forward.
void test_losses(torch::nn::MSELoss &criterion, const std::vector<torch::Tensor> &outs,
                 const torch::Tensor &y) {
  for (const auto &o : outs)
    criterion(o, y);
}

// Types that merely share names with LibTorch's.
namespace user {
struct Tensor {};
struct Module {
  void eval() {}
  Tensor forward(const Tensor &t) { return t; }
  Tensor operator()(const Tensor &t) { return t; }
};
} // namespace user
void evaluate_user(user::Module &m, const std::vector<user::Tensor> &xs) {
  m.eval();
  for (const auto &x : xs) {
    m.forward(x);
    m(x);
  }
}

// A template whose loop backpropagates (dependent in the template).
template <typename Loss>
void test_template_backward(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs) {
    Loss loss = model(x).sum();
    loss.backward();
  }
}
void use_template_backward(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  test_template_backward<torch::Tensor>(model, xs);
}

// The loop's outputs stay in the iteration, but its callers decide: one
// manages grad mode by hand, another puts the module back into training mode
// before the call (recalibrating batch norm statistics).
static void run_each(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs)
    model(x);
}
void caller_manages_grad_mode(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  c10::GradMode::set_enabled(false);
  run_each(model, xs);
  c10::GradMode::set_enabled(true);
}
void caller_trains(torch::nn::Linear &model, const std::vector<torch::Tensor> &xs) {
  model->eval();
  model->train();
  run_each(model, xs);
}

// The outputs leave the iteration through an in-place write into a tensor of
// the function (a decoder's outputs filled step by step): not reported.
torch::Tensor fill_outputs(torch::nn::Linear &model, const torch::Tensor &x) {
  auto preds = torch::zeros({4, 3});
  for (int64_t t = 0; t < 4; ++t) {
    auto step = model(x);
    preds.index_put_({t}, step);
  }
  return preds;
}
