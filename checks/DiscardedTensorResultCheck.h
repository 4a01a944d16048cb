//===--- DiscardedTensorResultCheck.h - torch-discarded-tensor-result ----===//

#ifndef TORCH_TIDY_CHECKS_DISCARDEDTENSORRESULTCHECK_H
#define TORCH_TIDY_CHECKS_DISCARDEDTENSORRESULTCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/analysis/PureTensorFunction.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Finds statements that call an out-of-place LibTorch tensor operation and
/// drop its result (`x.to(device);`, `x.clamp(0, 1);`, `torch::relu(x);`):
/// the operation returns a new tensor and leaves its operands as they were,
/// so the statement does nothing. What is out of place is the operation
/// table's decision (OpTable.h: isOutOfPlace); factories are not reported.
///
/// Fix-it, only for a named, non-const tensor: the in-place spelling where
/// the table has one that changes values and LibTorch declares it
/// (`x.clamp_(0, 1)`, `torch::relu_(x)`); otherwise, for a conversion, view
/// or detach (`to`, `contiguous`, `squeeze`, `detach`), an assignment
/// (`x = x.to(device)`).
///
/// A dropped call of a helper of the translation unit that only computes a
/// tensor out of place (`normalize(x);`) is reported too, without a fix-it.
class DiscardedTensorResultCheck : public ClangTidyCheck {
public:
  DiscardedTensorResultCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override {
    Reported.clear();
    Helpers.clear();
  }
  void onEndOfTranslationUnit() override {
    Reported.clear();
    Helpers.clear();
  }

private:
  void report(const Expr &Dropped, bool InInstantiation,
              const ast_matchers::MatchFinder::MatchResult &Result);
  /// A dropped call of a function of the translation unit that only computes
  /// a tensor out of place (PureTensorFunctions).
  void reportHelper(const Expr &Dropped,
                    const ast_matchers::MatchFinder::MatchResult &Result);

  UserCodeMatchFinder UserCode{*this};
  PureTensorFunctions Helpers;
  /// One diagnostic per call (a macro expanded twice, instantiations).
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch

#endif
