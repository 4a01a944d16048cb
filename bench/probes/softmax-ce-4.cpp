// Report: https://github.com/bowang-lab/Transformer-GCN-QA/pull/32
// What went wrong: not realising CrossEntropyLoss implements a softmax, the model had an
// erroneous second softmax at its output, smoothing the scores and weakening the gradient.
#include <torch/torch.h>

struct QAOutput {
  torch::Tensor scores;
  torch::Tensor hidden;
};

struct GcnQAImpl : torch::nn::Module {
  torch::nn::Linear gcn{nullptr}, out{nullptr};
  GcnQAImpl() {
    gcn = register_module("gcn", torch::nn::Linear(512, 512));
    out = register_module("out", torch::nn::Linear(512, 1));
  }
  QAOutput forward(const torch::Tensor &candidates) {
    auto h = torch::relu(gcn(candidates));
    auto logits = out(h).squeeze();
    return {torch::softmax(logits, -1), h};
  }
};
TORCH_MODULE(GcnQA);

torch::Tensor compute_loss(const QAOutput &o, const torch::Tensor &answer) {
  return torch::nn::functional::cross_entropy(o.scores.unsqueeze(0), answer);
}

void train_step(GcnQA &model, torch::optim::Adam &opt, const torch::Tensor &cands,
                const torch::Tensor &answer) {
  auto o = model->forward(cands);
  auto loss = compute_loss(o, answer); // EXPECT: torch-softmax-before-cross-entropy
  opt.zero_grad();
  loss.backward();
  opt.step();
}
