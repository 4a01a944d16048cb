// The same patterns against Debian's real LibTorch headers.
// REQUIRES: libtorch
// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- %libtorch_flags

#include <torch/torch.h>
#include <vector>

struct HeadImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  HeadImpl() : fc(register_module("fc", torch::nn::Linear(4, 3))) {}
  torch::Tensor forward(torch::Tensor x) {
    auto scores = fc(x);
    std::vector<float> values;
    for (int64_t i = 0; i < scores.size(0); ++i)
      values.push_back(scores[i].sum().item<float>());
    return torch::tensor(values);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
    // CHECK-MESSAGES: :[[@LINE-3]]:40: note: values read out of a tensor with autograd history here
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the new tensor is returned from forward() here
  }
};
TORCH_MODULE(Head);

void losses(Head &head, torch::nn::Linear &model, torch::Tensor x,
            torch::Tensor y) {
  auto a = model(x);
  auto pair = torch::tensor({a[0][0].item<float>(), a[0][1].item<float>()});
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-2]]:38: note: values read out of a tensor with autograd history here
  torch::nn::functional::mse_loss(pair, y).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the new tensor is the prediction of this loss

  auto out = model(x).contiguous();
  std::vector<float> buf(out.data_ptr<float>(),
                         out.data_ptr<float>() + out.numel());
  auto copy = torch::from_blob(buf.data(), {out.size(0), out.size(1)}).clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: torch::from_blob builds a tensor without autograd history
  // CHECK-MESSAGES: :[[@LINE-4]]:30: note: values read out of a tensor with autograd history here
  torch::nn::MSELoss criterion;
  auto loss = criterion(copy.to(torch::kCPU), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: note: the new tensor is the prediction of this loss
  loss.backward();
}

// Not flagged: values as targets or labels, and stack/cat.
void fine(torch::nn::Linear &model, torch::nn::Linear &teacher, torch::Tensor x,
          torch::nn::CrossEntropyLoss &criterion) {
  auto logits = model(x);
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < logits.size(0); ++i)
    labels.push_back(teacher(x)[i].argmax().item<int64_t>());
  auto loss = criterion(logits, torch::tensor(labels));
  std::vector<torch::Tensor> parts{model(x), teacher(x)};
  auto both = torch::stack(parts).sum() + torch::cat({model(x), logits}).sum();
  (loss + both).backward();
}
