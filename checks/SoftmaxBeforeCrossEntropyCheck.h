//===--- SoftmaxBeforeCrossEntropyCheck.h ----------------------*- C++ -*-===//
//
// torch-softmax-before-cross-entropy
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_SOFTMAXBEFORECROSSENTROPYCHECK_H
#define TORCH_TIDY_CHECKS_SOFTMAXBEFORECROSSENTROPYCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>

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
  void onStartOfTranslationUnit() override { forgetTranslationUnit(); }
  void onEndOfTranslationUnit() override { forgetTranslationUnit(); }

  /// A function of the user's code that computes a loss on one of its
  /// parameters: `compute_loss(pred, y) { return cross_entropy(pred, y); }`,
  /// directly or through another such function.
  struct LossWrapper {
    const CallExpr *Loss = nullptr; ///< The loss call that takes it.
    unsigned Param = 0;             ///< The parameter it takes.
  };

private:
  std::optional<LossWrapper> wrapperOf(const FunctionDecl &Fn, unsigned Depth);
  void checkWrapperCall(const CallExpr &Call,
                        const ast_matchers::MatchFinder::MatchResult &Result);
  void forgetTranslationUnit() {
    Reported.clear();
    Wrappers.clear();
    Parents.clear();
  }

  UserCodeMatchFinder UserCode{*this};
  llvm::DenseMap<const FunctionDecl *, std::optional<LossWrapper>> Wrappers;
  /// One diagnostic per loss call (a macro expanded twice, a lambda).
  llvm::DenseSet<SourceLocation> Reported;
  /// Parents of the analysed bodies: a variable's value at a use is the
  /// definition that reaches it (`out = log_softmax(out, 1); loss(out, y)`).
  BodyParents Parents;
};

} // namespace clang::tidy::torch

#endif
