//===--- EvalModeNotRestoredCheck.h ----------------------------*- C++ -*-===//
//
// torch-eval-mode-not-restored
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_EVALMODENOTRESTOREDCHECK_H
#define TORCH_TIDY_CHECKS_EVALMODENOTRESTOREDCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch {

/// Finds a module put into eval() inside a training loop (for validation)
/// that a later iteration trains again (a forward of the same module, with a
/// backward pass or an optimizer step in the loop) without train() on some
/// path in between: dropout and batch norm then train in inference mode.
/// A function of the translation unit that calls eval() or train() on a
/// parameter (or on a member, called on the same object) counts as calling
/// it on the argument.
class EvalModeNotRestoredCheck : public ClangTidyCheck {
public:
  EvalModeNotRestoredCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { forgetTranslationUnit(); }
  void onEndOfTranslationUnit() override { forgetTranslationUnit(); }

  /// What a call does to a module's mode, in order.
  struct ModeEvent {
    /// FromParam: `m.train(flag)` with the function's bool parameter
    /// \c Param (negated when `!flag`): eval() or train() as each caller
    /// passes it.
    enum Kind { Eval, Train, Forward, FromParam } What;
    /// The module (a variable, parameter or member).
    const ValueDecl *Model;
    /// The eval() call itself (in this function or in a helper it calls).
    const CallExpr *Site;
    unsigned Param = 0;
    bool Negated = false;
    /// For an eval() a call asks for with its argument (Site is that call):
    /// the `m.train(flag)` that sets it.
    const CallExpr *SetBy = nullptr;
  };
  /// What a function does, in its own code (lambda bodies excluded), per
  /// call: mode changes and forwards on modules; whether it trains.
  struct Facts {
    llvm::DenseMap<const CallExpr *, llvm::SmallVector<ModeEvent, 2>> Events;
    llvm::SmallVector<const CallExpr *, 8> Order;
    /// Calls that train (backward, step, or a helper that trains).
    llvm::SmallVector<const CallExpr *, 4> Training;
  };

private:
  const Facts &factsOf(const FunctionDecl &Fn);
  /// The effects a call of \p Fn has on modules that are its parameters or
  /// members, in order; and whether it trains.
  llvm::SmallVector<ModeEvent, 2> summaryOf(const FunctionDecl &Fn,
                                            bool &Trains);
  void forgetTranslationUnit();

  UserCodeMatchFinder UserCode{*this};
  BodyParents Parents;
  llvm::DenseMap<const FunctionDecl *, Facts> FactsCache;
  llvm::SmallPtrSet<const FunctionDecl *, 4> InProgress;
  /// One diagnostic per eval() call (a template is checked once; a helper
  /// called from several loops).
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch

#endif
