//===--- TorchTidyModule.cpp - the torch-* clang-tidy module --------------===//
//
// Registers every torch-* check. Check names are the user interface (see
// docs/checks/): they never change.
//
//===----------------------------------------------------------------------===//

#include "BackwardTwiceWithoutRetainGraphCheck.h"
#include "BceInputOutOfRangeCheck.h"
#include "ClassIndexOutOfRangeCheck.h"
#include "DeviceMismatchCheck.h"
#include "DiscardedTensorResultCheck.h"
#include "EvalLoopWithoutNoGradCheck.h"
#include "EvalModeNotRestoredCheck.h"
#include "FromBlobOutlivesBufferCheck.h"
#include "InplaceOnSavedTensorCheck.h"
#include "LoadWithoutDeviceCheck.h"
#include "LossAccumulatedWithoutItemCheck.h"
#include "MissingEpsilonCheck.h"
#include "MissingZeroGradCheck.h"
#include "OptimizerCreatedInLoopCheck.h"
#include "SoftmaxBeforeCrossEntropyCheck.h"
#include "SoftmaxOverBatchDimCheck.h"
#include "StackedSamplesVaryInSizeCheck.h"
#include "TensorFromValuesBreaksGraphCheck.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "clang-tidy/ClangTidyModule.h"
#if TORCH_TIDY_LLVM_MAJOR < 22
// Merged into ClangTidyModule.h (and deprecated) in LLVM 22.
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif
#include <string>
#include <utility>
#include <vector>

namespace clang::tidy::torch {

class TorchTidyModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    // In alphabetical order of the check names, as README's table lists them
    // (test/units/check_units.py fails otherwise).
    Factories.registerCheck<BackwardTwiceWithoutRetainGraphCheck>(
        "torch-backward-twice-without-retain-graph");
    Factories.registerCheck<BceInputOutOfRangeCheck>(
        "torch-bce-input-out-of-range");
    Factories.registerCheck<ClassIndexOutOfRangeCheck>(
        "torch-class-index-out-of-range");
    Factories.registerCheck<DeviceMismatchCheck>("torch-device-mismatch");
    Factories.registerCheck<DiscardedTensorResultCheck>(
        "torch-discarded-tensor-result");
    Factories.registerCheck<EvalLoopWithoutNoGradCheck>(
        "torch-eval-loop-without-no-grad");
    Factories.registerCheck<EvalModeNotRestoredCheck>(
        "torch-eval-mode-not-restored");
    Factories.registerCheck<FromBlobOutlivesBufferCheck>(
        "torch-from-blob-outlives-buffer");
    Factories.registerCheck<InplaceOnSavedTensorCheck>(
        "torch-inplace-on-saved-tensor");
    Factories.registerCheck<LoadWithoutDeviceCheck>("torch-load-without-device");
    Factories.registerCheck<LossAccumulatedWithoutItemCheck>(
        "torch-loss-accumulated-without-item");
    Factories.registerCheck<MissingEpsilonCheck>("torch-missing-epsilon");
    Factories.registerCheck<MissingZeroGradCheck>("torch-missing-zero-grad");
    Factories.registerCheck<OptimizerCreatedInLoopCheck>(
        "torch-optimizer-created-in-loop");
    Factories.registerCheck<SoftmaxBeforeCrossEntropyCheck>(
        "torch-softmax-before-cross-entropy");
    Factories.registerCheck<SoftmaxOverBatchDimCheck>(
        "torch-softmax-over-batch-dim");
    Factories.registerCheck<StackedSamplesVaryInSizeCheck>(
        "torch-stacked-samples-vary-in-size");
    Factories.registerCheck<TensorFromValuesBreaksGraphCheck>(
        "torch-tensor-from-values-breaks-graph");
    // Each factory first records the clang-tidy context of the checks it
    // creates (utils/libtorch/UserCodeMatchFinder.h: whether only torch-*
    // checks run on a file).
    std::vector<std::pair<std::string, ClangTidyCheckFactories::CheckFactory>>
        Wrapped;
    for (const auto &Entry : Factories)
      if (Entry.getKey().starts_with("torch-"))
        Wrapped.emplace_back(Entry.getKey().str(), Entry.getValue());
    for (auto &[Name, Factory] : Wrapped)
      Factories.registerCheckFactory(
          Name, [Create = std::move(Factory)](StringRef CheckName,
                                              ClangTidyContext *Context) {
            setTidyContextForThisThread(Context);
            return Create(CheckName, Context);
          });
  }
};

} // namespace clang::tidy::torch

namespace clang::tidy {

// Registers the module with clang-tidy, both when linked into bin/torch-tidy
// and bin/torch-clangd and when loaded as a plugin with --load.
static ClangTidyModuleRegistry::Add<torch::TorchTidyModule>
    X("TorchTidyModule", "Checks for LibTorch (PyTorch C++ API) pitfalls.");

} // namespace clang::tidy
