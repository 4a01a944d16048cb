//===--- MissingZeroGradCheck.h --------------------------------*- C++ -*-===//
//
// torch-missing-zero-grad
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_MISSINGZEROGRADCHECK_H
#define TORCH_TIDY_CHECKS_MISSINGZEROGRADCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Finds training loops that call backward() and an optimizer's step() but
/// clear gradients nowhere in the loop (zero_grad() on an optimizer or a
/// module, zero_()/reset() on a parameter's gradient, or a helper of the same
/// translation unit that does): backward() adds to the gradients of every
/// earlier iteration, so each step uses the sum of all gradients so far.
/// A step() or clearing under a condition inside the loop (accumulation over
/// k batches) is deliberate and not flagged.
class MissingZeroGradCheck : public ClangTidyCheck {
public:
  MissingZeroGradCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { forgetTranslationUnit(); }
  void onEndOfTranslationUnit() override { forgetTranslationUnit(); }

private:
  /// \p Step has no loop around it in \p Helper (a function, or a lambda's
  /// call operator; \p WalkFn is the function whose body holds it): reports
  /// it when a training loop calls the helper and nothing clears.
  void checkStepInHelper(const CallExpr &Step, const FunctionDecl &Helper,
                         const FunctionDecl &WalkFn);
  /// A statement of the block that holds \p Step, after the block's last
  /// backward pass before the step, that clears gradients; null if none.
  const Stmt *clearingBeforeStep(const CallExpr &Step, const Stmt &Loop,
                                 const FunctionDecl &Fn);
  /// True if \p S clears gradients, directly or in a helper; with \p
  /// Stepped, only a direct clearing that may reach that optimizer's
  /// gradients counts, and \p Other gets the first one that does not.
  /// With \p Skipped, clearings for which it returns true do not count.
  bool clearsGradients(
      const Stmt &S, unsigned Depth, const ValueDecl *Stepped = nullptr,
      const Stmt **Other = nullptr,
      llvm::function_ref<bool(const Stmt &)> Skipped = nullptr);
  /// True if \p Clearing (in \p Loop of \p Fn) is in a branch that leaves
  /// the iteration (`if (!finite) { opt.zero_grad(); continue; }`) and
  /// \p Step is not: the iterations that reach the step do not clear.
  bool clearsOnlySkippedIterations(const Stmt &Clearing, const Stmt &Loop,
                                   const CallExpr &Step,
                                   const FunctionDecl &Fn);
  bool functionClearsGradients(const FunctionDecl &F, unsigned Depth);
  void forgetTranslationUnit();

  UserCodeMatchFinder UserCode{*this};
  BodyParents Parents;
  const SourceManager *CurrentSM = nullptr;
  /// Whether a function's body clears gradients (helpers called in a loop).
  llvm::DenseMap<const FunctionDecl *, bool> Clears;
  /// One diagnostic per training loop.
  llvm::DenseSet<const Stmt *> ReportedLoops;
};

} // namespace clang::tidy::torch

#endif
