//===--- TorchTidyModule.cpp - the torch-* clang-tidy module --------------===//
//
// Registers every torch-* check. Check names are the user interface (see
// docs/checks/): they never change.
//
//===----------------------------------------------------------------------===//

#include "BackwardTwiceWithoutRetainGraphCheck.h"
#include "DeviceMismatchCheck.h"
#include "EvalLoopWithoutNoGradCheck.h"
#include "EvalModeNotRestoredCheck.h"
#include "InplaceOnSavedTensorCheck.h"
#include "LoadWithoutDeviceCheck.h"
#include "LossAccumulatedWithoutItemCheck.h"
#include "MissingEpsilonCheck.h"
#include "MissingZeroGradCheck.h"
#include "OptimizerCreatedInLoopCheck.h"
#include "SoftmaxBeforeCrossEntropyCheck.h"
#include "TensorFromValuesBreaksGraphCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#if TORCH_TIDY_LLVM_MAJOR < 22
// Merged into ClangTidyModule.h (and deprecated) in LLVM 22.
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif

namespace clang::tidy::torch {

class TorchTidyModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    // In alphabetical order of the check names, as README's table lists them
    // (test/units/check_units.py fails otherwise).
    Factories.registerCheck<BackwardTwiceWithoutRetainGraphCheck>(
        "torch-backward-twice-without-retain-graph");
    Factories.registerCheck<DeviceMismatchCheck>("torch-device-mismatch");
    Factories.registerCheck<EvalLoopWithoutNoGradCheck>(
        "torch-eval-loop-without-no-grad");
    Factories.registerCheck<EvalModeNotRestoredCheck>(
        "torch-eval-mode-not-restored");
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
    Factories.registerCheck<TensorFromValuesBreaksGraphCheck>(
        "torch-tensor-from-values-breaks-graph");
  }
};

} // namespace clang::tidy::torch

namespace clang::tidy {

// Registers the module with clang-tidy, both when linked into bin/torch-tidy
// and bin/torch-clangd and when loaded as a plugin with --load.
static ClangTidyModuleRegistry::Add<torch::TorchTidyModule>
    X("TorchTidyModule", "Checks for LibTorch (PyTorch C++ API) pitfalls.");

} // namespace clang::tidy
