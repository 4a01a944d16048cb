//===--- SoftmaxOverBatchDimCheck.h ----------------------------*- C++ -*-===//
//
// torch-softmax-over-batch-dim
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_SOFTMAXOVERBATCHDIMCHECK_H
#define TORCH_TIDY_CHECKS_SOFTMAXOVERBATCHDIMCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/analysis/BatchShape.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Finds softmax and log_softmax (the functions, the Tensor methods,
/// torch::nn::functional's, the torch::nn::Softmax / LogSoftmax modules)
/// taken over dimension 0 of a tensor known to be a batch of rank at least 2
/// (analysis/BatchShape.h): the probabilities are normalised across the
/// samples of the batch instead of across the classes of each sample.
class SoftmaxOverBatchDimCheck : public ClangTidyCheck {
public:
  SoftmaxOverBatchDimCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { forget(); }
  void onEndOfTranslationUnit() override { forget(); }

private:
  void forget() {
    Reported.clear();
    Events.clear();
  }
  /// A softmax over the batch dimension.
  struct Finding {
    StringRef Name;
    const Expr *Construct = nullptr;
    const Expr *Written = nullptr;
    int64_t Dim = 0;
    BatchShape Batch;
  };
  std::optional<Finding> evaluate(const CallExpr &Call,
                                  BatchShapeAnalysis &Shapes, ASTContext &Ctx);
  void report(const Finding &F, const CallExpr &Call, const CallExpr *Helper,
              const SourceManager &SM);

  /// The softmax calls in a function's body (cached).
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<const CallExpr *, 1>>
      Events;
  UserCodeMatchFinder UserCode{*this};
  /// One diagnostic per call (a macro expanded twice, a lambda).
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch

#endif
