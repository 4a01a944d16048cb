//===--- BceInputOutOfRangeCheck.h -----------------------------*- C++ -*-===//
//
// torch-bce-input-out-of-range
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_BCEINPUTOUTOFRANGECHECK_H
#define TORCH_TIDY_CHECKS_BCEINPUTOUTOFRANGECHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/analysis/BoundaryGuard.h"
#include "utils/analysis/IntegerValues.h"
#include "utils/analysis/ScoreOrigin.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>

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
  void onStartOfTranslationUnit() override { forget(); }
  void onEndOfTranslationUnit() override { forget(); }

private:
  void forget() {
    Parents.clear();
    Reported.clear();
    Uses.clear();
  }
  /// What one binary_cross_entropy call is given.
  struct Finding {
    const Expr *Input = nullptr;
    const Expr *Target = nullptr;
    /// Unknown unless the input is out of [0, 1] by its origin.
    ScoreOrigin Origin;
    std::optional<int64_t> TargetValue;
    const Expr *TargetSource = nullptr;
  };
  Finding evaluate(const CallExpr &Call, IntegerValues &Ints,
                   BoundaryAnalysis &Locals);
  void report(const Finding &F, const CallExpr &Call, const Expr *InputAt,
              const Expr *TargetAt, const CallExpr *InHelper, ASTContext &Ctx);

  UserCodeMatchFinder UserCode{*this};
  BodyParents Parents;
  llvm::DenseSet<SourceLocation> Reported;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const CallExpr *, 1>>
      Uses;
};

} // namespace clang::tidy::torch

#endif
