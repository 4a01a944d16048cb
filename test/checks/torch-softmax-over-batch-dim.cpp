// RUN: %check_torch_tidy %s torch-softmax-over-batch-dim %t -- -- -isystem %mock_torch

#include <torch/torch.h>

#include <utility>

namespace F = torch::nn::functional;

// --- A data loader's batch through layers ------------------------------------

struct NetImpl : torch::nn::Module {
  NetImpl() : fc1(register_module("fc1", torch::nn::Linear(784, 64))),
              fc2(register_module("fc2", torch::nn::Linear(64, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = x.view({-1, 784});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, 0.5, is_training());
    return fc2->forward(x);
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

// Net's forward reassigns x: its returns are batched, the rank is at least 2
// but not known exactly (the view makes it 2, the input may be 4): no fix-it,
// and -2 is not judged.
void loader_module(Net &net) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto &batch : *loader) {
    auto out = net->forward(batch.data);
    auto p = torch::softmax(out, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension, normalises across the samples of the batch; use the class dimension (1 or -1) [torch-softmax-over-batch-dim]
    // CHECK-MESSAGES: :[[@LINE-3]]:29: note: dimension 0 indexes the samples of this data loader batch
    auto q = out.log_softmax(/*dim=*/0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: log_softmax over dimension 0, the batch dimension
    auto r = F::softmax(out, F::SoftmaxFuncOptions(0));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension
    auto s = at::softmax(out, -2);
  }
}

// A forward that returns [batch, classes] exactly: fix-its, and -2 is the
// batch dimension.
struct MlpImpl : torch::nn::Module {
  MlpImpl() : fc(register_module("fc", torch::nn::Linear(784, 10))) {}
  torch::Tensor forward(const torch::Tensor &x) {
    return fc(torch::relu(x.view({x.size(0), 784})));
  }
  torch::nn::Linear fc;
};
TORCH_MODULE(Mlp);

void loader_exact_rank(Mlp &mlp) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto &batch : *loader) {
    auto out = mlp(batch.data);
    auto p = torch::softmax(out, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension
    // CHECK-MESSAGES: :[[@LINE-3]]:20: note: dimension 0 indexes the samples of this data loader batch
    // CHECK-FIXES: {{^}}    auto p = torch::softmax(out, 1);{{$}}
    auto q = out.log_softmax(/*dim=*/0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: log_softmax over dimension 0, the batch dimension
    // CHECK-FIXES: {{^}}    auto q = out.log_softmax(/*dim=*/1);{{$}}
    auto r = F::softmax(out, F::SoftmaxFuncOptions(0));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension
    // CHECK-FIXES: {{^}}    auto r = F::softmax(out, F::SoftmaxFuncOptions(1));{{$}}
    auto s = at::softmax(out, -2);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension -2, the batch dimension
    // CHECK-FIXES: {{^}}    auto s = at::softmax(out, 1);{{$}}
  }
}

// The data themselves (rank unknown but at least 2: no fix-it), through a
// Linear layer, a Dropout and arithmetic with a bias.
void loader_layers(torch::nn::Linear &fc, torch::nn::Dropout &drop,
                   const torch::Tensor &bias) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto &batch : *loader) {
    auto logits = drop(fc(batch.data)) * 2 + bias;
    auto p = torch::log_softmax(logits, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: log_softmax over dimension 0, the batch dimension
  }
}

// --- flatten(1) and view({n, -1}) ----------------------------------------------

torch::Tensor flatten_head(torch::nn::Linear &head, const torch::Tensor &features) {
  return torch::softmax(head(features.flatten(1)), 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: softmax over dimension 0, the batch dimension
  // CHECK-MESSAGES: :[[@LINE-2]]:30: note: dimension 0 indexes the samples: every other dimension is flattened here
  // CHECK-FIXES: {{^}}  return torch::softmax(head(features.flatten(1)), 1);{{$}}
}

torch::Tensor flatten_function(const torch::Tensor &features) {
  auto flat = torch::flatten(features, 1);
  return flat.softmax(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: softmax over dimension 0, the batch dimension
  // CHECK-FIXES: {{^}}  return flat.softmax(1);{{$}}
}

torch::Tensor view_own_size(const torch::Tensor &x) {
  auto y = torch::relu(x.view({x.size(0), -1}));
  return torch::softmax(y, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: softmax over dimension 0, the batch dimension
  // CHECK-MESSAGES: :[[@LINE-3]]:24: note: dimension 0 indexes the samples: the batch is reshaped to [batch, ...] here
  // CHECK-FIXES: {{^}}  return torch::softmax(y, 1);{{$}}
}

// Rank 3 known exactly: -3 is the batch dimension; no fix-it (the class
// dimension of [batch, time, classes] is not 1).
torch::Tensor view_batch_size(const torch::Tensor &features, const torch::Tensor &x) {
  auto flat = features.flatten(1);
  const int64_t n = flat.size(0);
  auto seq = x.reshape({n, 5, -1});
  auto a = torch::softmax(seq, -3);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: softmax over dimension -3, the batch dimension
  return a + torch::softmax(seq, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension
}

// A constant expression for the dimension.
torch::Tensor constant_dim(const torch::Tensor &features) {
  constexpr int64_t kBatchDim = 0;
  return torch::softmax(features.flatten(1), kBatchDim);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: softmax over dimension 0, the batch dimension
}

// --- Softmax / LogSoftmax modules ------------------------------------------------

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl() {
    fc = register_module("fc", torch::nn::Linear(64, 10));
    probs = register_module("probs", torch::nn::Softmax(torch::nn::SoftmaxOptions(0)));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    return probs(fc(x.flatten(1)));
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: softmax over dimension 0, the batch dimension
    // CHECK-MESSAGES: :[[@LINE-5]]:38: note: the softmax module is made over dimension 0 here
    // CHECK-MESSAGES: :[[@LINE-3]]:21: note: dimension 0 indexes the samples: every other dimension is flattened here
  }
  torch::nn::Linear fc{nullptr};
  torch::nn::Softmax probs{nullptr};
};

torch::Tensor local_module(const torch::Tensor &x) {
  torch::nn::LogSoftmax log_probs(0);
  return log_probs->forward(x.flatten(1));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log_softmax over dimension 0, the batch dimension
  // CHECK-MESSAGES: :[[@LINE-3]]:25: note: the log_softmax module is made over dimension 0 here
  // CHECK-MESSAGES: :[[@LINE-3]]:29: note: dimension 0 indexes the samples: every other dimension is flattened here
}

// --- Refactoring invariance ----------------------------------------------------

struct Batch {
  torch::Tensor inputs;
  torch::Tensor labels;
};

void moved_around(Net &net, bool sharpen) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto &batch : *loader) {
    // A local reference to the batch's data.
    const torch::Tensor &images = batch.data;
    auto a = torch::softmax(net(images), 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension
    // A struct field.
    Batch b{batch.data, batch.target};
    auto c = torch::softmax(net->forward(b.inputs), 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension
    // A pair.
    std::pair<torch::Tensor, torch::Tensor> io{batch.data, batch.target};
    auto d = torch::softmax(net->forward(io.first), 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: softmax over dimension 0, the batch dimension
    // The same softmax on both branches; a variable assigned on both.
    torch::Tensor out;
    if (sharpen)
      out = net(batch.data) * 2;
    else
      out = net(batch.data);
    torch::Tensor p;
    if (sharpen)
      p = torch::softmax(out, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: softmax over dimension 0, the batch dimension
    else
      p = torch::softmax(out, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: softmax over dimension 0, the batch dimension
  }
}

// --- Negative ---------------------------------------------------------------------

void negatives_loader(Net &net, int runtime_dim) {
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 64);
  for (auto &batch : *loader) {
    auto out = net(batch.data);
    // The class dimension.
    auto a = torch::softmax(out, 1);
    auto b = out.log_softmax(-1);
    auto c = F::softmax(out, F::SoftmaxFuncOptions(1));
    // A dimension that is not a constant.
    auto d = torch::softmax(out, runtime_dim);
    // One sample of the batch: a vector.
    auto e = torch::softmax(out[0], 0);
    auto f = torch::softmax(out.select(0, 3), 0);
    auto g = torch::softmax(out.squeeze(), 0);
    // Reduced to one value per sample: a vector over the batch.
    auto h = torch::softmax(out.sum(1), 0);
    // Transposed, permuted: the layout changed, dimension 0 is not known.
    auto i = torch::softmax(out.t(), 0);
    auto j = torch::softmax(out.transpose(0, 1), 0);
    auto k = torch::softmax(out.permute({1, 0}), 0);
    // -2 when the rank is not known exactly (the data may be [N, 1, 28, 28]).
    auto l = torch::softmax(batch.data, -2);
    // The targets: class indices, maybe one per sample (rank 1).
    auto m = torch::softmax(batch.target.to(torch::kFloat), 0);
    // A variable assigned a batch on one path and something else on another.
    torch::Tensor mixed = out;
    if (runtime_dim > 0)
      mixed = torch::randn({10, 4});
    auto n = torch::softmax(mixed, 0);
    // A local whose shape changes in place.
    torch::Tensor grown = out;
    grown.unsqueeze_(0);
    auto o = torch::softmax(grown, 0);
  }
}

void negatives_shapes(const torch::Tensor &x, const torch::Tensor &scores,
                      torch::nn::Linear &fc, torch::nn::Embedding &emb) {
  // A factory with explicit sizes: rank 2, but dimension 0 may be anything.
  auto a = torch::softmax(torch::randn({4, 10}), 0);
  // A 1-D vector.
  auto v = torch::randn({10});
  auto b = torch::softmax(v, 0);
  // A parameter of unknown shape, and a layer applied to one.
  auto c = torch::softmax(x, 0);
  auto d = torch::softmax(fc(x), 0);
  // A view whose leading size is not the batch's.
  auto e = torch::softmax(x.view({4, -1}), 0);
  auto f = torch::softmax(x.view({-1, 10}), 0);
  // flatten from another dimension.
  auto g = torch::softmax(x.flatten(0), 0);
  auto h = torch::softmax(x.flatten(2), 0);
  // Attention-style scores transposed before the softmax.
  auto flat = x.flatten(1);
  auto attn = torch::softmax(flat.t(), 0);
  auto attn2 = torch::softmax(flat.transpose(0, 1), 0);
  // A layer whose output layout is not modelled (an embedding adds a dimension).
  auto i = torch::softmax(emb(flat), 0);
  // Reductions and selections of a batch.
  auto j = torch::softmax(flat.sum(1), 0);
  auto k = torch::softmax(flat[0], 0);
  // A softmax module over the class dimension, or whose dimension is unknown.
  torch::nn::Softmax by_class(1);
  auto l = by_class(flat);
  torch::nn::Softmax default_dim;
  auto m = default_dim(flat);
}

// A user function that happens to be called softmax.
namespace mine {
torch::Tensor softmax(const torch::Tensor &x, int64_t dim) { return x; }
} // namespace mine
torch::Tensor user_softmax(const torch::Tensor &x) {
  return mine::softmax(x.flatten(1), 0);
}

// Templates: a dependent input is not judged.
template <typename T> torch::Tensor dependent(const T &x) {
  return torch::softmax(x.flatten(1), 0);
}
