//===--- BackwardTwiceWithoutRetainGraphCheck.h ---------------------------===//

#ifndef TORCH_TIDY_CHECKS_BACKWARDTWICEWITHOUTRETAINGRAPHCHECK_H
#define TORCH_TIDY_CHECKS_BACKWARDTWICEWITHOUTRETAINGRAPHCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/AutogradFlow.h"

namespace clang::tidy::torch {

/// Finds a second backward pass (Tensor::backward, torch::autograd::backward,
/// torch::autograd::grad) through a graph whose buffers an earlier pass
/// without retain_graph=true freed: the same tensor backpropagated twice, a
/// pass in a loop on a tensor computed before the loop, or two losses that
/// share a non-leaf intermediate. At run time the second pass throws "Trying
/// to backward through the graph a second time".
class BackwardTwiceWithoutRetainGraphCheck : public ClangTidyCheck {
public:
  BackwardTwiceWithoutRetainGraphCheck(StringRef Name,
                                       ClangTidyContext *Context)
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
