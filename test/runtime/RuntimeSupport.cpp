//===- RuntimeSupport.cpp - shared helpers of the torch-tidy runtime suite ===//

#include "RuntimeSupport.h"

#include <cstdio>
#include <cstdlib>

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/csrc/autograd/function.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <exception>
#include <sstream>
#include <unordered_set>
#include <vector>

// The allocator statistics live in libc10_cuda, which CPU-only LibTorch builds
// (Debian's libtorch-dev) do not ship although they install its headers; those
// headers also need the CUDA runtime's. CMake defines
// TORCH_TIDY_HAVE_C10_CUDA only when it found the library.
#if defined(TORCH_TIDY_HAVE_C10_CUDA) && defined(__has_include)
#if __has_include(<c10/cuda/CUDACachingAllocator.h>) &&                        \
    __has_include(<cuda_runtime_api.h>)
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#define TORCH_TIDY_READ_ALLOCATOR_STATS 1
#endif
#endif

namespace torch_tidy_runtime {

bool cudaAvailable() { return torch::cuda::is_available(); }

bool libtorchHasCudaBackend() {
  // libtorch_cuda registers the CUDA device guard when it is loaded.
  return c10::impl::hasDeviceGuardImpl(c10::DeviceType::CUDA);
}

torch::Device testDevice() {
  if (cudaAvailable())
    return torch::Device(torch::kCUDA);
  return torch::Device(torch::kCPU);
}

size_t countGraphNodes(const torch::Tensor &T) {
  // std::shared_ptr<Node> in LibTorch 1.x, c10::intrusive_ptr<Node> in 2.x.
  const auto &Root = T.grad_fn();
  if (!Root)
    return 0;
  std::unordered_set<const torch::autograd::Node *> Seen{Root.get()};
  std::vector<const torch::autograd::Node *> Work{Root.get()};
  while (!Work.empty()) {
    const torch::autograd::Node *N = Work.back();
    Work.pop_back();
    for (const torch::autograd::Edge &E : N->next_edges()) {
      const torch::autograd::Node *Next = E.function.get();
      if (Next && Seen.insert(Next).second)
        Work.push_back(Next);
    }
  }
  return Seen.size();
}

std::string thrownMessage(const std::function<void()> &Fn) {
  try {
    Fn();
  } catch (const std::exception &E) { // c10::Error derives from it.
    return E.what();
  } catch (...) {
    return "<non-std exception>";
  }
  return "";
}

void exitAfterDeviceSideAssert(const std::function<void()> &Fn) {
  const std::string Message = thrownMessage([&] {
    Fn();
    torch::cuda::synchronize();
  });
  if (Message.find("device-side assert") != std::string::npos)
    std::exit(0);
  std::fprintf(stderr, "expected a device-side assert, got: %s\n",
               Message.empty() ? "no error" : Message.c_str());
  std::exit(Message.empty() ? 2 : 1);
}

::testing::AssertionResult contains(const std::string &Text,
                                    const std::string &Needle) {
  if (Text.find(Needle) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected \"" << Needle << "\" in:\n"
                                       << Text;
}

bool cudaAllocatorStatsAvailable() {
#ifdef TORCH_TIDY_READ_ALLOCATOR_STATS
  return cudaAvailable();
#else
  return false;
#endif
}

int64_t cudaAllocatedBytes() {
#ifdef TORCH_TIDY_READ_ALLOCATOR_STATS
  if (!cudaAvailable())
    return -1;
  torch::cuda::synchronize();
  // Index 0 is StatType::AGGREGATE in every LibTorch release; `auto` keeps this
  // independent of where DeviceStats lives (it moved in LibTorch 2.x).
  const auto Stats = c10::cuda::CUDACachingAllocator::getDeviceStats(
      c10::cuda::current_device());
  return static_cast<int64_t>(Stats.allocated_bytes[0].current);
#else
  return -1;
#endif
}

std::string runDescription() {
  std::ostringstream OS;
  OS << "LibTorch " << TORCH_VERSION << " "
     << (libtorchHasCudaBackend() ? "(CUDA build)" : "(CPU-only build)")
     << ", device " << (cudaAvailable() ? "CUDA" : "CPU (no usable GPU)")
     << ", CUDA allocator statistics "
#ifdef TORCH_TIDY_READ_ALLOCATOR_STATS
     << "compiled in";
#else
     << "not compiled in (no libc10_cuda)";
#endif
  return OS.str();
}

} // namespace torch_tidy_runtime
