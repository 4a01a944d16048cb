// Softmax and LogSoftmax as layers: on their own, or as the last layer of a
// torch::nn::Sequential declared with its layers.
// RUN: %check_torch_tidy %s torch-softmax-before-cross-entropy %t -- -- -isystem %mock_torch

#include <torch/torch.h>

// --- Positive ------------------------------------------------------------------

void sequentialSoftmax(torch::Tensor x, torch::Tensor y) {
  torch::nn::Sequential net(torch::nn::Linear(4, 3), torch::nn::Softmax(1));
  auto out = net->forward(x);
  auto loss = torch::nn::functional::cross_entropy(out, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-3]]:14: note: softmax applied here
  loss.backward();
}

void softmaxLayer(torch::nn::Linear fc, torch::Tensor x, torch::Tensor y) {
  torch::nn::Softmax softmax(1);
  torch::nn::CrossEntropyLoss criterion;
  auto loss = criterion(softmax(fc(x)), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-2]]:25: note: softmax applied here
  loss.backward();
}

// Log-probabilities into cross_entropy: log_softmax twice.
struct Classifier : torch::nn::Module {
  torch::nn::Sequential head{torch::nn::Linear(4, 3), torch::nn::LogSoftmax(1)};
  torch::Tensor forward(torch::Tensor x) { return head->forward(x); }
};
void memberSequential(Classifier &model, torch::Tensor x, torch::Tensor y) {
  auto loss = torch::nn::functional::cross_entropy(model.forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applies log_softmax itself, so the log_softmax before it is redundant; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-5]]:51: note: log_softmax applied here
  loss.backward();
}

// A Sequential member registered in the constructor, ending in Softmax.
struct RegisteredHead : torch::nn::Module {
  RegisteredHead() {
    net = register_module("net", torch::nn::Sequential(torch::nn::Linear(16, 4),
                                                       torch::nn::Softmax(1)));
  }
  torch::Tensor forward(torch::Tensor x) { return net->forward(x); }
  torch::nn::Sequential net{nullptr};
};
void registeredSequential(RegisteredHead &model, torch::Tensor x, torch::Tensor y) {
  auto loss = torch::nn::functional::cross_entropy(model.forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applied to softmax output applies softmax twice
  // CHECK-MESSAGES: :[[@LINE-6]]:51: note: softmax applied here
  loss.backward();
}

// --- Negative twins ---------------------------------------------------------------

// Registered in the constructor, ending in Linear: logits.
struct RegisteredLogits : torch::nn::Module {
  RegisteredLogits() {
    net = register_module("net", torch::nn::Sequential(torch::nn::Softmax(1),
                                                       torch::nn::Linear(16, 4)));
  }
  torch::Tensor forward(torch::Tensor x) { return net->forward(x); }
  torch::nn::Sequential net{nullptr};
};
void registeredLogits(RegisteredLogits &model, torch::Tensor x, torch::Tensor y) {
  torch::nn::functional::cross_entropy(model.forward(x), y).backward();
}

void sequentialLogits(torch::Tensor x, torch::Tensor y) {
  torch::nn::Sequential net(torch::nn::Linear(4, 3), torch::nn::Linear(3, 3));
  torch::nn::functional::cross_entropy(net->forward(x), y).backward();
}

void sequentialLogSoftmaxNll(torch::Tensor x, torch::Tensor y) {
  torch::nn::Sequential net(torch::nn::Linear(4, 3), torch::nn::LogSoftmax(1));
  torch::nn::functional::nll_loss(net->forward(x), y).backward();
}

// A Sequential whose layers are not visible here.
void sequentialParameter(torch::nn::Sequential net, torch::Tensor x,
                         torch::Tensor y) {
  torch::nn::functional::cross_entropy(net->forward(x), y).backward();
}

// --- A Sequential built layer by layer ------------------------------------------

void appended(torch::Tensor x, torch::Tensor y) {
  torch::nn::Sequential model;
  model->push_back(torch::nn::Linear(8, 3));
  model->push_back(torch::nn::Softmax(1));
  auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-2]]:52: note: softmax applied here
  loss.backward();
}

struct AppendedNetImpl : torch::nn::Module {
  AppendedNetImpl() {
    layers->push_back(torch::nn::Linear(8, 16));
    layers->push_back(torch::nn::Linear(16, 3));
    layers->push_back(torch::nn::Softmax(1));
  }
  torch::Tensor forward(torch::Tensor x) { return layers->forward(x); }
  torch::nn::Sequential layers;
};
TORCH_MODULE(AppendedNet);

void appendedMember(AppendedNet net, torch::Tensor x, torch::Tensor y) {
  auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-8]]:51: note: softmax applied here
  loss.backward();
}

// Negative: the softmax layer is appended only on one path.
void appendedConditionally(torch::Tensor x, torch::Tensor y, bool probs) {
  torch::nn::Sequential model;
  model->push_back(torch::nn::Linear(8, 3));
  if (probs)
    model->push_back(torch::nn::Softmax(1));
  auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
  loss.backward();
}

// Negative: the last layer appended is the linear one.
void appendedLogits(torch::Tensor x, torch::Tensor y) {
  torch::nn::Sequential model;
  model->push_back(torch::nn::Softmax(1));
  model->push_back(torch::nn::Linear(8, 3));
  auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
  loss.backward();
}

// --- Named layers: Sequential({{"name", layer}, ...}) and push_back("name", layer) ---

void namedSoftmax(torch::Tensor x, torch::Tensor y) {
  torch::nn::Sequential net({{"fc", torch::nn::Linear(4, 3)},
                             {"probs", torch::nn::Softmax(1)}});
  auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-2]]:52: note: softmax applied here
  loss.backward();
}

struct NamedHead : torch::nn::Module {
  torch::nn::Sequential layers{{"hidden", torch::nn::Linear(8, 4)},
                               {"out", torch::nn::Linear(4, 3)},
                               {"log_probs", torch::nn::LogSoftmax(1)}};
  torch::Tensor forward(torch::Tensor x) { return layers->forward(x); }
};
void namedMemberLogSoftmax(NamedHead &model, torch::Tensor x, torch::Tensor y) {
  torch::nn::CrossEntropyLoss criterion;
  auto loss = criterion(model.forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applies log_softmax itself, so the log_softmax before it is redundant; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-6]]:51: note: log_softmax applied here
  loss.backward();
}

void namedAppendedSoftmax(torch::Tensor x, torch::Tensor y) {
  torch::nn::Sequential model;
  model->push_back("fc", torch::nn::Linear(8, 3));
  model->push_back("softmax", torch::nn::Softmax(1));
  auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-2]]:52: note: softmax applied here
  loss.backward();
}

// Negative: the last named layer is the linear one.
void namedLogits(torch::Tensor x, torch::Tensor y) {
  torch::nn::Sequential net({{"probs", torch::nn::Softmax(1)},
                             {"fc", torch::nn::Linear(4, 3)}});
  torch::nn::functional::cross_entropy(net->forward(x), y).backward();
}

// Negative: named LogSoftmax into nll_loss is the intended pairing.
void namedLogSoftmaxNll(torch::Tensor x, torch::Tensor y) {
  torch::nn::Sequential net({{"fc", torch::nn::Linear(4, 3)},
                             {"log_probs", torch::nn::LogSoftmax(1)}});
  torch::nn::functional::nll_loss(net->forward(x), y).backward();
}

// --- A Sequential made by a factory of the project ----------------------------------

torch::nn::Sequential build_classifier(int64_t in, int64_t classes) {
  return torch::nn::Sequential(torch::nn::Linear(in, 16),
                               torch::nn::Linear(16, classes),
                               torch::nn::Softmax(1));
}

torch::nn::Sequential build_layered(int64_t in, int64_t classes) {
  torch::nn::Sequential net(torch::nn::Linear(in, classes));
  net->push_back(torch::nn::LogSoftmax(1));
  return net;
}

void factorySoftmax(torch::Tensor x, torch::Tensor y) {
  auto model = build_classifier(4, 3);
  torch::nn::CrossEntropyLoss criterion;
  auto loss = criterion(model->forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applied to softmax output applies softmax twice, so the loss cannot fall below its floor and its gradients shrink; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-2]]:25: note: softmax applied here
  loss.backward();
}

void factoryLayered(torch::Tensor x, torch::Tensor y) {
  torch::nn::Sequential model = build_layered(4, 3);
  auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: cross_entropy applies log_softmax itself, so the log_softmax before it is redundant; pass the logits [torch-softmax-before-cross-entropy]
  // CHECK-MESSAGES: :[[@LINE-2]]:52: note: log_softmax applied here
  loss.backward();
}

// Negative twins: a factory that ends in logits, and one whose returns
// disagree (a head chosen by a flag).
torch::nn::Sequential build_logits(int64_t in, int64_t classes) {
  return torch::nn::Sequential(torch::nn::Linear(in, classes));
}

torch::nn::Sequential build_either(bool probabilities) {
  if (probabilities)
    return torch::nn::Sequential(torch::nn::Linear(4, 3), torch::nn::Softmax(1));
  return torch::nn::Sequential(torch::nn::Linear(4, 3));
}

void factoryLogits(torch::Tensor x, torch::Tensor y, bool flag) {
  auto model = build_logits(4, 3);
  auto other = build_either(flag);
  auto loss = torch::nn::functional::cross_entropy(model->forward(x), y) +
              torch::nn::functional::cross_entropy(other->forward(x), y);
  loss.backward();
}
