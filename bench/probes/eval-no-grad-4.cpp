// Report: https://github.com/serend1p1ty/SeqNet/pull/14
// What went wrong: the evaluation of the model ran without no_grad and kept every batch's
// graph: CUDA out of memory during inference, fixed by wrapping it in no_grad.
#include <torch/torch.h>

struct SearchNetImpl : torch::nn::Module {
  torch::nn::Linear emb{nullptr};
  SearchNetImpl() { emb = register_module("emb", torch::nn::Linear(32, 16)); }
  torch::Tensor forward(const torch::Tensor &x) { return emb(x); }
};
TORCH_MODULE(SearchNet);

using Loader = std::vector<torch::data::Example<>>;

void train_and_validate(SearchNet &model, torch::optim::SGD &opt, Loader &train,
                        Loader &gallery, int epochs) {
  auto evaluate = [&]() {
    model->eval();
    std::vector<torch::Tensor> feats;
    for (auto &batch : gallery) {
      auto f = model->forward(batch.data); // EXPECT: torch-eval-loop-without-no-grad
      feats.push_back(f);
    }
    return torch::cat(feats);
  };
  for (int epoch = 0; epoch < epochs; ++epoch) {
    model->train();
    for (auto &batch : train) {
      opt.zero_grad();
      auto loss = torch::mse_loss(model->forward(batch.data), batch.target);
      loss.backward();
      opt.step();
    }
    auto gallery_feats = evaluate();
  }
}
