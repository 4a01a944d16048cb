//===--- BodyParents.cpp - parents, scopes and loops in function bodies ---===//

#include "utils/ast/BodyParents.h"
#include "utils/ast/ASTUtils.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"

namespace clang::tidy::torch {

namespace {

/// Calls \p Consider on the declarations that a statement \p Child sees from
/// its parent statement \p Parent: those of the block before it, a for-init,
/// a range-for variable, an if-init or condition variable, a while condition
/// variable.
void considerScopeLevel(const Stmt &Parent, const Stmt *Child,
                        llvm::function_ref<void(const Decl *)> Consider) {
  auto ConsiderStmt = [&](const Stmt *St) {
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(St))
      for (const Decl *D : DS->decls())
        Consider(D);
  };
  if (const auto *Block = dyn_cast<CompoundStmt>(&Parent)) {
    for (const Stmt *St : Block->body()) {
      if (St == Child)
        break;
      ConsiderStmt(St);
    }
  } else if (const auto *For = dyn_cast<ForStmt>(&Parent)) {
    ConsiderStmt(For->getInit());
  } else if (const auto *RangeFor = dyn_cast<CXXForRangeStmt>(&Parent)) {
    ConsiderStmt(RangeFor->getLoopVarStmt());
  } else if (const auto *If = dyn_cast<IfStmt>(&Parent)) {
    ConsiderStmt(If->getInit());
    Consider(If->getConditionVariable());
  } else if (const auto *While = dyn_cast<WhileStmt>(&Parent)) {
    Consider(While->getConditionVariable());
  }
}

/// Collects the variables satisfying a predicate one scope level at a time,
/// innermost (and latest) first.
class ScopeCollector {
public:
  explicit ScopeCollector(llvm::function_ref<bool(const VarDecl &)> Pred)
      : Pred(Pred) {}
  void consider(const Decl *D) {
    if (const auto *VD = dyn_cast_or_null<VarDecl>(D))
      if (Pred(*VD))
        Level.push_back(VD);
  }
  void considerParameters(const FunctionDecl &Fn) {
    for (const ParmVarDecl *P : Fn.parameters())
      consider(P);
  }
  /// Ends one scope level: its declarations, in source order, are appended in
  /// reverse.
  void flushLevel() {
    Found.append(Level.rbegin(), Level.rend());
    Level.clear();
  }
  llvm::SmallVector<const VarDecl *, 4> take() {
    flushLevel();
    return std::move(Found);
  }

private:
  llvm::function_ref<bool(const VarDecl &)> Pred;
  llvm::SmallVector<const VarDecl *, 4> Found;
  llvm::SmallVector<const VarDecl *, 4> Level;
};

} // namespace

llvm::SmallVector<const VarDecl *, 4>
visibleLocalVariables(const Stmt &S, ASTContext &Ctx,
                      llvm::function_ref<bool(const VarDecl &)> Pred,
                      bool CrossLambdas) {
  ScopeCollector Scopes(Pred);
  auto Consider = [&](const Decl *D) { Scopes.consider(D); };
  DynTypedNode Child = DynTypedNode::create(S);
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(Child);
    if (Parents.empty())
      break;
    const DynTypedNode &Parent = Parents[0];
    if (const auto *Fn = Parent.get<FunctionDecl>()) {
      Scopes.considerParameters(*Fn);
      // A lambda's call operator: continue into the enclosing function only
      // when asked to.
      const auto *Method = dyn_cast<CXXMethodDecl>(Fn);
      if (!CrossLambdas || !Method || !Method->getParent()->isLambda())
        break;
    } else if (const auto *Lambda = Parent.get<LambdaExpr>()) {
      Scopes.considerParameters(*Lambda->getCallOperator());
      // The enclosing function's locals are usable only if captured.
      if (!CrossLambdas)
        break;
    } else if (const auto *ParentStmt = Parent.get<Stmt>()) {
      considerScopeLevel(*ParentStmt, Child.get<Stmt>(), Consider);
    }
    Scopes.flushLevel();
    Child = Parent;
  }
  return Scopes.take();
}

// --- Autograd
// -------------------------------------------------------------------

namespace {

/// True if \p Child is the part of \p Loop that runs on every iteration: the
/// body, the condition or the increment (not a for-init or a range-for's
/// range).
bool isRepeatedPartOf(const Stmt &Loop, const Stmt &Child) {
  const Stmt *C = &Child;
  if (const auto *For = dyn_cast<ForStmt>(&Loop))
    return C == For->getBody() || C == For->getCond() || C == For->getInc();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(&Loop))
    return C == Range->getBody();
  if (const auto *While = dyn_cast<WhileStmt>(&Loop))
    return C == While->getBody() || C == While->getCond() ||
           C == While->getConditionVariableDeclStmt();
  if (const auto *Do = dyn_cast<DoStmt>(&Loop))
    return C == Do->getBody() || C == Do->getCond();
  return false;
}

} // namespace

llvm::SmallVector<const Stmt *, 4> enclosingLoops(const Stmt &S,
                                                  const FunctionDecl &Fn,
                                                  BodyParents &Parents,
                                                  bool CrossLambdas) {
  llvm::SmallVector<const Stmt *, 4> Loops;
  Parents.walkUp(S, Fn, CrossLambdas, [&](const BodyParents::Step &Step) {
    if (Step.Parent && isLoopStmt(*Step.Parent) &&
        isRepeatedPartOf(*Step.Parent, *Step.Child))
      Loops.push_back(Step.Parent);
    return true;
  });
  return Loops;
}

namespace {

/// The declaration \p E names: a variable, or a field reached from `this`.
const ValueDecl *containerDecl(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(Ref->getDecl());
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(E))
    if (isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
      return dyn_cast<FieldDecl>(Member->getMemberDecl());
  return nullptr;
}

/// True if \p S holds a `continue` that continues the loop around \p S
/// (not one of a loop nested in it).
bool continuesEnclosingLoop(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ContinueStmt>(S))
    return true;
  if (isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt, LambdaExpr>(S))
    return false;
  for (const Stmt *Child : S->children())
    if (continuesEnclosingLoop(Child))
      return true;
  return false;
}

} // namespace

bool clearedEachIteration(const Expr &Container, const Stmt &Loop) {
  const ValueDecl *Target = containerDecl(&Container);
  const Stmt *Body = nullptr;
  if (const auto *For = dyn_cast<ForStmt>(&Loop))
    Body = For->getBody();
  else if (const auto *Range = dyn_cast<CXXForRangeStmt>(&Loop))
    Body = Range->getBody();
  else if (const auto *While = dyn_cast<WhileStmt>(&Loop))
    Body = While->getBody();
  else if (const auto *Do = dyn_cast<DoStmt>(&Loop))
    Body = Do->getBody();
  const auto *Block = dyn_cast_or_null<CompoundStmt>(Body);
  if (!Target || !Block)
    return false;
  for (const Stmt *Statement : Block->body()) {
    const Stmt *S = Statement;
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(S))
      S = Cleanups->getSubExpr();
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *M = Call->getMethodDecl();
      if (M && M->getIdentifier() && M->getName() == "clear" &&
          Call->getNumArgs() == 0 &&
          containerDecl(Call->getImplicitObjectArgument()) == Target)
        return true;
    }
    if (continuesEnclosingLoop(Statement))
      return false; // An iteration may skip the clear.
  }
  return false;
}

const LambdaExpr *enclosingLambda(const Stmt &S, const FunctionDecl &Fn,
                                  BodyParents &Parents) {
  for (const Stmt *P = Parents.parentOf(S, Fn); P; P = Parents.parentOf(*P, Fn))
    if (const auto *Lambda = dyn_cast<LambdaExpr>(P))
      return Lambda;
  return nullptr;
}

const FunctionDecl *outermostFunction(const Stmt &S, const FunctionDecl &Fn,
                                      BodyParents &Parents) {
  return Parents.walkUp(S, Fn, /*CrossLambdas=*/true,
                        [](const BodyParents::Step &) { return true; });
}

struct BodyParents::Body {
  std::unique_ptr<ParentMap> Map;
  /// The lambda expressions in the body, by closure class: where a lambda's
  /// call operator (also an instantiated generic one) is written.
  llvm::DenseMap<const CXXRecordDecl *, const LambdaExpr *> Lambdas;
};

BodyParents::BodyParents() = default;
BodyParents::~BodyParents() = default;

void BodyParents::clear() { Bodies.clear(); }

BodyParents::Body &BodyParents::bodyOf(const FunctionDecl &Fn) {
  std::unique_ptr<Body> &Slot = Bodies[&Fn];
  if (!Slot) {
    Slot = std::make_unique<Body>();
    if (Stmt *Root = Fn.getBody()) {
      Slot->Map = std::make_unique<ParentMap>(Root);
      forEachStmt(Root, [&](const Stmt &S) {
        if (const auto *Lambda = dyn_cast<LambdaExpr>(&S))
          Slot->Lambdas.try_emplace(Lambda->getLambdaClass(), Lambda);
      });
    }
  }
  return *Slot;
}

const Stmt *BodyParents::parentOf(const Stmt &S, const FunctionDecl &Fn) {
  const Body &B = bodyOf(Fn);
  return B.Map ? B.Map->getParent(&S) : nullptr;
}

bool BodyParents::isOwnCode(const Stmt &S, const FunctionDecl &Fn) {
  const Stmt *Child = &S;
  while (const Stmt *Parent = parentOf(*Child, Fn)) {
    if (isa<LambdaExpr>(Parent))
      return false;
    Child = Parent;
  }
  return Child == Fn.getBody();
}

const FunctionDecl *
BodyParents::walkUp(const Stmt &S, const FunctionDecl &Fn, bool CrossLambdas,
                    llvm::function_ref<bool(const Step &)> Visit) {
  const FunctionDecl *Current = &Fn;
  const Stmt *Child = &S;
  while (true) {
    if (const Stmt *Parent = parentOf(*Child, *Current)) {
      if (!Visit({Parent, Child, Current}))
        return Current;
      if (const auto *Lambda = dyn_cast<LambdaExpr>(Parent);
          Lambda && !CrossLambdas)
        return Lambda->getCallOperator();
      Child = Parent;
      continue;
    }
    // Child is the body of Current. A lambda's call operator continues at its
    // lambda expression in the enclosing function.
    const auto *Method = dyn_cast<CXXMethodDecl>(Current);
    const CXXRecordDecl *Closure = Method && Method->getParent()->isLambda()
                                       ? Method->getParent()
                                       : nullptr;
    const auto *Enclosing =
        Closure ? dyn_cast<FunctionDecl>(Closure->getDeclContext()) : nullptr;
    const LambdaExpr *Lambda =
        Enclosing ? bodyOf(*Enclosing).Lambdas.lookup(Closure) : nullptr;
    if (!Lambda) {
      Visit({nullptr, Child, Current});
      return Current;
    }
    if (!Visit({Lambda, Child, Enclosing}) || !CrossLambdas)
      return Current;
    Child = Lambda;
    Current = Enclosing;
  }
}

llvm::SmallVector<const VarDecl *, 4> visibleLocalVariables(
    const Stmt &S, const FunctionDecl &Fn, BodyParents &Parents,
    llvm::function_ref<bool(const VarDecl &)> Pred, bool CrossLambdas) {
  ScopeCollector Scopes(Pred);
  Parents.walkUp(S, Fn, CrossLambdas, [&](const BodyParents::Step &Step) {
    if (!Step.Parent)
      Scopes.considerParameters(*Step.Function);
    else if (const auto *Lambda = dyn_cast<LambdaExpr>(Step.Parent))
      Scopes.considerParameters(*Lambda->getCallOperator());
    else
      considerScopeLevel(*Step.Parent, Step.Child,
                         [&](const Decl *D) { Scopes.consider(D); });
    Scopes.flushLevel();
    return true;
  });
  return Scopes.take();
}

} // namespace clang::tidy::torch