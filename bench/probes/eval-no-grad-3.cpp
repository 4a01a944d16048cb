// Report: https://github.com/pytorch/pytorch/issues/39522
// What went wrong: predicting several images in a row made memory climb; adding
// torch::NoGradGuard stopped it (the forwards had been recording graphs).
#include <torch/torch.h>

struct ClassifierImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear fc{nullptr};
  ClassifierImpl() {
    conv = register_module("conv", torch::nn::Conv2d(3, 8, 3));
    fc = register_module("fc", torch::nn::Linear(8, 10));
  }
  torch::Tensor forward(const torch::Tensor &x) { return fc(torch::relu(conv(x)).flatten(1)); }
};
TORCH_MODULE(Classifier);

std::vector<int64_t> predict_batch(Classifier &model, const std::vector<torch::Tensor> &images) {
  model->eval();
  std::vector<int64_t> labels;
  for (const auto &img : images) {
    auto logits = model->forward(img.unsqueeze(0)); // EXPECT: torch-eval-loop-without-no-grad
    labels.push_back(logits.argmax(1).item<int64_t>());
  }
  return labels;
}

// Fixed: the guard before the loop.
std::vector<int64_t> predict_batch_guarded(Classifier &model,
                                           const std::vector<torch::Tensor> &images) {
  torch::NoGradGuard no_grad;
  model->eval();
  std::vector<int64_t> labels;
  for (const auto &img : images)
    labels.push_back(model->forward(img.unsqueeze(0)).argmax(1).item<int64_t>());
  return labels;
}

// Fixed differently: inference mode.
std::vector<int64_t> predict_batch_inference_mode(Classifier &model,
                                                  const std::vector<torch::Tensor> &images) {
  c10::InferenceMode guard;
  model->eval();
  std::vector<int64_t> labels;
  for (const auto &img : images)
    labels.push_back(model(img.unsqueeze(0)).argmax(1).item<int64_t>());
  return labels;
}
