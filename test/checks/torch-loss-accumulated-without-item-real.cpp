// The same patterns against Debian's real LibTorch headers; the fixed file
// must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-loss-accumulated-without-item %t -- -- %libtorch_flags

#include <torch/script.h>
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

double train(Net &net, torch::optim::SGD &opt, const Batches &batches,
             torch::jit::Module &scripted) {
  torch::Tensor total = torch::zeros({});
  torch::Tensor running = torch::zeros({});
  torch::Tensor in_place = torch::zeros({});
  std::vector<torch::Tensor> history;
  std::vector<torch::Tensor> outputs;
  torch::nn::MSELoss criterion;
  double fine = 0;
  for (const auto &batch : batches) {
    auto out = net(batch.first);
    auto loss = criterion(out, batch.second);
    opt.zero_grad();
    loss.backward();
    opt.step();
    total += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'total' keeps every training iteration's graph alive; accumulate '.item<double>()' of it, or '.detach()' it [torch-loss-accumulated-without-item]
    // CHECK-FIXES: {{^}}    total += loss.detach();{{$}}
    running = running + torch::nn::functional::mse_loss(net->forward(batch.first), batch.second);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'running'
    // CHECK-FIXES: {{^}}    running = running + torch::nn::functional::mse_loss(net->forward(batch.first), batch.second).detach();{{$}}
    in_place.add_(loss * 0.5);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'in_place'
    // CHECK-FIXES: {{^}}    in_place.add_((loss * 0.5).detach());{{$}}
    history.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'history'
    // CHECK-FIXES: {{^}}    history.push_back(loss.detach());{{$}}
    outputs.emplace_back(scripted.forward({batch.first}).toTensor());
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor with autograd history accumulated into 'outputs'
    // CHECK-FIXES: {{^}}    outputs.emplace_back(scripted.forward({batch.first}).toTensor().detach());{{$}}

    // Negative: values, detached tensors, guarded accumulation.
    fine += loss.item<double>();
    total += loss.detach();
    {
      torch::NoGradGuard no_grad;
      running += loss;
    }
    {
      c10::InferenceMode guard;
      outputs.push_back(net(batch.first));
    }
    {
      torch::AutoGradMode enable_grad(false);
      history.push_back(loss);
    }
  }
  // Multi-term loss: summed and backpropagated once.
  torch::Tensor multi = torch::zeros({});
  for (const auto &batch : batches)
    multi = multi + criterion(net(batch.first), batch.second);
  multi.backward();
  return fine + total.item<double>();
}

// A class template never instantiated here; a buffer filled through
// index_put_ in a helper (evidence beyond one function).
template <class Model> class EpochTrainer {
public:
  void fit(const std::vector<std::pair<torch::Tensor, torch::Tensor>> &batches,
           torch::optim::Optimizer &opt) {
    for (const auto &batch : batches) {
      auto loss = torch::nll_loss(model->forward(batch.first), batch.second);
      opt.zero_grad();
      loss.backward();
      opt.step();
      epoch_loss_ += loss;
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor with autograd history accumulated into 'epoch_loss_'
      // CHECK-FIXES: {{^}}      epoch_loss_ += loss.detach();{{$}}
    }
  }

private:
  Model model;
  torch::Tensor epoch_loss_ = torch::zeros({});
};

void keep(torch::Tensor &history, int64_t step, const torch::Tensor &loss) {
  history.index_put_({step}, loss);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: tensor with autograd history accumulated into 'history'
  // CHECK-FIXES: {{^}}  history.index_put_({step}, loss.detach());{{$}}
}
void fit_with_history(torch::nn::Linear &model, torch::optim::SGD &opt,
                      const std::vector<torch::Tensor> &xs) {
  torch::Tensor history = torch::zeros({static_cast<int64_t>(xs.size())});
  for (size_t i = 0; i < xs.size(); ++i) {
    auto loss = model->forward(xs[i]).pow(2).mean();
    loss.backward();
    opt.step();
    keep(history, static_cast<int64_t>(i), loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: called from a training loop with a tensor that has autograd history here
  }
}
