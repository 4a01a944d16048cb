// Report: https://github.com/Jhonve/GCN-Denoiser/issues/14
// What went wrong: `torch::jit::load(firstModelPath)` threw on the user's machine; the
// pre-trained models only loaded with the same GPU setup they were saved on.
#include <torch/script.h>
#include <string>

struct Denoisers {
  torch::jit::Module first;
  torch::jit::Module second;
};

Denoisers load_denoisers(const std::string &first_path, const std::string &second_path) {
  Denoisers d{torch::jit::load(first_path), // EXPECT: torch-load-without-device
              torch::jit::load(second_path, c10::nullopt)}; // EXPECT: torch-load-without-device
  d.first.eval();
  d.second.eval();
  return d;
}

// Optimizer state restored through an archive, also without a device.
void resume(torch::optim::Adam &opt, const std::string &path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path); // EXPECT: torch-load-without-device
}
