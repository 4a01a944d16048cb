// torch-stacked-samples-vary-in-size, buggy: a data set of sentences whose
// get() returns each sentence's tokens at the sentence's own length, batched
// with torch::data::transforms::Stack<>().
//
// Stack calls torch::stack on the samples of a batch, which needs every
// tensor to have the same sizes: the first batch that holds two sentences of
// different lengths throws "stack expects each tensor to be equal size". The
// runtime test (test/runtime/torch-stacked-samples-vary-in-size_test.cpp)
// shows the throw and the fixed twin's batch.
//
// Standalone: buggy
#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <vector>

namespace buggy {

class Sentences : public torch::data::datasets::Dataset<Sentences> {
public:
  Sentences(std::vector<std::vector<int64_t>> Tokens, std::vector<int64_t> Labels)
      : Tokens(std::move(Tokens)), Labels(std::move(Labels)) {}

  torch::data::Example<> get(size_t Index) override {
    const std::vector<int64_t> &Sentence = Tokens[Index];
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

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main() {
  try {
    torch::data::Example<> Batch =
        buggy::firstBatch({{5, 6, 7}, {8, 9}}, {0, 1}, 2);
    std::cout << "batch " << Batch.data.sizes() << "\n";
    return 0;
  } catch (const std::exception &E) {
    std::cout << "threw: " << E.what() << "\n";
    return 1;
  }
}
#endif
