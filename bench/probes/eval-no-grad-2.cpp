// Report: https://github.com/anira-project/anira/issues/45
// What went wrong: the LibTorch backend of a real-time audio plugin ran its model once per
// audio block without torch::NoGradGuard; memory grew heavily until a guard was added in
// the inference thread.
#include <torch/script.h>
#include <atomic>
#include <string>

class LibtorchProcessor {
public:
  explicit LibtorchProcessor(const std::string &path)
      : module_(torch::jit::load(path, torch::kCPU)) {}
  void prepare() { module_.eval(); }
  torch::Tensor process(const torch::Tensor &block) {
    std::vector<torch::jit::IValue> in{block};
    return module_.forward(in).toTensor();
  }

private:
  torch::jit::Module module_;
};

torch::Tensor next_block();
void push_output(const torch::Tensor &out);

class InferenceThread {
public:
  explicit InferenceThread(LibtorchProcessor &p) : processor_(p) {}
  void run() {
    processor_.prepare();
    while (running_.load()) {
      auto block = next_block();
      push_output(processor_.process(block)); // EXPECT: torch-eval-loop-without-no-grad
    }
  }

private:
  LibtorchProcessor &processor_;
  std::atomic<bool> running_{true};
};
