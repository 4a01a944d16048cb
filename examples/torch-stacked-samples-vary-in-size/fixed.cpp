// torch-stacked-samples-vary-in-size, fixed: every sentence is padded (or
// cut) to MaxLength tokens before it becomes a tensor, on every path, so
// torch::data::transforms::Stack<>() stacks samples of equal sizes.
//
// Standalone: fixed
#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <vector>

namespace fixed {

// Every sample's length, padded with token 0.
constexpr int64_t MaxLength = 8;

class Sentences : public torch::data::datasets::Dataset<Sentences> {
public:
  Sentences(std::vector<std::vector<int64_t>> Tokens, std::vector<int64_t> Labels)
      : Tokens(std::move(Tokens)), Labels(std::move(Labels)) {}

  torch::data::Example<> get(size_t Index) override {
    std::vector<int64_t> Sentence = Tokens[Index];
    Sentence.resize(MaxLength, 0);
    return {torch::tensor(Sentence), torch::tensor(Labels[Index])};
  }

  torch::optional<size_t> size() const override { return Tokens.size(); }

private:
  std::vector<std::vector<int64_t>> Tokens;
  std::vector<int64_t> Labels;
};

// The first batch (in order) of a loader over the sentences.
torch::data::Example<> firstBatch(const std::vector<std::vector<int64_t>> &Tokens,
                                  const std::vector<int64_t> &Labels,
                                  size_t BatchSize) {
  auto Loader =
      torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
          Sentences(Tokens, Labels).map(torch::data::transforms::Stack<>()),
          BatchSize);
  return *Loader->begin();
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  torch::data::Example<> Batch =
      fixed::firstBatch({{5, 6, 7}, {8, 9}}, {0, 1}, 2);
  std::cout << "batch " << Batch.data.sizes() << ", targets "
            << Batch.target.sizes() << "\n";
  return Batch.data.size(1) == fixed::MaxLength ? 0 : 1;
}
#endif
