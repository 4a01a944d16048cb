// Report: https://github.com/ariecattan/SciCo/issues/2
// What went wrong: the validation loss got stuck around 1.0 because the logits were
// softmaxed into probabilities before CrossEntropyLoss, which softmaxes them again; the
// training loss (on logits) was fine.
#include <torch/torch.h>

struct MulticlassImpl : torch::nn::Module {
  torch::nn::Linear head{nullptr};
  MulticlassImpl() { head = register_module("head", torch::nn::Linear(768, 4)); }
  torch::Tensor forward(const torch::Tensor &x) { return head(x); }
};
TORCH_MODULE(Multiclass);

torch::Tensor training_step(Multiclass &model, const torch::data::Example<> &batch) {
  auto logits = model(batch.data);
  return torch::nn::functional::cross_entropy(logits, batch.target);
}

double validation_epoch(Multiclass &model, const std::vector<torch::data::Example<>> &val) {
  torch::NoGradGuard no_grad;
  double total = 0;
  for (const auto &batch : val) {
    auto logits = model(batch.data);
    auto probs = logits.softmax(-1);
    auto loss = torch::nn::functional::cross_entropy(probs, batch.target); // EXPECT: torch-softmax-before-cross-entropy
    total += loss.item<double>();
  }
  return total / val.size();
}
