//===--- ClassIndexOutOfRangeCheck.h ---------------------------*- C++ -*-===//
//
// torch-class-index-out-of-range
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_CLASSINDEXOUTOFRANGECHECK_H
#define TORCH_TIDY_CHECKS_CLASSINDEXOUTOFRANGECHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/analysis/BoundaryGuard.h"
#include "utils/analysis/IntegerValues.h"
#include "utils/analysis/LayerWidth.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>

namespace clang::tidy::torch {

/// Finds class indices whose values, as the program makes them, reach
/// outside the classes they index: the target of cross_entropy / nll_loss
/// (functions and modules) outside [0, C) and not the loss's ignore_index,
/// where C is the width of the scores (a Linear's out_features, a
/// convolution's out_channels, a factory's sizes); the input of one_hot(t,
/// C); the indices given to a torch::nn::Embedding outside [0,
/// num_embeddings). Values come from IntegerValues.h, widths from
/// LayerWidth.h.
class ClassIndexOutOfRangeCheck : public ClangTidyCheck {
public:
  ClassIndexOutOfRangeCheck(StringRef Name, ClangTidyContext *Context)
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
  /// An index whose values reach outside what it indexes.
  struct Finding {
    const Expr *Index = nullptr;
    const char *What = nullptr;
    int64_t Value = 0;
    /// Where the value comes from.
    const Expr *Source = nullptr;
    LayerWidth Width;
  };
  std::optional<Finding> evaluate(const CallExpr &Use, IntegerValues &Ints,
                                  BoundaryAnalysis &Locals);
  void report(const Finding &F, const Expr &At, const CallExpr *InHelper,
              const SourceManager &SM);
  /// The index uses in a function's body (cached).
  llvm::ArrayRef<const CallExpr *> usesIn(const FunctionDecl &Fn);

  UserCodeMatchFinder UserCode{*this};
  BodyParents Parents;
  llvm::DenseSet<SourceLocation> Reported;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const CallExpr *, 1>>
      Uses;
};

} // namespace clang::tidy::torch

#endif
