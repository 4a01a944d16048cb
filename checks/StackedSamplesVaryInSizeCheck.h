//===--- StackedSamplesVaryInSizeCheck.h -----------------------*- C++ -*-===//
//
// torch-stacked-samples-vary-in-size
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_STACKEDSAMPLESVARYINSIZECHECK_H
#define TORCH_TIDY_CHECKS_STACKEDSAMPLESVARYINSIZECHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Finds data sets mapped with torch::data::transforms::Stack<>() whose get()
/// returns a data or target tensor with sizes taken from the sample itself
/// (an image's rows and columns, a sequence's length) with no resize or pad
/// to fixed sizes on every path: the first batch with two different sizes
/// throws "stack expects each tensor to be equal size".
class StackedSamplesVaryInSizeCheck : public ClangTidyCheck {
public:
  StackedSamplesVaryInSizeCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { forgetTranslationUnit(); }
  void onEndOfTranslationUnit() override { forgetTranslationUnit(); }

private:
  void forgetTranslationUnit() {
    Analysed.clear();
    Reported.clear();
    Parents.clear();
  }

  UserCodeMatchFinder UserCode{*this};
  /// Each get() is reported once, at its first Stack<>() use.
  llvm::DenseSet<const FunctionDecl *> Analysed;
  /// Two instantiations of a class template's get() share their locations.
  llvm::DenseSet<SourceLocation> Reported;
  BodyParents Parents;
};

} // namespace clang::tidy::torch

#endif
