//===--- EvalLoopWithoutNoGradCheck.h --------------------------*- C++ -*-===//
//
// torch-eval-loop-without-no-grad
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_EVALLOOPWITHOUTNOGRADCHECK_H
#define TORCH_TIDY_CHECKS_EVALLOOPWITHOUTNOGRADCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/GradMode.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/LibTorch.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Regex.h"
#include <map>
#include <vector>

namespace clang::tidy::torch {

/// Finds loops that run a module's forward in an evaluation context (the
/// function called `.eval()` on a module before the loop, or its name says it
/// evaluates) with no gradient-disabling guard active: every batch then
/// records an autograd graph and keeps its activations alive for nothing.
/// Loops that call backward() (optimising inputs through a frozen network)
/// are not flagged.
///
/// Options:
///   EvaluationFunctionRegex: names of functions that evaluate (default
///     "(?i)(eval|valid|test|infer|predict)"; a leading "(?i)" makes it
///     case-insensitive).
class EvalLoopWithoutNoGradCheck : public ClangTidyCheck {
public:
  EvalLoopWithoutNoGradCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void onStartOfTranslationUnit() override { forgetTranslationUnit(); }
  void onEndOfTranslationUnit() override {
    reportFindings();
    forgetTranslationUnit();
  }

private:
  /// The check's matchers, run over the user's code only.
  UserCodeMatchFinder UserCode{*this};
  /// What a function does, wherever its forwards are: training calls (with
  /// the function whose body holds each), module mode changes, grad mode set
  /// by hand. Computed once per function.
  struct FunctionFacts {
    llvm::SmallVector<std::pair<const CallExpr *, const FunctionDecl *>, 4>
        TrainingCalls;
    /// eval()/train() calls, and calls of helpers of the translation unit
    /// whose last mode change is one (`freeze_for_scoring(model)`).
    llvm::SmallVector<const CallExpr *, 4> ModeCalls;
    /// The calls among ModeCalls that leave a module in evaluation mode.
    llvm::SmallPtrSet<const CallExpr *, 4> LeavesEval;
    bool SetsGradMode = false;
  };
  const FunctionFacts &factsOf(const FunctionDecl &Fn, ASTContext &Ctx);
  bool trains(const Stmt &S, ASTContext &Ctx);
  /// True if the callers of \p Fn (the function around the loop) show that
  /// it is no evaluation: every call holds a gradient-disabling guard, or
  /// (when only its name made it one, \p NamedOnly) a caller backpropagates
  /// its result.
  bool callersRuleOut(const FunctionDecl &Fn, bool NamedOnly, ASTContext &Ctx);
  /// Whether the forward \p Forward, run at \p At in \p Fn (the forward
  /// itself, or the call of the helper that holds it: \p Via), is in an
  /// evaluation loop without a guard; records it (record) if so.
  /// \p Helpers: when \p At is a call of the function that holds \p Forward
  /// (directly or through other helpers), those functions, innermost first:
  /// their names count, and the innermost one's own eval() before the
  /// forward.
  void examine(const CallExpr &Forward, const CallExpr &At,
               const FunctionDecl &Fn, const CallExpr *Via, ASTContext &Ctx,
               llvm::ArrayRef<const FunctionDecl *> Helpers = {});
  /// The last mode change of \p Facts before \p At (or \p Last).
  static const CallExpr *lastModeCallBefore(const FunctionFacts &Facts,
                                            const Stmt &At,
                                            const SourceManager &SM,
                                            const CallExpr *Last = nullptr);
  /// A forward run in an evaluation loop without a guard. Each loop is
  /// reported once, after the whole translation unit is seen (so that the
  /// order functions are visited in does not matter), where the user acts:
  /// at the first forward the loop runs itself, else at the first call in
  /// the loop that reaches a forward through helpers (At), with the helper's
  /// forward in a note.
  struct Finding {
    const CallExpr *Forward = nullptr; ///< The module forward.
    const CallExpr *At = nullptr;      ///< Forward, or the call in the loop.
    const Stmt *EvalLoop = nullptr;
    const CallExpr *EvalCall = nullptr;
    const FunctionDecl *Fn = nullptr; ///< The function whose body holds At.
    bool Via = false;                 ///< At reaches Forward through helpers.
  };
  void record(const Finding &F, const SourceManager &SM);
  void reportFindings();
  void report(const Finding &F, ASTContext &Ctx);
  void forgetTranslationUnit();

  const std::string EvaluationFunctionRegex;
  llvm::Regex EvaluationFunction;
  /// One finding per evaluation loop (keyed by the loop's location, so a
  /// template's instantiations share it), in the order first found.
  llvm::DenseMap<SourceLocation, unsigned> FindingOfLoop;
  std::vector<Finding> Findings;
  ASTContext *Context = nullptr;
  /// Blocks a fix-it already inserts a guard into (keyed by location).
  llvm::DenseSet<SourceLocation> GuardedBlocks;
  /// Per translation unit: parents inside the bodies walked, each function's
  /// facts, whether a statement contains a training call.
  BodyParents Parents;
  GradModeAnalysis GradMode{Parents};
  /// Node-based: factsOf of a helper runs while its caller's entry is filled.
  std::map<const FunctionDecl *, FunctionFacts> Facts;
  llvm::DenseMap<const Stmt *, bool> Trains;
};

} // namespace clang::tidy::torch

#endif
