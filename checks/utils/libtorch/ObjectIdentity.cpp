//===--- ObjectIdentity.cpp - which module or optimizer object? -----------===//

#include "utils/libtorch/ObjectIdentity.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxDepth = 4;

bool isSmartPointer(const CXXRecordDecl *RD) {
  return RD && RD->getIdentifier() && RD->isInStdNamespace() &&
         (RD->getName() == "shared_ptr" || RD->getName() == "unique_ptr");
}

bool isSharedPointer(const CXXRecordDecl *RD) {
  return RD && RD->getIdentifier() && RD->isInStdNamespace() &&
         RD->getName() == "shared_ptr";
}

const CXXRecordDecl *classOf(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (const auto *PT = T->getAs<PointerType>())
    T = PT->getPointeeType();
  return T->getAsCXXRecordDecl();
}

/// A module holder class, or one derived from it (TORCH_MODULE(Net)).
bool isHolderClass(const CXXRecordDecl *RD, unsigned Depth = 0) {
  if (!RD || Depth > 8)
    return false;
  if (isModuleHolder(*RD))
    return true;
  if (!(RD = RD->getDefinition()))
    return false;
  for (const CXXBaseSpecifier &Base : RD->bases())
    if (isHolderClass(Base.getType()->getAsCXXRecordDecl(), Depth + 1))
      return true;
  return false;
}

/// A type whose copies refer to one object: a reference, a raw pointer, a
/// std::shared_ptr, a module holder (it holds a shared_ptr to its module).
bool isHandleType(QualType T) {
  if (T->isReferenceType() || T->isPointerType())
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  return isSharedPointer(RD) || isHolderClass(RD);
}

/// True if \p V is given another value somewhere in its function after its
/// declaration: assigned, reset, swapped (a reference cannot be rebound).
bool isRebound(const VarDecl &V) {
  if (V.getType()->isReferenceType())
    return false;
  const auto *Fn = dyn_cast_or_null<FunctionDecl>(V.getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return true;
  auto Names = [&](const Expr *E) {
    return E && isa<DeclRefExpr>(E->IgnoreParenImpCasts()) &&
           cast<DeclRefExpr>(E->IgnoreParenImpCasts())->getDecl() == &V;
  };
  bool Found = false;
  forEachStmt(Fn->getBody(), [&](const Stmt &S) {
    if (Found)
      return;
    if (const auto *B = dyn_cast<BinaryOperator>(&S))
      Found = B->isAssignmentOp() && Names(B->getLHS());
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S))
      Found = Op->isAssignmentOp() && Op->getNumArgs() > 0 &&
              Names(Op->getArg(0));
    else if (const auto *U = dyn_cast<UnaryOperator>(&S))
      Found = (U->getOpcode() == UO_AddrOf || U->isIncrementDecrementOp()) &&
              Names(U->getSubExpr());
    else if (const auto *M = dyn_cast<CXXMemberCallExpr>(&S)) {
      const CXXMethodDecl *MD = M->getMethodDecl();
      Found = MD && MD->getIdentifier() &&
              (MD->getName() == "reset" || MD->getName() == "swap") &&
              isSmartPointer(MD->getParent()) &&
              Names(M->getImplicitObjectArgument());
    }
    if (Found)
      return;
    // Handed by non-const reference (`std::swap(a, b)`, `init(opt)`).
    if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      const FunctionDecl *F = Call->getDirectCallee();
      const unsigned First =
          isa<CXXOperatorCallExpr>(Call) && isa_and_nonnull<CXXMethodDecl>(F)
              ? 1
              : 0;
      for (unsigned I = First; F && I < Call->getNumArgs() && !Found; ++I) {
        const unsigned P = I - First;
        if (P >= F->getNumParams() || !Names(Call->getArg(I)))
          continue;
        QualType T = F->getParamDecl(P)->getType();
        Found = T->isLValueReferenceType() &&
                !T.getNonReferenceType().isConstQualified();
      }
    }
  });
  return Found;
}

/// The one returned expression of an accessor (`return *m_optimizer;`).
const Expr *accessorResult(const CallExpr &Call) {
  const FunctionDecl *F = Call.getDirectCallee();
  const FunctionDecl *Def = nullptr;
  if (!F || !F->hasBody(Def) || !Def || Def->getNumParams() != 0)
    return nullptr;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  if (!Body || Body->size() != 1)
    return nullptr;
  const auto *Ret = dyn_cast<ReturnStmt>(Body->body_front());
  return Ret ? Ret->getRetValue() : nullptr;
}

const ValueDecl *resolve(const Expr *E, unsigned Depth) {
  while (E && Depth <= MaxDepth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E)) {
      E = Cleanups->getSubExpr();
      continue;
    }
    if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = Temp->getSubExpr();
      continue;
    }
    if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = Bind->getSubExpr();
      continue;
    }
    // A copy or move of a handle: the same object.
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      const CXXConstructorDecl *Ctor = CE->getConstructor();
      if (Ctor && Ctor->isCopyOrMoveConstructor() && CE->getNumArgs() >= 1 &&
          isHandleType(CE->getType())) {
        E = CE->getArg(0);
        continue;
      }
      return nullptr;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if ((Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star) &&
          Op->getNumArgs() == 1) {
        E = Op->getArg(0);
        continue;
      }
      return nullptr;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() == UO_Deref || U->getOpcode() == UO_AddrOf) {
        E = U->getSubExpr();
        continue;
      }
      return nullptr;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      // `p.get()` of a smart pointer.
      if (M && M->getIdentifier() && M->getName() == "get" &&
          isSmartPointer(M->getParent())) {
        E = Member->getImplicitObjectArgument();
        continue;
      }
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      // An accessor (`optimizer()`, `this->optimizer()`).
      if (const Expr *Result = accessorResult(*Call)) {
        E = Result;
        ++Depth;
        continue;
      }
      return nullptr;
    }
    const ValueDecl *D = namedEntity(*E);
    const auto *V = dyn_cast_or_null<VarDecl>(D);
    if (!V || isa<ParmVarDecl>(V) || !V->isLocalVarDecl() ||
        V->isCXXForRangeDecl() || !V->getInit() ||
        !isHandleType(V->getType()) || isRebound(*V))
      return D;
    // What the local was initialised from, when that names an object.
    if (const ValueDecl *From = resolve(V->getInit(), Depth + 1))
      return From;
    return D;
  }
  return nullptr;
}

bool holdsExistingModule(const Expr *Arg, unsigned Depth);

bool isFresh(const Expr *Init, unsigned Depth) {
  if (!Init || Depth > MaxDepth)
    return false;
  const Expr *E = Init->IgnoreParenImpCasts();
  while (true) {
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr()->IgnoreParenImpCasts();
    else if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temp->getSubExpr()->IgnoreParenImpCasts();
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      E = Bind->getSubExpr()->IgnoreParenImpCasts();
    else if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      E = Cast->getSubExpr()->IgnoreParenImpCasts();
    else
      break;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (!Ctor || !isModuleClass(classOf(CE->getType())))
      return false;
    // An elided copy of a temporary: the temporary.
    if (Ctor->isCopyOrMoveConstructor())
      return CE->getNumArgs() == 1 && !isa<DeclRefExpr, MemberExpr>(
                                          CE->getArg(0)->IgnoreParenImpCasts()) &&
             isFresh(CE->getArg(0), Depth + 1);
    return llvm::none_of(CE->arguments(), [&](const Expr *Arg) {
      return holdsExistingModule(Arg, Depth + 1);
    });
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *F = Call->getDirectCallee();
    if (!F || !F->getIdentifier() ||
        (F->getName() != "make_shared" && F->getName() != "make_unique") ||
        !F->isInStdNamespace())
      return false;
    const TemplateArgumentList *Args = F->getTemplateSpecializationArgs();
    if (!Args || Args->size() == 0 ||
        Args->get(0).getKind() != TemplateArgument::Type ||
        !isModuleClass(Args->get(0).getAsType()->getAsCXXRecordDecl()))
      return false;
    return llvm::none_of(Call->arguments(), [&](const Expr *Arg) {
      return holdsExistingModule(Arg, Depth + 1);
    });
  }
  return false;
}

/// An argument of a module's construction that is (or points to) a module
/// that is not itself made there.
bool holdsExistingModule(const Expr *Arg, unsigned Depth) {
  const CXXRecordDecl *RD = classOf(Arg->getType());
  if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
      Spec && isSmartPointer(Spec) && Spec->getTemplateArgs().size() >= 1 &&
      Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
    RD = Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  return RD && isModuleClass(RD) && !isFresh(Arg, Depth);
}

} // namespace

const ValueDecl *heldObject(const Expr *Object) { return resolve(Object, 0); }

bool isFreshModuleConstruction(const Expr *Init) { return isFresh(Init, 0); }

} // namespace clang::tidy::torch
