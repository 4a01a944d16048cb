// torch-load-without-device, fixed: every load names the device to load onto.
//
// Passing the device (here torch::kCPU) makes LibTorch map every storage onto
// it, whatever device the checkpoint was saved from: a checkpoint written on
// "cuda:0" or "cuda:1" loads on a CPU-only host. The runtime test
// (test/runtime/torch-load-without-device_test.cpp) loads the same
// CUDA-tagged checkpoints that make
// examples/torch-load-without-device/buggy.cpp throw, and checks the values.
//
// Standalone: fixed <linear.pt> <tensor.pt> <script.pt> (the runtime test
// leaves CUDA-tagged checkpoints in build/test/runtime/load-without-device/).
#include <torch/script.h>
#include <torch/torch.h>

#include <iostream>
#include <string>

namespace fixed {

// Restores a Linear layer saved with torch::save(model, path).
void loadLinear(torch::nn::Linear &Model, const std::string &Path) {
  torch::load(Model, Path, torch::kCPU);
}

// Restores a tensor saved with torch::save(tensor, path).
torch::Tensor loadTensor(const std::string &Path) {
  torch::Tensor Weights;
  torch::load(Weights, Path, torch::kCPU);
  return Weights;
}

// Restores a TorchScript module saved with torch::jit::Module::save(path).
torch::jit::Module loadScript(const std::string &Path) {
  return torch::jit::load(Path, torch::kCPU);
}

// Reads one tensor out of an archive written by
// torch::serialize::OutputArchive.
torch::Tensor readFromArchive(const std::string &Path, const std::string &Key) {
  torch::serialize::InputArchive Archive;
  Archive.load_from(Path, torch::kCPU);
  torch::Tensor Value;
  Archive.read(Key, Value);
  return Value;
}

} // namespace fixed

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
template <typename Fn> static int attempt(const char *What, Fn &&Load) {
  try {
    Load();
    std::cout << What << ": loaded\n";
    return 0;
  } catch (const std::exception &E) {
    const std::string Message = E.what(); // first line: c10 adds a backtrace
    std::cout << What << ": failed: " << Message.substr(0, Message.find('\n'))
              << "\n";
    return 1;
  }
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::cerr << "usage: " << argv[0]
              << " <linear.pt> <tensor.pt> <script.pt>\n";
    return 2;
  }
  int Failures = 0;
  Failures += attempt("torch::load(linear, path)", [&] {
    torch::nn::Linear Model(2, 3);
    fixed::loadLinear(Model, argv[1]);
  });
  Failures +=
      attempt("torch::load(tensor, path)", [&] { fixed::loadTensor(argv[2]); });
  Failures +=
      attempt("torch::jit::load(path)", [&] { fixed::loadScript(argv[3]); });
  Failures += attempt("InputArchive::load_from(path)",
                      [&] { fixed::readFromArchive(argv[1], "weight"); });
  return Failures == 0 ? 0 : 1;
}
#endif
