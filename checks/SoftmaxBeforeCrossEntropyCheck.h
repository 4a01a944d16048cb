//===--- SoftmaxBeforeCrossEntropyCheck.h ----------------------*- C++ -*-===//
//
// torch-softmax-before-cross-entropy
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_SOFTMAXBEFORECROSSENTROPYCHECK_H
#define TORCH_TIDY_CHECKS_SOFTMAXBEFORECROSSENTROPYCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Finds losses fed the wrong kind of scores: cross_entropy (function or
/// torch::nn::CrossEntropyLoss) applied to softmax or log_softmax output,
/// which it applies itself; nll_loss (function or torch::nn::NLLLoss) applied
/// to softmax output, or to the raw scores of a linear layer, where it
/// expects log-probabilities. The argument is followed through local
/// variables with a single definition and into the forward of a user module.
class SoftmaxBeforeCrossEntropyCheck : public ClangTidyCheck {
public:
  SoftmaxBeforeCrossEntropyCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Reported.clear(); }
  void onEndOfTranslationUnit() override { Reported.clear(); }

private:
  UserCodeMatchFinder UserCode{*this};
  /// One diagnostic per loss call (a macro expanded twice, a lambda).
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch

#endif
