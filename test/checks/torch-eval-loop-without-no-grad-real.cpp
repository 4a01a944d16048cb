// The same patterns against Debian's real LibTorch headers; the fixed file
// must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-eval-loop-without-no-grad %t -- -- %libtorch_flags

#include <torch/script.h>
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

double accuracy(Net &net, const Batches &batches) {
  net->eval();
  double correct = 0;
  for (const auto &batch : batches) {
    auto out = net(batch.first);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: module forward in an evaluation loop without a gradient-disabling guard records an autograd graph on every iteration; add 'torch::NoGradGuard no_grad;' before the loop [torch-eval-loop-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: module put into evaluation mode here
    correct += out.argmax(1).eq(batch.second).sum().item<double>();
  }
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &batch : batches) {{{$}}
  return correct;
}

void fit(Net &net, torch::optim::SGD &opt, const Batches &train,
         const Batches &valid, torch::jit::Module &scripted) {
  for (int epoch = 0; epoch < 2; ++epoch) {
    net->train();
    for (const auto &batch : train) {
      auto loss = torch::mse_loss(net->forward(batch.first), batch.second);
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    net->eval();
    scripted.eval();
    for (const auto &batch : valid) {
      auto out = scripted.forward({batch.first}).toTensor();
      // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: module forward in an evaluation loop
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: module put into evaluation mode here
      auto out2 = scripted({batch.first}).toTensor();
    }
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
    // CHECK-FIXES-NEXT: {{^}}    for (const auto &batch : valid) {{{$}}
  }
}

void predict(Net &net, const std::vector<torch::Tensor> &xs) {
  size_t i = 0;
  while (i < xs.size())
    net->forward(xs[i++]);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: module forward in an evaluation loop
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  while (i < xs.size()){{$}}
}

// Negative: guards of every kind, and a loop that backpropagates.
void test_guarded(Net &net, const std::vector<torch::Tensor> &xs) {
  net->eval();
  {
    torch::NoGradGuard no_grad;
    for (const auto &x : xs)
      net(x);
  }
  {
    at::NoGradGuard no_grad;
    for (const auto &x : xs)
      net(x);
  }
  {
    c10::InferenceMode guard;
    for (const auto &x : xs)
      net(x);
  }
  {
    torch::AutoGradMode enable_grad(false);
    for (const auto &x : xs)
      net(x);
  }
}

void test_adversarial(Net &net, std::vector<torch::Tensor> &xs, const torch::Tensor &y) {
  net->eval();
  for (auto &x : xs) {
    x.requires_grad_(true);
    auto loss = torch::nn::functional::cross_entropy(net(x), y);
    loss.backward();
  }
}

// TorchScript methods, AnyModule, and a trainer class template never
// instantiated here (issue: templates as written).
void infer_methods(torch::jit::script::Module &module, torch::nn::AnyModule &any,
                   const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs) {
    auto a = module.get_method("forward")({x}).toTensor();
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module forward in an evaluation loop
    auto b = any.forward(x);
  }
  // CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  for (const auto &x : xs) {{{$}}
}

template <class Model> class Segmenter {
public:
  double validate(const Batches &batches) {
    model->eval();
    double total = 0;
    for (const auto &batch : batches) {
      auto out = model->forward(batch.first);
      // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: module forward in an evaluation loop
      // CHECK-MESSAGES: :[[@LINE-5]]:5: note: module put into evaluation mode here
      total += torch::nll_loss(out, batch.second).template item<double>();
    }
    // CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad;{{$}}
    return total;
  }

private:
  Model model;
};
