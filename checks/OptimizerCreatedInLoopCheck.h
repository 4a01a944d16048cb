//===--- OptimizerCreatedInLoopCheck.h -------------------------*- C++ -*-===//
//
// torch-optimizer-created-in-loop
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_OPTIMIZERCREATEDINLOOPCHECK_H
#define TORCH_TIDY_CHECKS_OPTIMIZERCREATEDINLOOPCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Finds torch::optim optimizers (any class derived from
/// torch::optim::Optimizer) constructed inside a training loop (a loop that
/// steps an optimizer) over the parameters of a model that outlives the loop:
/// every iteration starts from fresh optimizer state (Adam's moments and step
/// count, momentum buffers), which silently turns Adam into a sign-like
/// update of constant size and momentum SGD into plain SGD. Constructions
/// through `new`, `std::make_unique` and `std::make_shared` count. Not
/// flagged: a model constructed (or reassigned) in the same iteration, an
/// optimizer created under a condition and stored outside the loop (created
/// once), plain SGD without momentum (it keeps no state), loops without a
/// step().
class OptimizerCreatedInLoopCheck : public ClangTidyCheck {
public:
  OptimizerCreatedInLoopCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { forgetTranslationUnit(); }
  void onEndOfTranslationUnit() override { forgetTranslationUnit(); }

private:
  /// One construction of an optimizer, as written.
  struct Construction {
    const Stmt *At;
    SourceLocation Loc;
    const CXXRecordDecl *Class;
    /// The arguments as written (the parameters first).
    llvm::SmallVector<const Expr *, 2> Args;
    bool StaticLocal = false;
  };
  void examine(const Construction &C, const FunctionDecl &Fn,
               const SourceManager &SM);
  /// \p C, in no loop of \p Fn, on the parameters of what \p Fn receives
  /// or of its members: reported when a call of \p Fn sits in a training
  /// loop that keeps handing it the same model.
  /// \p Lambda, when set, is the lambda of \p Fn whose body holds \p C:
  /// the helper is its call operator.
  void examineThroughCalls(const Construction &C, const FunctionDecl &Fn,
                           const SourceManager &SM,
                           const LambdaExpr *Lambda = nullptr);
  void forgetTranslationUnit() {
    Parents.clear();
    Reported.clear();
  }

  UserCodeMatchFinder UserCode{*this};
  BodyParents Parents;
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch

#endif
