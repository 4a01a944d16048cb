// Report: https://github.com/pytorch/pytorch/issues/21894
// The reporter's LibTorch segmentation loop used nll_loss on log_softmax output, the
// correct pairing. Correct look-alikes only (no diagnostic expected).
// CHECKS: torch-softmax-before-cross-entropy
#include <torch/torch.h>

struct SegNetImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  SegNetImpl() { conv = register_module("conv", torch::nn::Conv2d(3, 21, 1)); }
  torch::Tensor forward(const torch::Tensor &x) { return conv(x); }
};
TORCH_MODULE(SegNet);

void train(SegNet &model, torch::optim::SGD &opt, const std::vector<torch::data::Example<>> &data) {
  for (const auto &b : data) {
    opt.zero_grad();
    auto prediction = model->forward(b.data);
    auto loss = torch::nll_loss(torch::log_softmax(prediction, 1), b.target);
    loss.backward();
    opt.step();
  }
}

void train_ce(SegNet &model, torch::optim::SGD &opt, const std::vector<torch::data::Example<>> &data) {
  torch::nn::CrossEntropyLoss criterion;
  for (const auto &b : data) {
    opt.zero_grad();
    auto logits = model(b.data);
    auto loss = criterion(logits, b.target);
    loss.backward();
    opt.step();
    auto probs = torch::softmax(logits, 1);   // reported, not trained on
    auto confidence = probs.max();
    (void)confidence;
  }
}

struct LogNetImpl : torch::nn::Module {
  torch::nn::Sequential net{nullptr};
  LogNetImpl() {
    net = register_module("net", torch::nn::Sequential(torch::nn::Linear(8, 3), torch::nn::LogSoftmax(1)));
  }
  torch::Tensor forward(const torch::Tensor &x) { return net->forward(x); }
};
TORCH_MODULE(LogNet);

torch::Tensor nll_step(LogNet &m, const torch::Tensor &x, const torch::Tensor &y) {
  torch::nn::NLLLoss nll;
  return nll(m(x), y);
}
