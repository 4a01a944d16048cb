//===--- AccessPath.cpp - which object an expression denotes --------------===//

#include "utils/analysis/AccessPath.h"
#include "utils/ast/ASTUtils.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/StringRef.h"
#include <algorithm>

namespace clang::tidy::torch {

namespace {

/// A standard container whose operator[] / at() / front() / back() return an
/// element stored in it.
bool isElementContainer(QualType T) {
  T = T.getNonReferenceType();
  if (T->isPointerType())
    return false;
  const auto *Record = T->getAsCXXRecordDecl();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(Record);
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier())
    return false;
  return llvm::is_contained({"vector", "deque", "array", "map",
                             "unordered_map"},
                            Spec->getName());
}

/// The literal index or key of an element access, when written as one.
std::optional<std::string> literalKey(const Expr *E) {
  for (int Depth = 0; E && Depth < 6; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Int = dyn_cast<IntegerLiteral>(E))
      return std::to_string(Int->getValue().getZExtValue());
    if (const auto *Str = dyn_cast<StringLiteral>(E))
      return "\"" + Str->getBytes().str() + "\"";
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
        Construct && Construct->getNumArgs() >= 1) {
      E = Construct->getArg(0);
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
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<AccessPath> pathOf(const Expr *E, unsigned Depth) {
  if (!E || Depth > 16)
    return std::nullopt;
  E = E->IgnoreParenImpCasts();
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
    return pathOf(Cleanups->getSubExpr(), Depth + 1);
  if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
    return pathOf(Temp->getSubExpr(), Depth + 1);
  if (isa<CXXThisExpr>(E)) {
    AccessPath P;
    P.RootIsThis = true;
    return P;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return std::nullopt;
    // A local reference initialised from an access path aliases it for its
    // whole lifetime (a reference cannot be rebound).
    if (Var->getType()->isReferenceType() && !isa<ParmVarDecl>(Var) &&
        Var->hasLocalStorage() && Var->getInit() && !Var->isImplicit())
      if (std::optional<AccessPath> To = pathOf(Var->getInit(), Depth + 1))
        return To;
    AccessPath P;
    P.Root = Var;
    return P;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    if (!Field)
      return std::nullopt;
    const Expr *Base = Member->getBase()->IgnoreParenImpCasts();
    // Through a pointer only the analysed method's own object.
    if (Member->isArrow() && !isa<CXXThisExpr>(Base))
      return std::nullopt;
    std::optional<AccessPath> P = pathOf(Base, Depth + 1);
    if (!P)
      return std::nullopt;
    AccessStep S;
    S.K = AccessStep::Field;
    S.Member = Field->getCanonicalDecl();
    P->Steps.push_back(S);
    return P;
  }
  if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E)) {
    const Expr *Base = Sub->getBase()->IgnoreParenImpCasts();
    if (!Base->getType()->isArrayType() &&
        !(isa<ImplicitCastExpr>(Sub->getBase()) &&
          cast<ImplicitCastExpr>(Sub->getBase())->getCastKind() ==
              CK_ArrayToPointerDecay))
      return std::nullopt;
    std::optional<AccessPath> P = pathOf(Base, Depth + 1);
    if (!P)
      return std::nullopt;
    AccessStep S;
    S.K = AccessStep::Element;
    S.Key = literalKey(Sub->getIdx());
    P->Steps.push_back(S);
    return P;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Op->getOperator() != OO_Subscript || Op->getNumArgs() != 2 ||
        !isElementContainer(Op->getArg(0)->getType()))
      return std::nullopt;
    std::optional<AccessPath> P = pathOf(Op->getArg(0), Depth + 1);
    if (!P)
      return std::nullopt;
    AccessStep S;
    S.K = AccessStep::Element;
    S.Key = literalKey(Op->getArg(1));
    P->Steps.push_back(S);
    return P;
  }
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = Call->getMethodDecl();
    const Expr *Object = Call->getImplicitObjectArgument();
    if (!M || !M->getIdentifier() || !Object ||
        !isElementContainer(Object->getType()))
      return std::nullopt;
    StringRef Name = M->getName();
    if (!isElementAccessName(Name))
      return std::nullopt;
    std::optional<AccessPath> P = pathOf(Object, Depth + 1);
    if (!P)
      return std::nullopt;
    AccessStep S;
    S.K = AccessStep::Element;
    const CXXRecordDecl *Container =
        Object->getType().getNonReferenceType()->getAsCXXRecordDecl();
    const bool Map = Container->getName().ends_with("map");
    if (Name == "at" && Call->getNumArgs() == 1)
      S.Key = literalKey(Call->getArg(0));
    else if (Name == "front" && !Map)
      S.Key = "0"; // A map's first entry is not keyed by 0.
    P->Steps.push_back(S);
    return P;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    std::optional<TupleElement> Element = tupleElementOf(Call);
    if (!Element || !Element->Tuple)
      return std::nullopt;
    std::optional<AccessPath> P = pathOf(Element->Tuple, Depth + 1);
    if (!P)
      return std::nullopt;
    // std::get on a std::pair is its field.
    AccessStep S;
    S.K = AccessStep::TupleElement;
    S.Index = Element->Index;
    if (const auto *Record =
            Element->Tuple->getType().getNonReferenceType()->getAsCXXRecordDecl();
        Record && Record->isInStdNamespace() && Record->getIdentifier() &&
        Record->getName() == "pair") {
      unsigned I = 0;
      for (const FieldDecl *F : Record->fields())
        if (I++ == Element->Index) {
          S.K = AccessStep::Field;
          S.Member = F->getCanonicalDecl();
        }
    }
    P->Steps.push_back(S);
    return P;
  }
  return std::nullopt;
}

std::string stepText(const AccessStep &S) {
  switch (S.K) {
  case AccessStep::Field:
    return "." + (S.Member && S.Member->getIdentifier()
                      ? S.Member->getName().str()
                      : std::string("<anon>"));
  case AccessStep::TupleElement:
    return ".<" + std::to_string(S.Index) + ">";
  case AccessStep::Element:
    return "[" + (S.Key ? *S.Key : std::string()) + "]";
  }
  return "";
}

} // namespace

bool isElementAccessName(llvm::StringRef Name) {
  return llvm::is_contained({"at", "front", "back"}, Name);
}

bool AccessPath::isKeyed() const {
  return llvm::all_of(Steps, [](const AccessStep &S) {
    return S.K != AccessStep::Element || S.Key.has_value();
  });
}

bool AccessPath::isStrong() const {
  return llvm::none_of(
      Steps, [](const AccessStep &S) { return S.K == AccessStep::Element; });
}

std::string AccessPath::stepsKey() const {
  std::string Out;
  for (const AccessStep &S : Steps) {
    Out += stepText(S);
    // Two different fields may share a name in nested structs; the key is
    // unique with the field's address.
    if (S.K == AccessStep::Field)
      Out += "@" + std::to_string(reinterpret_cast<uintptr_t>(S.Member));
  }
  return Out;
}

std::string AccessPath::key() const {
  std::string Out = RootIsThis ? "this"
                    : Root && Root->getIdentifier() ? Root->getName().str()
                                                    : "<root>";
  for (const AccessStep &S : Steps)
    Out += stepText(S);
  return Out;
}

std::optional<AccessPath> accessPathOf(const Expr &E) { return pathOf(&E, 0); }

bool mayAliasStep(const AccessStep &A, const AccessStep &B) {
  if (A.K != B.K)
    // A pair's std::get<I> is already turned into its field; a tuple
    // element and a field of the same object never meet.
    return false;
  switch (A.K) {
  case AccessStep::Field:
    return A.Member == B.Member;
  case AccessStep::TupleElement:
    return A.Index == B.Index;
  case AccessStep::Element:
    return !A.Key || !B.Key || *A.Key == *B.Key;
  }
  return false;
}

bool mayAlias(const AccessPath &A, const AccessPath &B) {
  if (A.Root != B.Root || A.RootIsThis != B.RootIsThis)
    return false;
  const size_t N = std::min(A.Steps.size(), B.Steps.size());
  for (size_t I = 0; I < N; ++I)
    if (!mayAliasStep(A.Steps[I], B.Steps[I]))
      return false;
  return true;
}

bool mustAlias(const AccessPath &A, const AccessPath &B) {
  if (A != B)
    return false;
  return llvm::all_of(A.Steps, [](const AccessStep &S) {
    return S.K != AccessStep::Element || S.Key.has_value();
  });
}

bool killsFactsOf(const AccessPath &Written, const AccessPath &Known) {
  if (!Written.isStrong() || Written.Root != Known.Root ||
      Written.RootIsThis != Known.RootIsThis ||
      Written.Steps.size() > Known.Steps.size())
    return false;
  for (size_t I = 0; I < Written.Steps.size(); ++I)
    if (Written.Steps[I] != Known.Steps[I])
      return false;
  return true;
}

bool accessedByLiteralKeysOnly(const VarDecl &Container,
                               const FunctionDecl &Fn) {
  if (!Fn.getBody())
    return false;
  bool Keyed = true;
  auto Names = [&](const Expr *E) {
    const auto *Ref =
        dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
    return Ref && Ref->getDecl() == &Container;
  };
  auto MayWriteThrough = [](QualType T) {
    return T.isNull() ||
           (T->isPointerType() && !T->getPointeeType().isConstQualified()) ||
           (T->isLValueReferenceType() &&
            !T.getNonReferenceType().isConstQualified()) ||
           T->isRValueReferenceType();
  };
  forEachStmt(Fn.getBody(), [&](const Stmt &S) {
    if (!Keyed)
      return;
    const auto *E = dyn_cast<Expr>(&S);
    if (!E)
      return;
    // An element access: by a literal index or key only.
    if (std::optional<AccessPath> P = accessPathOf(*E);
        P && P->Root == &Container && !P->Steps.empty() &&
        P->Steps.front().K == AccessStep::Element &&
        !P->Steps.front().Key && !isa<DeclRefExpr>(E->IgnoreParenImpCasts())) {
      Keyed = false;
      return;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      if (Names(Member->getImplicitObjectArgument()) &&
          (!M || (!M->isConst() &&
                  !(M->getIdentifier() &&
                    isElementAccessName(M->getName())))))
        Keyed = false;
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Op->getNumArgs() > 0 && Names(Op->getArg(0)) &&
          Op->getOperator() != OO_Subscript && Op->getOperator() != OO_Equal &&
          isa_and_nonnull<CXXMethodDecl>(Op->getDirectCallee()) &&
          !cast<CXXMethodDecl>(Op->getDirectCallee())->isConst())
        Keyed = false;
    } else if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
      if (Unary->getOpcode() == UO_AddrOf && Names(Unary->getSubExpr()))
        Keyed = false;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      const unsigned Shift =
          isa<CXXOperatorCallExpr>(Call) && isa_and_nonnull<CXXMethodDecl>(Callee)
              ? 1
              : 0;
      for (unsigned I = Shift; I < Call->getNumArgs(); ++I)
        if (Names(Call->getArg(I))) {
          const unsigned P = I - Shift;
          QualType T = Callee && P < Callee->getNumParams()
                           ? Callee->getParamDecl(P)->getType()
                           : QualType();
          if (MayWriteThrough(T))
            Keyed = false;
        }
    }
  });
  // A non-const reference or a range-for bound to it may change any element.
  forEachStmt(Fn.getBody(), [&](const Stmt &S) {
    if (const auto *For = dyn_cast<CXXForRangeStmt>(&S); For && Keyed)
      if (Names(For->getRangeInit()) && For->getLoopVariable() &&
          For->getLoopVariable()->getType()->isLValueReferenceType() &&
          !For->getLoopVariable()->getType().getNonReferenceType().isConstQualified())
        Keyed = false;
    if (const auto *DS = dyn_cast<DeclStmt>(&S); DS && Keyed)
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D);
            V && V != &Container && V->getType()->isReferenceType() &&
            !V->getType().getNonReferenceType().isConstQualified() &&
            Names(V->getInit()))
          Keyed = false;
  });
  return Keyed;
}

} // namespace clang::tidy::torch
