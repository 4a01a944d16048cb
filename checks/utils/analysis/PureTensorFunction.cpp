//===--- PureTensorFunction.cpp - functions that only compute tensors ----===//

#include "utils/analysis/PureTensorFunction.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

namespace clang::tidy::torch {

namespace {

bool isLibTorchDecl(const Decl *D) {
  return D && isInLibTorchHeader(D->getLocation(),
                                 D->getASTContext().getSourceManager());
}

/// A variable an expression may read: a local or parameter, or a constant.
bool isReadableVariable(const VarDecl &VD) {
  return VD.hasLocalStorage() || VD.isConstexpr() ||
         VD.getType().isConstQualified();
}

bool isPureExpr(const Expr *E);

bool allPure(const Stmt *S) {
  for (const Stmt *Child : S->children())
    if (Child && (!isa<Expr>(Child) || !isPureExpr(cast<Expr>(Child))))
      return false;
  return true;
}

bool isPureExpr(const Expr *E) {
  if (!E)
    return true;
  E = E->IgnoreParens();
  if (isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr, StringLiteral,
          CharacterLiteral, CXXNullPtrLiteralExpr, CXXDefaultArgExpr,
          ImplicitValueInitExpr, SizeOfPackExpr, UnaryExprOrTypeTraitExpr>(E))
    return true;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = Ref->getDecl();
    if (isa<EnumConstantDecl>(D))
      return true;
    const auto *VD = dyn_cast<VarDecl>(D);
    return VD && isReadableVariable(*VD);
  }
  if (isa<ImplicitCastExpr, ExplicitCastExpr, MaterializeTemporaryExpr,
          CXXBindTemporaryExpr, ExprWithCleanups, InitListExpr,
          CXXStdInitializerListExpr, ConstantExpr, ArraySubscriptExpr>(E))
    return allPure(E);
  if (const auto *Unary = dyn_cast<UnaryOperator>(E))
    return !Unary->isIncrementDecrementOp() && isPureExpr(Unary->getSubExpr());
  if (const auto *Binary = dyn_cast<BinaryOperator>(E))
    return !Binary->isAssignmentOp() && isPureExpr(Binary->getLHS()) &&
           isPureExpr(Binary->getRHS());
  if (const auto *Cond = dyn_cast<ConditionalOperator>(E))
    return allPure(Cond);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    // A LibTorch or standard type (Scalar, optional, IntArrayRef, a vector of
    // sizes), never a user's constructor.
    return !isInUserCode(Construct->getConstructor()->getLocation(),
                         Construct->getConstructor()
                             ->getASTContext()
                             .getSourceManager()) &&
           allPure(Construct);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    // Tensor arithmetic and comparisons; no assignment of any kind.
    if (Op->isAssignmentOp() || !isLibTorchDecl(Op->getCalleeDecl()))
      return false;
    switch (Op->getOperator()) {
    case OO_Plus:
    case OO_Minus:
    case OO_Star:
    case OO_Slash:
    case OO_Less:
    case OO_Greater:
    case OO_LessEqual:
    case OO_GreaterEqual:
    case OO_EqualEqual:
    case OO_ExclaimEqual:
    case OO_Subscript:
      return llvm::all_of(Op->arguments(), isPureExpr);
    default:
      return false;
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    std::optional<LibTorchCall> C = asLibTorchCall(Call);
    const OpInfo *Info = C ? lookupOp(C->Name) : nullptr;
    if (!Info || !isOutOfPlace(*Info) ||
        isa_and_nonnull<CXXDependentScopeMemberExpr>(C->Member))
      return false;
    return isPureExpr(C->Object) && llvm::all_of(Call->arguments(), isPureExpr);
  }
  return false;
}

bool isPureBody(const Stmt *Body) {
  const auto *Block = dyn_cast_or_null<CompoundStmt>(Body);
  if (!Block || Block->body_empty() || !isa<ReturnStmt>(Block->body_back()))
    return false;
  for (const Stmt *S : Block->body()) {
    if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
      if (S != Block->body_back() || !isPureExpr(Ret->getRetValue()))
        return false;
      continue;
    }
    const auto *Decls = dyn_cast<DeclStmt>(S);
    if (!Decls)
      return false;
    for (const Decl *D : Decls->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || !VD->hasLocalStorage() || !isPureExpr(VD->getInit()))
        return false;
    }
  }
  return true;
}

} // namespace

bool PureTensorFunctions::isPure(const FunctionDecl &Fn) {
  auto [It, Inserted] = Cache.try_emplace(&Fn, false);
  if (!Inserted)
    return It->second;
  const FunctionDecl *Def = nullptr;
  if (!Fn.hasBody(Def) || !Def || Def->isDependentContext() ||
      !isTensorType(Def->getReturnType()) ||
      Def->getReturnType()->isReferenceType() ||
      !isInUserCode(Def->getLocation(),
                    Def->getASTContext().getSourceManager()))
    return false;
  const bool Pure = isPureBody(Def->getBody());
  Cache[&Fn] = Pure;
  return Pure;
}

} // namespace clang::tidy::torch
