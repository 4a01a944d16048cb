//===--- EvalLoopWithoutNoGradCheck.h --------------------------*- C++ -*-===//
//
// torch-eval-loop-without-no-grad
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_EVALLOOPWITHOUTNOGRADCHECK_H
#define TORCH_TIDY_CHECKS_EVALLOOPWITHOUTNOGRADCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Regex.h"

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
  void onStartOfTranslationUnit() override {
    ReportedLoops.clear();
    GuardedBlocks.clear();
  }

private:
  const std::string EvaluationFunctionRegex;
  llvm::Regex EvaluationFunction;
  /// One diagnostic per evaluation loop (keyed by the loop's location, so a
  /// template's instantiations share it).
  llvm::DenseSet<SourceLocation> ReportedLoops;
  /// Blocks a fix-it already inserts a guard into (keyed by location).
  llvm::DenseSet<SourceLocation> GuardedBlocks;
};

} // namespace clang::tidy::torch

#endif
