// Report: https://github.com/jindongwang/Deep-learning-activity-recognition/issues/10
// What went wrong: the network's last layer was a softmax and its output went into
// nn.CrossEntropyLoss, which applies softmax itself; raw outputs should be passed.
#include <torch/torch.h>

struct ActivityNetImpl : torch::nn::Module {
  torch::nn::Sequential classifier{nullptr};
  ActivityNetImpl() {
    classifier = register_module(
        "classifier", torch::nn::Sequential(torch::nn::Linear(9 * 128, 100), torch::nn::ReLU(),
                                            torch::nn::Linear(100, 6), torch::nn::Softmax(1)));
  }
  torch::Tensor forward(const torch::Tensor &x) { return classifier->forward(x.flatten(1)); }
};
TORCH_MODULE(ActivityNet);

void train(ActivityNet &model, torch::optim::SGD &opt,
           const std::vector<torch::data::Example<>> &loader, int epochs) {
  torch::nn::CrossEntropyLoss criterion;
  for (int e = 0; e < epochs; ++e) {
    for (const auto &b : loader) {
      auto outputs = model(b.data);
      auto loss = criterion(outputs, b.target); // EXPECT: torch-softmax-before-cross-entropy
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
  }
}
