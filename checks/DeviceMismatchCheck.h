//===--- DeviceMismatchCheck.h - torch-device-mismatch ---------*- C++ -*-===//
//
// torch-device-mismatch
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_DEVICEMISMATCHCHECK_H
#define TORCH_TIDY_CHECKS_DEVICEMISMATCHCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/analysis/DevicePlacement.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseSet.h"
#include <memory>
#include <optional>

namespace clang::tidy::torch {

/// Finds a module moved to a device that may be a GPU (`model->to(device)`,
/// torch::jit::load(path, device)) that is called with, or whose output is
/// combined in a loss with, a tensor made on the CPU (a factory without a
/// device, torch::tensor, from_blob, a data loader batch, torch::load without
/// a device) and never moved: on a GPU the call throws "Expected all tensors
/// to be on the same device".
class DeviceMismatchCheck : public ClangTidyCheck {
public:
  DeviceMismatchCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { forgetTranslationUnit(); }
  void onEndOfTranslationUnit() override { forgetTranslationUnit(); }

private:
  void forgetTranslationUnit();
  /// Reports \p Arg, a tensor the module on \p Move's device receives, when
  /// it is on the CPU.
  void reportIfOnCpu(const Expr &Arg, const DevicePlacement::Move &Move,
                     const ValueDecl &Module, const CallExpr &Use,
                     const FunctionDecl &Fn, bool InLoss,
                     ASTContext &Ctx);

  /// The forward whose output a loss's prediction is: a module call of this
  /// function, or a call of a helper of the user's that returns its module
  /// parameter's output (Inner: the forward in the helper).
  struct ForwardSite {
    const CallExpr *Site = nullptr;
    const ValueDecl *Module = nullptr;
    const CallExpr *Inner = nullptr;
  };
  std::optional<ForwardSite> forwardSiteOf(const Expr *Prediction,
                                           const FunctionDecl &Fn,
                                           ASTContext &Ctx);
  /// A call of a function of the user's whose forwards receive, given the
  /// caller's arguments, a tensor on the CPU while the module was moved: the
  /// finding is the call's (the argument's), with notes in the helper.
  void checkHelperCall(const CallExpr &Call, const FunctionDecl &Fn,
                       ASTContext &Ctx);

  UserCodeMatchFinder UserCode{*this};
  std::unique_ptr<DevicePlacement> Placement;
  BodyParents Parents;
  /// One diagnostic per argument (a macro expanded twice, a lambda).
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch

#endif
