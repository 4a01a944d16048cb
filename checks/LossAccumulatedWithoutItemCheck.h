//===--- LossAccumulatedWithoutItemCheck.h ---------------------*- C++ -*-===//
//
// torch-loss-accumulated-without-item
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_LOSSACCUMULATEDWITHOUTITEMCHECK_H
#define TORCH_TIDY_CHECKS_LOSSACCUMULATEDWITHOUTITEMCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/GradMode.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Finds training loops (loops that call backward() or an optimizer's step())
/// that add a tensor with autograd history to an accumulator that outlives the
/// iteration: `acc += loss`, `acc = acc + loss`, `acc.add_(loss)`,
/// `vec.push_back(loss)` / `emplace_back`. Each iteration's graph then stays
/// alive through the accumulator and memory grows until the process runs out.
/// Summing terms into a tensor that is itself backpropagated (a multi-term
/// loss) is not flagged, nor is anything under a no-grad guard.
class LossAccumulatedWithoutItemCheck : public ClangTidyCheck {
public:
  LossAccumulatedWithoutItemCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { forgetTranslationUnit(); }
  void onEndOfTranslationUnit() override { forgetTranslationUnit(); }

private:
  /// The check's matchers, run over the user's code only.
  UserCodeMatchFinder UserCode{*this};
  /// Templates are checked in every instantiation (a dependent accumulation is
  /// only resolved there); each source location is reported once.
  llvm::DenseSet<SourceLocation> Reported;
  /// Per translation unit: parents inside the bodies walked, and whether a
  /// loop contains a training call.
  BodyParents Parents;
  GradModeAnalysis GradMode{Parents};
  llvm::DenseMap<const Stmt *, bool> Trains;
  void forgetTranslationUnit();
  /// For an accumulation outside any training loop, in a helper \p Fn that
  /// stores its tensor parameter \p Value into a member or global \p Acc: a
  /// call of the helper from a training loop that passes a tensor with
  /// history (and does not backpropagate the accumulator); null if none.
  /// A call of \p Fn, a helper that accumulates into a member of its object
  /// or a global (\p Acc) with no loop around \p Accumulation, from a
  /// training loop (on an object that outlives the loop).
  const CallSite *trainingLoopCallerOf(const Expr &Acc,
                                       const Expr &Accumulation,
                                       const FunctionDecl &Fn, ASTContext &Ctx);
  const CallSite *trainingLoopCallerPassing(const Expr &Value, const Expr &Acc,
                                            const FunctionDecl &Fn,
                                            ASTContext &Ctx);
  void addDetachFixIt(DiagnosticBuilder &Diag, const Expr &Value,
                      ASTContext &Ctx);
};

} // namespace clang::tidy::torch

#endif
