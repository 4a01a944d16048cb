//===--- MissingZeroGradCheck.h --------------------------------*- C++ -*-===//
//
// torch-missing-zero-grad
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_MISSINGZEROGRADCHECK_H
#define TORCH_TIDY_CHECKS_MISSINGZEROGRADCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/analysis/Paths.h"
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
  /// A clearing of the stepped optimizer's gradients that an iteration of
  /// \p Loop runs after a backward pass and before \p Step with no backward
  /// pass in between (a path query on \p Fn's CFG); null if none.
  const Stmt *clearingBeforeStep(const CallExpr &Step, const Stmt &Loop,
                                 const FunctionDecl &Fn, BodyPaths &Paths);
  /// True if \p S clears gradients, directly or in a helper; with \p
  /// Stepped, only a direct clearing that may reach that optimizer's
  /// gradients counts, and \p Other gets the first one that does not.
  /// With \p Skipped, clearings for which it returns true do not count.
  bool clearsGradients(
      const Stmt &S, unsigned Depth, const ValueDecl *Stepped = nullptr,
      const Stmt **Other = nullptr,
      llvm::function_ref<bool(const Stmt &)> Skipped = nullptr);
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
