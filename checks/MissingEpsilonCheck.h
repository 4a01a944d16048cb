//===--- MissingEpsilonCheck.h - torch-missing-epsilon --------------------===//

#ifndef TORCH_TIDY_CHECKS_MISSINGEPSILONCHECK_H
#define TORCH_TIDY_CHECKS_MISSINGEPSILONCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/analysis/GradMode.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/Support/Regex.h"

namespace clang::tidy::torch {

/// Finds LibTorch operations whose value or gradient is infinite at a boundary
/// input, applied to an argument that nothing keeps away from that boundary:
/// sqrt, rsqrt, fractional, negative and reciprocal powers, log, log2, log10
/// (at 0), acos and asin (at -1 and 1), and division by a norm, a reduction,
/// a square root or a product of those. The argument is analysed as written
/// and through local variables (see utils/analysis/BoundaryGuard.h).
///
/// Options:
///   EpsilonLiteral: the epsilon the fix-its add (default "1e-8").
///   ClampEpsilonLiteral: the margin of the acos/asin fix-it,
///     clamp(-1 + m, 1 - m) (default "1e-6": 1 - 1e-8 rounds to 1 in float32).
///   EpsilonNames: regular expression (case-insensitive) for the names of
///     epsilon-like variables, members and accessors that count as a guard.
///   StrictMode: also flag arguments whose origin is not visible
///     (parameters, members, results of user functions); default false.
class MissingEpsilonCheck : public ClangTidyCheck {
public:
  MissingEpsilonCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;

private:
  class Site;
  const FunctionDecl *enclosingFunction(const CallExpr &Call,
                                        const SourceManager &SM) const;

  /// The check's matchers, run over the user's code only.
  UserCodeMatchFinder UserCode{*this};
  const std::string EpsilonLiteral;
  const std::string ClampEpsilonLiteral;
  const std::string EpsilonNames;
  const bool StrictMode;
  llvm::Regex EpsilonNamesRegex;
  /// Function definitions in user code, in traversal order.
  std::vector<const FunctionDecl *> Functions;
  /// Per translation unit: parents inside the bodies walked, and the
  /// grad-mode guards in scope.
  BodyParents Parents;
  GradModeAnalysis GradMode{Parents};
};

} // namespace clang::tidy::torch

#endif
