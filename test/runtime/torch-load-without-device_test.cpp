//===- torch-load-without-device_test.cpp - runtime proof, check 6 --------===//
//
// torch-load-without-device: a checkpoint whose storages are tagged for a CUDA
// device this host lacks fails to load through torch::load(obj, path),
// torch::jit::load(path) and InputArchive::load_from(path)
// (examples/torch-load-without-device/buggy.cpp); the same calls with a device
// argument (fixed.cpp) load it, with the saved values.
//
// The test writes its checkpoints itself, on the CPU, with torch::save and
// torch::jit::Module::save, then retags every storage in the archives' pickles
// for "cuda:N", N = the number of GPUs here (cuda:0 on a CPU-only host, cuda:1
// on a one-GPU host): exactly what a GPU machine would have written. The files
// stay in load-without-device/ in the test's working directory
// (build/test/runtime), for the standalone example programs.
//
//===----------------------------------------------------------------------===//

#include "CheckpointRewriter.h"
#include "RuntimeSupport.h"

#include <torch/cuda.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <filesystem>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

namespace buggy {
void loadLinear(torch::nn::Linear &Model, const std::string &Path);
torch::Tensor loadTensor(const std::string &Path);
torch::jit::Module loadScript(const std::string &Path);
torch::Tensor readFromArchive(const std::string &Path, const std::string &Key);
} // namespace buggy

namespace fixed {
void loadLinear(torch::nn::Linear &Model, const std::string &Path);
torch::Tensor loadTensor(const std::string &Path);
torch::jit::Module loadScript(const std::string &Path);
torch::Tensor readFromArchive(const std::string &Path, const std::string &Key);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;
namespace fs = std::filesystem;

const fs::path Dir = "load-without-device";

std::string path(const std::string &Name) { return (Dir / Name).string(); }

/// Writes the file Name with Write(temporary path), then renames it into place:
/// test processes running in parallel (ctest -j) never see a partial file.
void publish(const std::string &Name,
             const std::function<void(const std::string &)> &Write) {
  const fs::path Tmp = Dir / ("tmp" + std::to_string(::getpid()) + "-" +
                              fs::path(Name).filename().string());
  Write(Tmp.string());
  fs::rename(Tmp, Name);
}

/// A CUDA device this host does not have: cuda:<number of GPUs>.
std::string missingCudaLocation() {
  const size_t Gpus = cudaAvailable() ? torch::cuda::device_count() : 0;
  return "cuda:" + std::to_string(Gpus);
}

/// The first line of an error message (c10::Error appends a backtrace).
std::string firstLine(const std::string &Message) {
  return Message.substr(0, Message.find('\n'));
}

torch::nn::Linear makeLinear() {
  torch::manual_seed(0);
  return torch::nn::Linear(2, 3);
}

torch::Tensor savedTensor() {
  return torch::arange(6, torch::kFloat).reshape({2, 3});
}

/// A TorchScript module built from C++: one parameter, forward = x W^T.
torch::jit::Module makeScript() {
  torch::jit::Module M("TinyNet");
  M.register_parameter("weight",
                       torch::arange(6, torch::kFloat).reshape({3, 2}),
                       /*is_buffer=*/false);
  M.define(R"(
def forward(self, x):
    return torch.mm(x, self.weight.t())
)");
  return M;
}

torch::Tensor scriptInput() { return torch::ones({1, 2}); }

/// Names of the checkpoints: <stem>-cpu.pt as saved, <stem>-<tag>.pt retagged.
const char *const Stems[] = {"linear", "tensor", "script"};

std::string cpuPath(const std::string &Stem) { return path(Stem + "-cpu.pt"); }
std::string missingPath(const std::string &Stem) {
  std::string Tag = missingCudaLocation();
  Tag.erase(Tag.find(':'), 1); // cuda:0 -> cuda0
  return path(Stem + "-" + Tag + ".pt");
}

class LoadWithoutDevice : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::cout << "[ info     ] " << runDescription() << "\n";
    fs::create_directories(Dir);
    publish(cpuPath("linear"),
            [](const std::string &P) { torch::save(makeLinear(), P); });
    publish(cpuPath("tensor"),
            [](const std::string &P) { torch::save(savedTensor(), P); });
    publish(cpuPath("script"),
            [](const std::string &P) { makeScript().save(P); });
    for (const char *Stem : Stems) {
      publish(missingPath(Stem), [&](const std::string &P) {
        Retagged.push_back(
            retagCheckpointStorages(cpuPath(Stem), P, missingCudaLocation()));
      });
      std::cout << "[ info     ] " << missingPath(Stem) << ": "
                << Retagged.back() << " storage(s) tagged "
                << missingCudaLocation() << "\n";
    }
  }
  static std::vector<size_t> Retagged;
};
std::vector<size_t> LoadWithoutDevice::Retagged;

// The checkpoints really are what a GPU machine writes: every storage of the
// retagged archives names the missing CUDA device, none is left on "cpu".
TEST_F(LoadWithoutDevice, CheckpointStoragesAreTaggedForMissingCudaDevice) {
  const std::vector<size_t> Expected = {2, 1, 1}; // weight+bias, tensor, weight
  for (size_t I = 0; I < 3; ++I) {
    const std::vector<std::string> Saved =
        checkpointStorageLocations(cpuPath(Stems[I]));
    ASSERT_EQ(Saved.size(), Expected[I]) << Stems[I];
    for (const std::string &L : Saved)
      EXPECT_EQ(L, "cpu") << Stems[I];
    EXPECT_EQ(Retagged[I], Expected[I]) << Stems[I];
    const std::vector<std::string> Now =
        checkpointStorageLocations(missingPath(Stems[I]));
    ASSERT_EQ(Now.size(), Expected[I]) << Stems[I];
    for (const std::string &L : Now)
      EXPECT_EQ(L, missingCudaLocation()) << Stems[I];
  }
}

// Control: the buggy functions load the untouched CPU checkpoints, so what
// fails below is the device tag, not the rewriting.
TEST_F(LoadWithoutDevice, BuggyLoadsSucceedOnCpuTaggedCheckpoints) {
  torch::nn::Linear Model(2, 3);
  EXPECT_EQ(thrownMessage([&] { buggy::loadLinear(Model, cpuPath("linear")); }),
            "");
  EXPECT_TRUE(torch::equal(Model->weight, makeLinear()->weight));
  EXPECT_TRUE(
      torch::equal(buggy::loadTensor(cpuPath("tensor")), savedTensor()));
  EXPECT_TRUE(torch::equal(
      buggy::loadScript(cpuPath("script")).forward({scriptInput()}).toTensor(),
      makeScript().forward({scriptInput()}).toTensor()));
  EXPECT_TRUE(torch::equal(buggy::readFromArchive(cpuPath("linear"), "bias"),
                           makeLinear()->bias));
}

/// The failure a load onto a missing CUDA device gives. With a CPU-only
/// LibTorch (Debian's libtorch-dev; verified here) the unpickler's move of the
/// storage to CUDA finds no CUDA kernel. With a CUDA build the CUDA runtime
/// reports the missing device instead (not observable on this machine: those
/// messages vary with the driver, so only "CUDA" is required there).
const char *const CpuBuildMessage =
    "Could not run 'aten::empty_strided' with arguments from the 'CUDA' "
    "backend";

void expectMissingDeviceFailure(const std::string &What,
                                const std::string &Message) {
  std::cout << "[ message  ] " << What << " on a checkpoint tagged "
            << missingCudaLocation() << ": " << firstLine(Message) << "\n";
  ASSERT_NE(Message, "") << What << " loaded a checkpoint tagged "
                         << missingCudaLocation();
  if (!libtorchHasCudaBackend()) {
    EXPECT_TRUE(contains(Message, CpuBuildMessage)) << What;
  } else {
    EXPECT_TRUE(contains(Message, "CUDA")) << What;
  }
}

TEST_F(LoadWithoutDevice, BuggyModuleLoadThrows) {
  torch::nn::Linear Model(2, 3);
  expectMissingDeviceFailure("torch::load(linear, path)", thrownMessage([&] {
                               buggy::loadLinear(Model, missingPath("linear"));
                             }));
}

TEST_F(LoadWithoutDevice, BuggyTensorLoadThrows) {
  expectMissingDeviceFailure("torch::load(tensor, path)", thrownMessage([&] {
                               buggy::loadTensor(missingPath("tensor"));
                             }));
}

TEST_F(LoadWithoutDevice, BuggyScriptLoadThrows) {
  expectMissingDeviceFailure("torch::jit::load(path)", thrownMessage([&] {
                               buggy::loadScript(missingPath("script"));
                             }));
}

TEST_F(LoadWithoutDevice, BuggyArchiveLoadFromThrows) {
  expectMissingDeviceFailure(
      "InputArchive::load_from(path)", thrownMessage([&] {
        buggy::readFromArchive(missingPath("linear"), "weight");
      }));
}

// The fixed twins load the very same files onto the CPU, with the saved values.
TEST_F(LoadWithoutDevice, FixedModuleLoadRestoresWeights) {
  torch::nn::Linear Model(2, 3);
  ASSERT_EQ(
      thrownMessage([&] { fixed::loadLinear(Model, missingPath("linear")); }),
      "");
  const torch::nn::Linear Saved = makeLinear();
  EXPECT_TRUE(Model->weight.device().is_cpu());
  EXPECT_TRUE(torch::equal(Model->weight, Saved->weight));
  EXPECT_TRUE(torch::equal(Model->bias, Saved->bias));
}

TEST_F(LoadWithoutDevice, FixedTensorLoadRestoresValues) {
  torch::Tensor Loaded;
  ASSERT_EQ(
      thrownMessage([&] { Loaded = fixed::loadTensor(missingPath("tensor")); }),
      "");
  EXPECT_TRUE(Loaded.device().is_cpu());
  EXPECT_TRUE(torch::equal(Loaded, savedTensor()));
}

TEST_F(LoadWithoutDevice, FixedScriptLoadRuns) {
  torch::jit::Module Loaded;
  ASSERT_EQ(
      thrownMessage([&] { Loaded = fixed::loadScript(missingPath("script")); }),
      "");
  const torch::Tensor Out = Loaded.forward({scriptInput()}).toTensor();
  EXPECT_TRUE(Out.device().is_cpu());
  // x = [1, 1], W = [[0, 1], [2, 3], [4, 5]]: x W^T = [1, 5, 9].
  EXPECT_TRUE(torch::equal(Out, torch::tensor({{1.f, 5.f, 9.f}})));
}

TEST_F(LoadWithoutDevice, FixedArchiveLoadFromRestoresWeights) {
  torch::Tensor Weight;
  ASSERT_EQ(thrownMessage([&] {
              Weight = fixed::readFromArchive(missingPath("linear"), "weight");
            }),
            "");
  EXPECT_TRUE(torch::equal(Weight, makeLinear()->weight));
}

// CUDA-only: on a GPU host the buggy load does not fail on a cuda:0 checkpoint:
// it silently puts the tensors on the GPU they were saved from, the behaviour
// that fails as soon as that device is missing.
TEST_F(LoadWithoutDevice, CudaOnlyBuggyLoadRestoresSavedDevice) {
  TORCH_TIDY_REQUIRE_CUDA();
  const std::string Path = path("tensor-cuda0-present.pt");
  publish(Path, [](const std::string &P) {
    retagCheckpointStorages(cpuPath("tensor"), P, "cuda:0");
  });
  const torch::Tensor Loaded = buggy::loadTensor(Path);
  EXPECT_TRUE(Loaded.device().is_cuda());
  EXPECT_EQ(Loaded.device().index(), 0);
  EXPECT_TRUE(torch::equal(Loaded.cpu(), savedTensor()));
}

// CUDA-only: a checkpoint saved on cuda:1 on a one-GPU host. (On a host with
// N GPUs the tests above already use cuda:N.)
TEST_F(LoadWithoutDevice, CudaOnlySecondGpuCheckpointOnOneGpuHost) {
  TORCH_TIDY_REQUIRE_CUDA();
  if (torch::cuda::device_count() != 1)
    GTEST_SKIP() << "needs exactly one GPU, this host has "
                 << torch::cuda::device_count();
  const std::string Path = path("linear-cuda1.pt");
  size_t Count = 0;
  publish(Path, [&](const std::string &P) {
    Count = retagCheckpointStorages(cpuPath("linear"), P, "cuda:1");
  });
  ASSERT_EQ(Count, 2u);
  torch::nn::Linear Model(2, 3);
  const std::string Message =
      thrownMessage([&] { buggy::loadLinear(Model, Path); });
  std::cout << "[ message  ] torch::load(linear, path) on cuda:1: "
            << firstLine(Message) << "\n";
  EXPECT_NE(Message, "");
  EXPECT_EQ(thrownMessage([&] { fixed::loadLinear(Model, Path); }), "");
  EXPECT_TRUE(torch::equal(Model->weight, makeLinear()->weight));
}

} // namespace
