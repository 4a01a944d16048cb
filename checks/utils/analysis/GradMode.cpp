//===--- GradMode.cpp - is gradient recording off at a point? -------------===//

#include "utils/analysis/GradMode.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::torch {

namespace {

bool isGuard(const VarDecl *VD) {
  return VD && gradModeEffectOf(*VD) != GradModeEffect::None;
}

} // namespace

bool GradModeAnalysis::declaresGuard(const FunctionDecl &Fn) {
  auto [It, Inserted] = DeclaresGuard.try_emplace(&Fn, false);
  if (!Inserted)
    return It->second;
  bool Found = llvm::any_of(Fn.parameters(), isGuard);
  if (!Found && Fn.getBody())
    forEachStmt(Fn.getBody(), [&](const Stmt &S) {
      if (Found)
        return;
      if (const auto *DS = dyn_cast<DeclStmt>(&S))
        Found = llvm::any_of(DS->decls(), [](const Decl *D) {
          return isGuard(dyn_cast<VarDecl>(D));
        });
      else if (const auto *Lambda = dyn_cast<LambdaExpr>(&S))
        Found = llvm::any_of(Lambda->getCallOperator()->parameters(), isGuard);
    });
  // The map may have grown meanwhile: look the slot up again.
  DeclaresGuard[&Fn] = Found;
  return Found;
}

bool GradModeAnalysis::isOffAt(const Stmt &S, const FunctionDecl &Fn) {
  const FunctionDecl *Outer = outermostFunction(S, Fn, Parents);
  if (Outer && !declaresGuard(*Outer))
    return false;
  const auto Guards = visibleLocalVariables(
      S, Fn, Parents, [](const VarDecl &VD) { return isGuard(&VD); },
      /*CrossLambdas=*/true);
  if (Guards.empty())
    return false;
  return gradModeEffectOf(*Guards.front()) != GradModeEffect::Enables;
}

bool GradModeAnalysis::recordsNothing(const FunctionDecl &Fn) {
  const FunctionDecl *Def = Fn.getDefinition();
  if (!Def || !Def->getBody() || !declaresGuard(*Def))
    return false;
  bool Computes = false, Records = false;
  forEachStmt(Def->getBody(), [&](const Stmt &S) {
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (Records || !Call || !isTensorType(Call->getType()))
      return;
    Computes = true;
    Records = !isOffAt(*Call, *Def);
  });
  return Computes && !Records;
}

} // namespace clang::tidy::torch
