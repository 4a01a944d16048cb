//===--- ASTUtils.cpp - generic helpers over clang's AST ------------------===//

#include "utils/ast/ASTUtils.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::torch {

const Expr *stripImplicit(const Expr *E) {
  if (!E)
    return nullptr;
  while (true) {
    const Expr *Next = E->IgnoreUnlessSpelledInSource();
    if (const auto *CE = dyn_cast<CXXConstructExpr>(Next))
      if (!isa<CXXTemporaryObjectExpr>(CE) && CE->getNumArgs() >= 1 &&
          (CE->isElidable() || CE->getConstructor()->isCopyOrMoveConstructor()))
        Next = CE->getArg(0);
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Next))
      if (Cast->getType()->isRecordType()) // c10::Scalar(1e-8)
        Next = Cast->getSubExpr();
    if (Next == E)
      return E;
    E = Next;
  }
}

const Expr *stripArgumentConversions(const Expr *E) {
  while (E) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      // A converting construction: one written argument, the rest defaulted
      // (std::vector's allocator, for instance).
      unsigned Written = 0;
      for (const Expr *Arg : Construct->arguments())
        Written += !isa<CXXDefaultArgExpr>(Arg);
      if (Written == 1 && Construct->getNumArgs() >= 1 &&
          !isa<CXXDefaultArgExpr>(Construct->getArg(0))) {
        E = Construct->getArg(0);
        continue;
      }
      return E;
    }
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    return E;
  }
  return E;
}

bool isStoredValue(const Expr *E, const Expr &Target) {
  while (E && E != &Target) {
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
      E = Construct->getNumArgs() == 1 ? Construct->getArg(0) : nullptr;
    else if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr();
    else if (const auto *Temporary = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temporary->getSubExpr();
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      E = Bind->getSubExpr();
    else if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E))
      E = Cast->getSubExpr();
    else
      return false;
  }
  return E == &Target;
}

const ValueDecl *namedEntity(const Expr &E) {
  const Expr *Stripped = E.IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Stripped))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast<MemberExpr>(Stripped))
    return Member->getMemberDecl();
  return nullptr;
}

StringRef identifierOf(DeclarationName Name) {
  return Name.isIdentifier() ? Name.getAsIdentifierInfo()->getName()
                             : StringRef();
}

StringRef dependentCalleeName(const CallExpr &Call) {
  const Expr *Callee = Call.getCallee();
  if (!Callee)
    return {};
  Callee = Callee->IgnoreParenImpCasts();
  DeclarationName Name;
  if (const auto *M = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
    Name = M->getMember();
  else if (const auto *M = dyn_cast<UnresolvedMemberExpr>(Callee))
    Name = M->getMemberName();
  else if (const auto *L = dyn_cast<UnresolvedLookupExpr>(Callee))
    Name = L->getName();
  else if (const auto *D = dyn_cast<DependentScopeDeclRefExpr>(Callee))
    Name = D->getDeclName();
  if (const IdentifierInfo *II = Name.getAsIdentifierInfo())
    return II->getName();
  return {};
}

const Expr *callObject(const CallExpr &Call) {
  const Expr *Object = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    Object = Member->getImplicitObjectArgument();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
           Op && Op->getOperator() == OO_Call && Op->getNumArgs() > 0)
    Object = Op->getArg(0);
  else if (const auto *Callee = Call.getCallee()) {
    Callee = Callee->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
      Object = M->isImplicitAccess() ? nullptr : M->getBase();
    else if (const auto *M = dyn_cast<UnresolvedMemberExpr>(Callee))
      Object = M->isImplicitAccess() ? nullptr : M->getBase();
  }
  return Object ? Object->IgnoreParenImpCasts() : nullptr;
}

const Expr *writtenArg(const CallExpr &Call, unsigned Index) {
  if (Index >= Call.getNumArgs() || isa<CXXDefaultArgExpr>(Call.getArg(Index)))
    return nullptr;
  return Call.getArg(Index);
}

bool isLoopStmt(const Stmt &S) {
  return isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S);
}

void forEachStmt(const Stmt *S, llvm::function_ref<void(const Stmt &)> Fn) {
  if (!S)
    return;
  Fn(*S);
  for (const Stmt *Child : S->children())
    forEachStmt(Child, Fn);
}

bool isInTemplateInstantiation(const Decl &D) {
  for (const DeclContext *DC = isa<DeclContext>(D) ? cast<DeclContext>(&D)
                                                   : D.getDeclContext();
       DC; DC = DC->getParent()) {
    if (const auto *F = dyn_cast<FunctionDecl>(DC))
      if (F->isTemplateInstantiation())
        return true;
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(DC))
      if (Spec->getSpecializationKind() != TSK_ExplicitSpecialization)
        return true;
  }
  return false;
}

bool isContainerInsertion(const CXXMemberCallExpr &Call) {
  const auto *Method = Call.getMethodDecl();
  if (!Method || !Method->getIdentifier())
    return false;
  StringRef Name = Method->getName();
  if (!(Name == "push_back" || Name == "emplace_back" || Name == "insert" ||
        Name == "emplace" || Name == "push_front" || Name == "emplace_front" ||
        Name == "assign" || Name == "append"))
    return false;
  // A container of the standard library or of a library the user includes
  // as a system header. A class of the user's own with such a member (a
  // rollout storage whose insert() copies into tensors of its own) does
  // whatever its body says: not known to keep what it is given.
  const CXXRecordDecl *Class = Method->getParent();
  if (Class->isInStdNamespace())
    return true;
  const SourceManager &SM = Method->getASTContext().getSourceManager();
  return SM.isInSystemHeader(SM.getExpansionLoc(Class->getLocation()));
}

bool sameExpression(const Expr *A, const Expr *B, const ASTContext &Ctx) {
  A = stripImplicit(A);
  B = stripImplicit(B);
  if (!A || !B)
    return false;
  const auto *DA = dyn_cast<DeclRefExpr>(A);
  const auto *DB = dyn_cast<DeclRefExpr>(B);
  if (DA || DB)
    return DA && DB && DA->getDecl() == DB->getDecl();
  llvm::FoldingSetNodeID IA, IB;
  A->Profile(IA, Ctx, /*Canonical=*/true);
  B->Profile(IB, Ctx, /*Canonical=*/true);
  return IA == IB;
}

const VarDecl *storedVariableOf(const Expr *LHS) {
  for (int Depth = 0; LHS && Depth < 8; ++Depth) {
    LHS = LHS->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(LHS))
      return dyn_cast<VarDecl>(Ref->getDecl());
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(LHS)) {
      LHS = Subscript->getBase();
      continue;
    }
    if (const auto *Member = dyn_cast<MemberExpr>(LHS)) {
      if (!isa<FieldDecl>(Member->getMemberDecl()))
        return nullptr;
      LHS = Member->getBase();
      continue;
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(LHS)) {
      if (Unary->getOpcode() != UO_Deref)
        return nullptr;
      LHS = Unary->getSubExpr();
      continue;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(LHS)) {
      if ((Op->getOperator() != OO_Subscript && Op->getOperator() != OO_Star) ||
          Op->getNumArgs() < 1)
        return nullptr;
      LHS = Op->getArg(0);
      continue;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(LHS)) {
      const auto *Method = Member->getMethodDecl();
      if (!Method || !Method->getIdentifier() ||
          (Method->getName() != "at" && Method->getName() != "front" &&
           Method->getName() != "back"))
        return nullptr;
      LHS = Member->getImplicitObjectArgument();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

namespace {

void visitDiscarded(const Stmt *S, llvm::function_ref<void(const Expr &)> Fn) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  if (!E)
    return;
  Fn(*E);
  // `a.f(), b.g();`: both values are dropped. The left operand of any comma is
  // visited where the comma itself is (forEachDiscardedValue's caller matches
  // commas).
  if (const auto *Comma = dyn_cast<BinaryOperator>(E->IgnoreParens());
      Comma && Comma->getOpcode() == BO_Comma)
    visitDiscarded(Comma->getRHS(), Fn);
}

} // namespace

void forEachDiscardedValue(const Stmt &Parent,
                           llvm::function_ref<void(const Expr &)> Fn) {
  if (const auto *Block = dyn_cast<CompoundStmt>(&Parent)) {
    for (const Stmt *Child : Block->body())
      visitDiscarded(Child, Fn);
  } else if (const auto *Label = dyn_cast<LabelStmt>(&Parent)) {
    visitDiscarded(Label->getSubStmt(), Fn);
  } else if (const auto *Case = dyn_cast<SwitchCase>(&Parent)) {
    visitDiscarded(Case->getSubStmt(), Fn);
  } else if (const auto *If = dyn_cast<IfStmt>(&Parent)) {
    visitDiscarded(If->getThen(), Fn);
    visitDiscarded(If->getElse(), Fn);
  } else if (const auto *For = dyn_cast<ForStmt>(&Parent)) {
    visitDiscarded(For->getInc(), Fn);
    visitDiscarded(For->getBody(), Fn);
  } else if (const auto *Range = dyn_cast<CXXForRangeStmt>(&Parent)) {
    visitDiscarded(Range->getBody(), Fn);
  } else if (const auto *While = dyn_cast<WhileStmt>(&Parent)) {
    visitDiscarded(While->getBody(), Fn);
  } else if (const auto *Do = dyn_cast<DoStmt>(&Parent)) {
    visitDiscarded(Do->getBody(), Fn);
  } else if (const auto *Switch = dyn_cast<SwitchStmt>(&Parent)) {
    visitDiscarded(Switch->getBody(), Fn);
  } else if (const auto *Comma = dyn_cast<BinaryOperator>(&Parent);
             Comma && Comma->getOpcode() == BO_Comma) {
    visitDiscarded(Comma->getLHS(), Fn);
  }
}

const Expr *iteratorBase(const Expr *E, bool Inserters) {
  const auto *Call = dyn_cast_or_null<CallExpr>(
      E ? E->IgnoreImplicit()->IgnoreParenImpCasts() : nullptr);
  const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
  if (!F || !F->getIdentifier())
    return nullptr;
  const StringRef Name = F->getName();
  const bool Begin =
      llvm::is_contained({"begin", "cbegin", "rbegin", "crbegin"}, Name);
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    return Begin ? Member->getImplicitObjectArgument() : nullptr;
  const bool Inserter =
      Inserters &&
      llvm::is_contained({"back_inserter", "front_inserter"}, Name);
  if (F->isInStdNamespace() && Call->getNumArgs() == 1 && (Begin || Inserter))
    return Call->getArg(0);
  return nullptr;
}

bool isStdCall(const CallExpr &Call, StringRef Name) {
  const FunctionDecl *F = Call.getDirectCallee();
  return F && F->isInStdNamespace() && F->getDeclName().isIdentifier() &&
         F->getName() == Name;
}

std::optional<TupleElement> tupleElementOf(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (!E)
    return std::nullopt;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Binding = dyn_cast<BindingDecl>(Ref->getDecl());
    const auto *Decomposed = Binding ? dyn_cast_or_null<DecompositionDecl>(
                                           Binding->getDecomposedDecl())
                                     : nullptr;
    if (!Decomposed || !Decomposed->getInit())
      return std::nullopt;
    unsigned Index = 0;
    for (const BindingDecl *B : Decomposed->bindings()) {
      if (B == Binding)
        return TupleElement{stripImplicit(Decomposed->getInit()), Index};
      ++Index;
    }
    return std::nullopt;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call || !isStdCall(*Call, "get") || Call->getNumArgs() != 1)
    return std::nullopt;
  const FunctionDecl *F = Call->getDirectCallee();
  const TemplateArgumentList *Args = F->getTemplateSpecializationArgs();
  if (!Args || Args->size() == 0 ||
      Args->get(0).getKind() != TemplateArgument::Integral)
    return std::nullopt;
  return TupleElement{stripImplicit(Call->getArg(0)),
                      static_cast<unsigned>(
                          Args->get(0).getAsIntegral().getZExtValue())};
}

} // namespace clang::tidy::torch
