//===--- TensorFromValuesBreaksGraphCheck.h -------------------------------===//

#ifndef TORCH_TIDY_CHECKS_TENSORFROMVALUESBREAKSGRAPHCHECK_H
#define TORCH_TIDY_CHECKS_TENSORFROMVALUESBREAKSGRAPHCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/AutogradFlow.h"

namespace clang::tidy::torch {

/// Finds tensors built with torch::tensor or torch::from_blob from values
/// read out of tensors with autograd history (item, data_ptr, accessors) and
/// then used where gradient must flow: returned from a module's forward(),
/// passed as a loss's prediction, or backpropagated. The new tensor has no
/// grad_fn, so backward() throws or the parameters silently get no gradient.
class TensorFromValuesBreaksGraphCheck : public ClangTidyCheck {
public:
  TensorFromValuesBreaksGraphCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Functions.startTranslationUnit(); }
  void onEndOfTranslationUnit() override { Functions.endTranslationUnit(); }

private:
  AutogradFunctions Functions;
  /// The check's matchers, run over the user's code only.
  UserCodeMatchFinder UserCode{*this};
};

} // namespace clang::tidy::torch

#endif
