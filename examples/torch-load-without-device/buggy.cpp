// torch-load-without-device, buggy: the checkpoint is loaded without a device.
//
// torch::load(obj, path), torch::jit::load(path) and
// torch::serialize::InputArchive::load_from(path) put every tensor back on the
// device it was saved from. A checkpoint written on a GPU machine ("cuda:0")
// then fails to load on a CPU-only host, and one written on "cuda:1" fails on a
// one-GPU host. The runtime test
// (test/runtime/torch-load-without-device_test.cpp) writes such checkpoints and
// shows each function below throwing on them.
//
// Standalone: buggy <linear.pt> <tensor.pt> <script.pt> (the runtime test
// leaves CUDA-tagged checkpoints in build/test/runtime/load-without-device/).
#include <torch/script.h>
#include <torch/torch.h>

#include <iostream>
#include <string>

namespace buggy {

// Restores a Linear layer saved with torch::save(model, path).
void loadLinear(torch::nn::Linear &Model, const std::string &Path) {
  torch::load(Model, Path);
}

// Restores a tensor saved with torch::save(tensor, path).
torch::Tensor loadTensor(const std::string &Path) {
  torch::Tensor Weights;
  torch::load(Weights, Path);
  return Weights;
}

// Restores a TorchScript module saved with torch::jit::Module::save(path).
torch::jit::Module loadScript(const std::string &Path) {
  return torch::jit::load(Path);
}

// Reads one tensor out of an archive written by
// torch::serialize::OutputArchive.
torch::Tensor readFromArchive(const std::string &Path, const std::string &Key) {
  torch::serialize::InputArchive Archive;
  Archive.load_from(Path);
  torch::Tensor Value;
  Archive.read(Key, Value);
  return Value;
}

} // namespace buggy

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
    buggy::loadLinear(Model, argv[1]);
  });
  Failures +=
      attempt("torch::load(tensor, path)", [&] { buggy::loadTensor(argv[2]); });
  Failures +=
      attempt("torch::jit::load(path)", [&] { buggy::loadScript(argv[3]); });
  Failures += attempt("InputArchive::load_from(path)",
                      [&] { buggy::readFromArchive(argv[1], "weight"); });
  return Failures == 0 ? 0 : 1;
}
#endif
