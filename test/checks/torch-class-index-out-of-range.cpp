// RUN: %check_torch_tidy %s torch-class-index-out-of-range %t -- -- -isystem %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

// A classifier whose head has 10 classes.
struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(16, 10))) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// --- Positive --------------------------------------------------------------

// Labels drawn from a range one too wide.
void random_labels_one_too_wide(const torch::Tensor &x) {
  torch::nn::Linear head(16, 10);
  auto labels = torch::randint(0, 11, {64});
  auto loss = torch::cross_entropy_loss(head(x), labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:50: warning: class index target can be 10, outside [0, 10) (the out_features of 'head'); on the GPU this is 'device-side assert triggered', on the CPU an index out of bounds error [torch-class-index-out-of-range]
  // CHECK-MESSAGES: :[[@LINE-3]]:17: note: the value 10 comes from here
  // CHECK-MESSAGES: :[[@LINE-5]]:30: note: out_features of 'head' is 10 here
}

// 1-based labels: an enumeration from 1, and a shift of 0-based ones.
void one_based_labels(Net &model, const torch::Tensor &x) {
  auto labels = torch::arange(1, 11);
  auto loss = F::cross_entropy(model(x), labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: class index target can be 10, outside [0, 10) (the out_features of 'fc')
  auto zero_based = torch::randint(10, {64});
  auto shifted = zero_based + 1;
  auto loss2 = torch::nll_loss(model->forward(x), shifted);
  // CHECK-MESSAGES: :[[@LINE-1]]:51: warning: class index target can be 10, outside [0, 10)
}

// A void label written into the target without ignore_index.
void void_label_without_ignore_index(Net &model, const torch::Tensor &x,
                                     const torch::Tensor &invalid) {
  auto target = torch::randint(0, 10, {8, 4});
  target.masked_fill_(invalid, 255);
  torch::nn::CrossEntropyLoss criterion;
  auto loss = criterion(model(x), target);
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: class index target can be 255, outside [0, 10)
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the value 255 comes from here
}

// -1 for "no label", ignore_index left at its default (-100).
void minus_one_without_ignore_index(const torch::Tensor &x, const torch::Tensor &missing) {
  auto scores = torch::randn({8, 5});
  auto target = torch::where(missing, -1, 3);
  auto loss = torch::nll_loss(scores, target);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: class index target can be -1, outside [0, 5) (the dimension 1 of the scores' sizes)
}

// The head built for 10 classes, labels generated for 12.
void head_and_labels_disagree(const torch::Tensor &x) {
  const int64_t num_classes = 12;
  torch::nn::Linear head(torch::nn::LinearOptions(16, 10).bias(false));
  auto labels = torch::randint(num_classes, {32});
  auto logits = head->forward(x);
  auto loss = torch::cross_entropy_loss(logits, labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: class index target can be 11, outside [0, 10)
}

// one_hot and an embedding.
void one_hot_and_embedding() {
  auto t = torch::full({4}, 5);
  auto oh = torch::one_hot(t, 5);
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: one_hot input can be 5, outside [0, 5) (the num_classes of one_hot)
  torch::nn::Embedding emb(100, 8);
  auto ids = torch::randint(1, 101, {4, 7});
  auto e = emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: embedding index can be 100, outside [0, 100) (the num_embeddings of 'emb')
}

// A target kept in a struct, made by a helper.
torch::Tensor make_labels() { return torch::randint(1, 11, {16}); }
struct Batch {
  torch::Tensor x, y;
};
void boxed_target(Net &model, const torch::Tensor &x) {
  Batch b{x, make_labels()};
  auto loss = F::cross_entropy(model(b.x), b.y);
  // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: class index target can be 10, outside [0, 10)
}

// --- Negative --------------------------------------------------------------

// 0-based labels in range.
void labels_in_range(Net &model, const torch::Tensor &x) {
  auto labels = torch::randint(0, 10, {64});
  auto loss = F::cross_entropy(model(x), labels);
  auto labels2 = torch::arange(1, 11) - 1;
  auto loss2 = F::cross_entropy(model(x), labels2);
}

// The void label is the loss's ignore_index.
void void_label_ignored(Net &model, const torch::Tensor &x, const torch::Tensor &invalid) {
  auto target = torch::randint(0, 10, {8, 4});
  target.masked_fill_(invalid, 255);
  torch::nn::CrossEntropyLoss criterion(torch::nn::CrossEntropyLossOptions().ignore_index(255));
  auto loss = criterion(model(x), target);
  auto loss2 = F::cross_entropy(model(x), target, F::CrossEntropyFuncOptions().ignore_index(255));
  auto loss3 = torch::nll_loss(model(x), target, {}, 1, 255);
}

// Labels shifted down after a 1-based enumeration, or clamped.
void shifted_back(Net &model, const torch::Tensor &x) {
  auto labels = torch::arange(1, 11);
  labels -= 1;
  auto loss = F::cross_entropy(model(x), labels);
  auto wide = torch::randint(0, 20, {8}).clamp(0, 9);
  auto loss2 = F::cross_entropy(model(x), wide);
  auto relabel = torch::randint(0, 11, {8});
  relabel.masked_fill_(relabel > 9, 0);
  auto loss3 = F::cross_entropy(model(x), relabel);
}

// Values the analysis cannot see: a data set's target, a parameter.
void unknown_values(Net &model, const torch::Tensor &x, const torch::Tensor &y, int64_t k) {
  auto loss = F::cross_entropy(model(x), y + 1);
  auto labels = torch::randint(0, k, {8});
  auto loss2 = F::cross_entropy(model(x), labels);
}

// The number of classes is not visible: a parameter's head, an ignore_index
// that is not a constant.
void unknown_width(torch::nn::Linear &head, const torch::Tensor &x, int64_t ignore) {
  auto labels = torch::randint(0, 1000, {8});
  auto loss = F::cross_entropy(head(x), labels);
  torch::nn::Linear known(16, 10);
  auto loss2 = F::cross_entropy(known(x), labels, F::CrossEntropyFuncOptions().ignore_index(ignore));
}

// one_hot with num_classes inferred (-1), an embedding large enough.
void one_hot_inferred() {
  auto t = torch::full({4}, 5);
  auto oh = torch::one_hot(t);
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(101, 8));
  auto e = emb(torch::randint(1, 101, {4, 7}));
}

// The target variable changed by a function of the user's code.
void relabel(torch::Tensor &t);
void changed_elsewhere(Net &model, const torch::Tensor &x) {
  auto labels = torch::randint(0, 11, {8});
  relabel(labels);
  auto loss = F::cross_entropy(model(x), labels);
}
