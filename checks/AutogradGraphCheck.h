//===--- AutogradGraphCheck.h - base of the graph checks -------*- C++ -*-===//
//
// The shape the checks over the autograd model share: select the user's
// functions (and lambdas) whose body has a statement of interest, get each
// one's AutogradFlow (computed once per translation unit, whichever check
// asks first), and report what the model found. A check derived from it says
// only which statements make a function interesting and what to report.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_AUTOGRADGRAPHCHECK_H
#define TORCH_TIDY_CHECKS_AUTOGRADGRAPHCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/analysis/AutogradFlow.h"
#include "utils/libtorch/UserCodeMatchFinder.h"

namespace clang::tidy::torch {

class AutogradGraphCheck : public ClangTidyCheck {
public:
  AutogradGraphCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) final {
    Functions.registerMatchers(UserCode, functionFilter());
    UserCode.registerWith(*Finder);
  }
  void check(const ast_matchers::MatchFinder::MatchResult &Result) final {
    if (UserCode.handles(Result))
      return;
    if (const AutogradFlow *Flow = Functions.analysisOf(Result))
      checkFunction(*Flow, Result);
  }
  void onStartOfTranslationUnit() final { Functions.startTranslationUnit(); }
  void onEndOfTranslationUnit() final { Functions.endTranslationUnit(); }

protected:
  /// The statements that make a function worth analysing (the analysis and
  /// its CFG are built only for those).
  virtual ast_matchers::StatementMatcher functionFilter() const = 0;
  /// Reports what the analysis of one selected function found.
  virtual void
  checkFunction(const AutogradFlow &Flow,
                const ast_matchers::MatchFinder::MatchResult &Result) = 0;

private:
  AutogradFunctions Functions;
  /// The check's matchers, run over the user's code only.
  UserCodeMatchFinder UserCode{*this};
};

} // namespace clang::tidy::torch

#endif
