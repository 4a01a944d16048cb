// Report: https://github.com/MILVLG/mcan-vqa/issues/26
// What went wrong (as asked): net.train() was not called again after evaluation; the
// maintainers answered that eval() builds a new net from the saved weights, so the training
// net is unaffected. Correct look-alikes only (no diagnostic expected).
// CHECKS: torch-eval-mode-not-restored
#include <torch/torch.h>
#include <string>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  NetImpl() { fc = register_module("fc", torch::nn::Linear(32, 10)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Net);

using Data = std::vector<torch::data::Example<>>;

double evaluate_checkpoint(const std::string &ckpt, const Data &val) {
  Net net;
  torch::load(net, ckpt, torch::kCPU);
  net->eval();
  torch::NoGradGuard no_grad;
  double s = 0;
  for (const auto &b : val)
    s += net(b.data).sum().item<double>();
  return s;
}

void train(Net &net, torch::optim::Adam &opt, const Data &train, const Data &val, int epochs) {
  net->train();
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (const auto &b : train) {
      opt.zero_grad();
      torch::nn::functional::cross_entropy(net(b.data), b.target).backward();
      opt.step();
    }
    torch::save(net, "ckpt.pt");
    evaluate_checkpoint("ckpt.pt", val);
  }
}

// The mode is saved and restored around validation (webis-de/small-text#40 fix style).
double validate(Net &net, const Data &val) {
  bool was_training = net->is_training();
  net->eval();
  torch::NoGradGuard no_grad;
  double s = 0;
  for (const auto &b : val)
    s += net(b.data).sum().item<double>();
  net->train(was_training);
  return s;
}

void train_with_validation(Net &net, torch::optim::Adam &opt, const Data &train, const Data &val,
                           int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    net->train();
    for (const auto &b : train) {
      opt.zero_grad();
      torch::nn::functional::cross_entropy(net(b.data), b.target).backward();
      opt.step();
    }
    net->eval();
    validate(net, val);
  }
}
