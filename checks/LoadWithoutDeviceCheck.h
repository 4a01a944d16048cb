//===--- LoadWithoutDeviceCheck.h - torch-load-without-device -------------===//

#ifndef TORCH_TIDY_CHECKS_LOADWITHOUTDEVICECHECK_H
#define TORCH_TIDY_CHECKS_LOADWITHOUTDEVICECHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/libtorch/UserCodeMatchFinder.h"

namespace clang::tidy::torch {

/// Finds torch::load, torch::jit::load and
/// torch::serialize::InputArchive::load_from calls without a device: tensors
/// then come back on the device they were saved from, and a checkpoint saved
/// on a GPU fails to load on a host without that GPU.
///
/// Options:
///   DefaultDevice: the device the fix-it appends when no single torch::Device
///                  variable is in scope (default "torch::kCPU").
class LoadWithoutDeviceCheck : public ClangTidyCheck {
public:
  LoadWithoutDeviceCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

private:
  /// The check's matchers, run over the user's code only.
  UserCodeMatchFinder UserCode{*this};
  const std::string DefaultDevice;
};

} // namespace clang::tidy::torch

#endif
