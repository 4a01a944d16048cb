// Autograd history as LibTorch records it: nothing computed under a
// torch::NoGradGuard has history (a sampled action in a forward), and an
// operation the operation table does not name (gelu, leaky_relu) keeps the
// history of its operands.
// RUN: %check_torch_tidy %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

// --- Negative: sampled under a guard ---------------------------------------------

struct Sampler : torch::nn::Module {
  torch::nn::Linear fc{nullptr};

  torch::Tensor forward(torch::Tensor x) {
    auto logits = fc(x);
    torch::NoGradGuard no_grad;
    auto probs = torch::softmax(logits, 1);
    std::vector<float> picked;
    for (int64_t i = 0; i < probs.size(0); ++i)
      picked.push_back(probs[i][0].item<float>());
    return torch::tensor(picked);
  }
};

struct ScopedSampler : torch::nn::Module {
  torch::nn::Linear fc{nullptr};

  torch::Tensor forward(torch::Tensor x) {
    auto logits = fc(x);
    torch::Tensor noise;
    {
      torch::NoGradGuard no_grad;
      auto scale = logits.abs().mean();
      noise = torch::tensor({scale.item<float>()});
    }
    return noise;
  }
};

// --- Positive: history through operations the table does not name ----------------

struct ReluHead : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor forward(torch::Tensor x) {
    auto scores = torch::relu(fc(x));
    std::vector<float> values;
    for (int64_t i = 0; i < scores.size(0); ++i)
      values.push_back(scores[i].item<float>());
    return torch::tensor(values);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it
  }
};

struct GeluHead : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor forward(torch::Tensor x) {
    auto scores = torch::gelu(fc(x));
    std::vector<float> values;
    for (int64_t i = 0; i < scores.size(0); ++i)
      values.push_back(scores[i].item<float>());
    return torch::tensor(values);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it
  }
};
