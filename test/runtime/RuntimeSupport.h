//===- RuntimeSupport.h - shared helpers of the torch-tidy runtime suite --===//
//
// The runtime suite proves that every pattern a torch-* check flags really
// fails at run time, and that its fixed twin works. Each
// test/runtime/<check>_test.cpp is linked with examples/<check>/buggy.cpp and
// examples/<check>/fixed.cpp (compiled with -DTORCH_TIDY_EXAMPLE_NO_MAIN) and
// declares their entry points itself (`namespace buggy { ... }`, `namespace
// fixed { ... }`).
//
// Device policy: tests run on CUDA when torch::cuda::is_available(), else on
// CPU (testDevice()). Evidence that exists only on a GPU (caching-allocator
// bytes, a device-side assert, a checkpoint for a second GPU) is compiled
// everywhere and reports GTEST_SKIP with the reason on a machine without one:
// it never passes there.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_TEST_RUNTIME_RUNTIMESUPPORT_H
#define TORCH_TIDY_TEST_RUNTIME_RUNTIMESUPPORT_H

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace torch_tidy_runtime {

/// True when LibTorch was built with CUDA and a GPU is usable here.
bool cudaAvailable();

/// True when the linked LibTorch has a CUDA backend (a CUDA build of
/// LibTorch), whether or not a GPU is usable here. False for Debian's
/// CPU-only libtorch-dev.
bool libtorchHasCudaBackend();

/// The device the runtime tests run on: CUDA (the current device) when
/// cudaAvailable(), else CPU.
torch::Device testDevice();

/// Number of distinct autograd nodes reachable from t.grad_fn() through
/// next_edges (grad_fn itself included; AccumulateGrad nodes of leaves count
/// too). 0 for a tensor without grad_fn (a leaf, a detached tensor, a tensor
/// computed under a no-grad guard).
size_t countGraphNodes(const torch::Tensor &T);

/// The what() of the std::exception (c10::Error included) that Fn throws, or
/// "" when Fn returns normally. A throw of anything else gives a fixed marker
/// string "<non-std exception>". Note that c10::Error::what() may carry a C++
/// backtrace after the message: match with HasSubstr, never with equality.
std::string thrownMessage(const std::function<void()> &Fn);

/// GoogleTest assertion: Text contains Needle. LibTorch's messages carry a
/// backtrace, so they are matched by substring, never by equality. On failure
/// the message shows the needle and the whole text:
///   EXPECT_TRUE(contains(thrownMessage(Fn), "a second time"));
::testing::AssertionResult contains(const std::string &Text,
                                    const std::string &Needle);

/// True when this build can read the CUDA caching allocator's statistics: the
/// suite was compiled against a LibTorch that ships libc10_cuda (and the CUDA
/// runtime headers), and a GPU is usable. Debian's CPU-only libtorch-dev has
/// the c10/cuda headers but no libc10_cuda: there this is always false.
bool cudaAllocatorStatsAvailable();

/// Bytes currently allocated by the CUDA caching allocator on the current
/// device (statistic "allocated_bytes", aggregate pool), after a device
/// synchronize. -1 when !cudaAllocatorStatsAvailable().
int64_t cudaAllocatedBytes();

/// For a GoogleTest death test (EXPECT_EXIT) on CUDA: runs Fn, then
/// synchronizes the device, and exits the process with 0 when that raised
/// "device-side assert triggered" (the asynchronous CUDA error of an index
/// out of range in a kernel), 1 when it raised something else (printed), 2
/// when nothing was raised. A device-side assert leaves the CUDA context
/// unusable for the rest of the process, hence the child process:
///   GTEST_FLAG_SET(death_test_style, "threadsafe");
///   EXPECT_EXIT(exitAfterDeviceSideAssert(Fn), ::testing::ExitedWithCode(0), "");
[[noreturn]] void exitAfterDeviceSideAssert(const std::function<void()> &Fn);

/// Human-readable description of the run: LibTorch version, CUDA or CPU, and
/// whether allocator statistics are compiled in. Tests print it once.
std::string runDescription();

} // namespace torch_tidy_runtime

/// First statement of a test that needs a GPU: reports the test as SKIPPED
/// (never passed) with the reason on a machine without one.
#define TORCH_TIDY_REQUIRE_CUDA()                                              \
  do {                                                                         \
    if (!::torch_tidy_runtime::cudaAvailable())                                \
      GTEST_SKIP() << "needs a CUDA device: torch::cuda::is_available() is "   \
                      "false on this machine (CUDA-only evidence)";            \
  } while (false)

/// First statement of a test that reads the CUDA caching allocator: skips
/// without a GPU, and also on a GPU machine whose LibTorch has no libc10_cuda.
#define TORCH_TIDY_REQUIRE_CUDA_ALLOCATOR_STATS()                              \
  do {                                                                         \
    TORCH_TIDY_REQUIRE_CUDA();                                                 \
    if (!::torch_tidy_runtime::cudaAllocatorStatsAvailable())                  \
      GTEST_SKIP() << "needs the CUDA caching allocator statistics: this "     \
                      "suite was built without libc10_cuda";                   \
  } while (false)

#endif // TORCH_TIDY_TEST_RUNTIME_RUNTIMESUPPORT_H
