//===--- LoopEscape.cpp - does a tensor outlive its loop iteration? -------===//
//
// See LoopEscape.h.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/LoopEscape.h"
#include "utils/analysis/AccessPath.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace clang::tidy::torch {

namespace {

/// A value that may hold tensors: not a plain number, bool or pointer-free
/// scalar read out of one.
bool mayHoldTensors(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (T.isNull() || T->isVoidType())
    return false;
  return !(T->isArithmeticType() || T->isEnumeralType() || T->isPointerType());
}

class Follower {
public:
  Follower(const Expr &Value, const Stmt &Loop) : Value(Value), Loop(Loop) {}

  bool run() {
    // Variables computed from the value can appear after their first use
    // in source order only through loops inside the body: a few passes.
    for (unsigned Pass = 0; Pass < 4 && !Escapes; ++Pass) {
      const size_t Before = Derived.size();
      forEachStmt(&Loop, [&](const Stmt &S) { inspect(S); });
      if (Derived.size() == Before)
        break;
    }
    return !Escapes;
  }

private:
  bool declaredInLoop(const ValueDecl *D) const {
    const auto *VD = dyn_cast_or_null<VarDecl>(D);
    if (!VD || !VD->hasLocalStorage() || VD->getType()->isReferenceType())
      return false;
    const SourceRange R = Loop.getSourceRange();
    const SourceLocation L = VD->getLocation();
    return L.isValid() && R.getBegin() <= L && L <= R.getEnd() &&
           !isa<ParmVarDecl>(VD);
  }

  /// \p E computes a tensor from the value (and may hold one).
  bool mentions(const Expr *E) const {
    if (!E || !mayHoldTensors(E->getType()))
      return false;
    bool Found = false;
    forEachStmt(E, [&](const Stmt &S) {
      if (Found)
        return;
      if (&S == &Value)
        Found = true;
      else if (const auto *Ref = dyn_cast<DeclRefExpr>(&S))
        Found = Derived.contains(Ref->getDecl());
    });
    return Found;
  }

  void store(const Expr *Target) {
    const ValueDecl *Root = nullptr;
    if (std::optional<AccessPath> P = Target ? accessPathOf(*Target)
                                             : std::nullopt)
      Root = P->RootIsThis ? nullptr : P->Root;
    if (declaredInLoop(Root))
      Derived.insert(Root);
    else
      Escapes = true;
  }

  void inspect(const Stmt &S) {
    if (Escapes)
      return;
    if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D);
            VD && VD->getInit() && mentions(VD->getInit())) {
          // A non-const reference may name storage outside the loop.
          if (VD->getType()->isReferenceType() &&
              !VD->getType().getNonReferenceType().isConstQualified())
            Escapes = true;
          Derived.insert(VD);
        }
      return;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(&S)) {
      if (BO->isAssignmentOp() && mentions(BO->getRHS()))
        store(BO->getLHS());
      return;
    }
    if (const auto *Lambda = dyn_cast<LambdaExpr>(&S)) {
      for (const LambdaCapture &C : Lambda->captures())
        if (C.capturesVariable() && Derived.contains(C.getCapturedVar()))
          Escapes = true;
      if (Lambda->getCaptureDefault() != LCD_None)
        forEachStmt(Lambda->getBody(), [&](const Stmt &Inner) {
          if (const auto *Ref = dyn_cast<DeclRefExpr>(&Inner);
              Ref && Derived.contains(Ref->getDecl()))
            Escapes = true;
        });
      return;
    }
    if (const auto *Ret = dyn_cast<ReturnStmt>(&S)) {
      if (mentions(Ret->getRetValue()))
        Escapes = true;
      return;
    }
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (!Call)
      return;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
      if (mentions(Op->getArg(1)))
        store(Op->getArg(0));
      return;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
        Member && isContainerInsertion(*Member)) {
      for (const Expr *Arg : Member->arguments())
        if (mentions(Arg)) {
          store(Member->getImplicitObjectArgument());
          return;
        }
      return;
    }
    // An in-place operation writes what its arguments compute into its
    // object (`acc.mul_(gate)`, `preds.index_put_({i}, p)`, `dst.copy_(y)`).
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      if (M && M->getIdentifier() && M->getName().ends_with("_")) {
        for (const Expr *Arg : Member->arguments())
          if (mentions(Arg)) {
            store(Member->getImplicitObjectArgument());
            return;
          }
        return;
      }
    }
    if (isBackwardCall(*Call) || isAutogradGradCall(*Call)) {
      if (const Expr *Object = callObject(*Call); Object && mentions(Object))
        Escapes = true;
      for (const Expr *Arg : Call->arguments())
        if (mentions(Arg))
          Escapes = true;
      return;
    }
    // LibTorch's operations and forwards compute new tensors (followed as
    // part of the expression they are in); printing reads.
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (asLibTorchCall(Call) || isModuleForwardCall(*Call) ||
        (Callee && (isLibTorchFunction(Callee) || Callee->isInStdNamespace())))
      return;
    if (isa<CXXOperatorCallExpr>(Call) &&
        cast<CXXOperatorCallExpr>(Call)->getOperator() == OO_LessLess)
      return;
    for (const Expr *Arg : Call->arguments())
      if (mentions(Arg))
        Escapes = true;
  }

  const Expr &Value;
  const Stmt &Loop;
  llvm::SmallPtrSet<const ValueDecl *, 8> Derived;
  bool Escapes = false;
};

} // namespace

bool tensorStaysInIteration(const Expr &Value, const Stmt &Loop) {
  return Follower(Value, Loop).run();
}

} // namespace clang::tidy::torch
