// Report: https://github.com/mlelarge/graph_neural_net/pull/37
// What went wrong: the model applied a softmax before a CrossEntropyLoss, which applies
// log_softmax itself; the fix removed the softmax.
#include <torch/torch.h>

struct EdgeClassifierImpl : torch::nn::Module {
  torch::nn::Linear l1{nullptr}, l2{nullptr};
  EdgeClassifierImpl() {
    l1 = register_module("l1", torch::nn::Linear(64, 64));
    l2 = register_module("l2", torch::nn::Linear(64, 2));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    return torch::softmax(l2(torch::relu(l1(x))), 1);
  }
};
TORCH_MODULE(EdgeClassifier);

void train(EdgeClassifier &model, torch::optim::Adam &opt,
           const std::vector<torch::data::Example<>> &loader) {
  torch::nn::CrossEntropyLoss criterion;
  for (const auto &batch : loader) {
    auto out = model->forward(batch.data);
    auto loss = criterion(out, batch.target); // EXPECT: torch-softmax-before-cross-entropy
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}
