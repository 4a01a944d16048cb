// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

// --- Positive: returned from forward() -----------------------------------------

struct Head : torch::nn::Module {
  torch::nn::Linear fc{nullptr};

  torch::Tensor forward(torch::Tensor x) {
    auto scores = fc(x);
    std::vector<float> values;
    for (int64_t i = 0; i < scores.size(0); ++i)
      values.push_back(scores[i].item<float>());
    return torch::tensor(values);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
    // CHECK-MESSAGES: :[[@LINE-3]]:34: note: values read out of a tensor with autograd history here
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the new tensor is returned from forward() here
  }
};

// A braced list of item() reads, then .to(): still no history.
struct PairHead : torch::nn::Module {
  torch::nn::Linear a{nullptr}, b{nullptr};

  torch::Tensor forward(torch::Tensor x) {
    auto ya = a(x);
    auto yb = b(x);
    auto out = torch::tensor({ya.item<float>(), yb.item<float>()})
                   .to(torch::kCPU);
    // CHECK-MESSAGES: :[[@LINE-2]]:16: warning: torch::tensor builds a tensor without autograd history
    // CHECK-MESSAGES: :[[@LINE-3]]:34: note: values read out of a tensor with autograd history here
    return out;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the new tensor is returned from forward() here
  }
};

// --- Positive: the prediction of a loss ------------------------------------------

void from_blob_prediction(torch::nn::Linear &model, torch::Tensor x,
                          torch::Tensor target) {
  auto out = model(x);
  float *raw = out.data_ptr<float>();
  std::vector<float> buf(raw, raw + out.numel());
  auto pred = torch::from_blob(buf.data(), {out.numel()}).clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::from_blob builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-4]]:20: note: values read out of a tensor with autograd history here
  auto loss = torch::mse_loss(pred, target);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: note: the new tensor is the prediction of this loss
  loss.backward();
}

// Element stores into an array, through an accessor.
void accessor_into_array(torch::nn::Linear &model, torch::Tensor x,
                         torch::Tensor target, torch::nn::MSELoss &criterion) {
  auto logits = model(x);
  auto acc = logits.accessor<float, 2>();
  float probs[4];
  for (int i = 0; i < 4; ++i)
    probs[i] = acc[0][i];
  auto loss = criterion(torch::from_blob(probs, {4}), target);
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: torch::from_blob builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-6]]:21: note: values read out of a tensor with autograd history here
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: the new tensor is the prediction of this loss
  loss.backward();
}

// --- Positive: backpropagated with no other history -------------------------------

void backpropagated(torch::nn::Linear &model, torch::Tensor x) {
  auto out = model(x);
  double total = out.sum().item<double>();
  auto t = torch::tensor(total) * 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-3]]:28: note: values read out of a tensor with autograd history here
  t.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the new tensor is backpropagated here, with no other autograd history
}

// --- Negative: targets, labels, indices, logging ------------------------------------

void values_as_target(torch::nn::Linear &model, torch::nn::Linear &teacher,
                      torch::Tensor x) {
  auto teacher_out = teacher(x);
  std::vector<float> soft;
  for (int i = 0; i < 4; ++i)
    soft.push_back(teacher_out[i].item<float>());
  auto target = torch::tensor(soft);
  auto loss = torch::mse_loss(model(x), target);
  loss.backward();
  // In arithmetic next to a tensor with history, the built tensor is a
  // constant (an advantage, a weight), not the broken part.
  auto weighted = (model(x) * torch::tensor(soft)).sum();
  weighted.backward();
}

void values_as_labels(torch::nn::Linear &model, torch::Tensor x,
                      torch::nn::CrossEntropyLoss &criterion) {
  auto logits = model(x);
  std::vector<int64_t> labels;
  labels.push_back(logits.argmax(1).item<int64_t>());
  auto loss = criterion(logits, torch::tensor(labels));
  loss.backward();
}

void values_for_logging(torch::nn::Linear &model, torch::Tensor x) {
  auto loss = model(x).sum();
  std::vector<double> history;
  history.push_back(loss.item<double>());
  auto logged = torch::tensor(history);
  loss.backward();
}

// --- Negative: torch::stack / torch::cat keep the graph -----------------------------

struct StackHead : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor forward(torch::Tensor x) {
    std::vector<torch::Tensor> parts;
    for (int i = 0; i < 3; ++i)
      parts.push_back(fc(x));
    return torch::stack(parts);
  }
};

torch::Tensor cat_head(torch::nn::Linear &a, torch::nn::Linear &b,
                       torch::Tensor x) {
  return torch::cat({a(x), b(x)});
}

// --- Negative: values read out of tensors without history ---------------------------

struct InputHead : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    std::vector<float> values;
    values.push_back(x[0].item<float>());
    return torch::tensor(values);
  }
};

void under_no_grad(torch::nn::Linear &model, torch::Tensor x,
                   torch::Tensor target) {
  std::vector<float> values;
  {
    torch::NoGradGuard guard;
    auto out = model(x);
    values.push_back(out.item<float>());
  }
  auto loss = torch::mse_loss(torch::tensor(values), target);
}

void detached_first(torch::nn::Linear &model, torch::Tensor x,
                    torch::Tensor target) {
  auto out = model(x).detach();
  auto pred = torch::tensor({out.item<float>()});
  auto loss = torch::mse_loss(pred, target);
}

// The buffer is refilled from host data before the tensor is built.
void buffer_overwritten(torch::nn::Linear &model, torch::Tensor x,
                        torch::Tensor target, float host) {
  auto out = model(x);
  float value = out.item<float>();
  value = host;
  auto loss = torch::mse_loss(torch::tensor(value), target);
}

// --- Negative: not used where gradient must flow --------------------------------

void not_used_for_gradient(torch::nn::Linear &model, torch::Tensor x) {
  auto out = model(x);
  auto copy = torch::tensor({out.item<float>()});
  auto doubled = copy * 2;
}

// --- Negative: a lambda that runs under its enclosing function's guard ---------
// Grad mode is one analysis for every check: a lambda defined under a
// NoGradGuard records no history, so its item() reads carry none either
// (before the analyses were unified, the graph checks looked at the lambda's
// own body only).
void lambda_under_guard(torch::nn::Linear &model, torch::Tensor x,
                        torch::Tensor target) {
  torch::NoGradGuard no_grad;
  auto score = [&] {
    auto out = model(x);
    auto rebuilt = torch::tensor({out.item<float>()});
    return torch::mse_loss(rebuilt, target);
  };
  score();
}
