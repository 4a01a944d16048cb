//===--- BceInputOutOfRangeCheck.h -----------------------------*- C++ -*-===//
//
// torch-bce-input-out-of-range
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_BCEINPUTOUTOFRANGECHECK_H
#define TORCH_TIDY_CHECKS_BCEINPUTOUTOFRANGECHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Finds binary_cross_entropy (the functions and torch::nn::BCELoss) given
/// an input that is not kept inside [0, 1] (raw scores of a layer, tanh, a
/// difference, log-probabilities: ScoreOrigin.h) or a target whose values
/// reach outside [0, 1] (IntegerValues.h: labels in {-1, 1}). Fix-it: the
/// `_with_logits` form of the function on raw scores.
class BceInputOutOfRangeCheck : public ClangTidyCheck {
public:
  BceInputOutOfRangeCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Parents.clear(); Reported.clear(); }
  void onEndOfTranslationUnit() override { Parents.clear(); Reported.clear(); }

private:
  UserCodeMatchFinder UserCode{*this};
  BodyParents Parents;
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch

#endif
