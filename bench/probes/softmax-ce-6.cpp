// Report: https://github.com/nishnik/Deep-Semantic-Similarity-Model-PyTorch/issues/2
// What went wrong: the DSSM model turned its cosine similarities into probabilities with a
// softmax and then used CrossEntropyLoss, which expects unnormalised scores; the author
// confirmed it was a mistake.
#include <torch/torch.h>

struct DSSMImpl : torch::nn::Module {
  torch::nn::Linear q{nullptr}, d{nullptr};
  DSSMImpl() {
    q = register_module("q", torch::nn::Linear(300, 128));
    d = register_module("d", torch::nn::Linear(300, 128));
  }
  torch::Tensor forward(const torch::Tensor &query, const torch::Tensor &docs) {
    auto qv = torch::tanh(q(query));
    auto dv = torch::tanh(d(docs));
    auto sims = torch::cosine_similarity(qv, dv, 1);
    return torch::softmax(sims.unsqueeze(0) * 10.0, 1);
  }
};
TORCH_MODULE(DSSM);

void train(DSSM &model, torch::optim::Adam &opt, const std::vector<torch::Tensor> &queries,
           const std::vector<torch::Tensor> &docs) {
  torch::nn::CrossEntropyLoss criterion;
  auto target = torch::zeros({1}, torch::kLong);
  size_t i = 0;
  while (i < queries.size()) {
    auto prob = model(queries[i], docs[i]);
    auto loss = criterion(prob, target); // EXPECT: torch-softmax-before-cross-entropy
    opt.zero_grad();
    loss.backward();
    opt.step();
    ++i;
  }
}
