#include <torch/torch.h>

// Both NOLINT forms silence torch-* checks, by name or with a glob.
void resume_from_known_cpu_checkpoint(torch::nn::Module &model) {
  torch::load(model, "cpu-only.pt"); // NOLINT(torch-load-without-device)
  // NOLINTNEXTLINE(torch-*)
  torch::load(model, "cpu-only-too.pt");
}
