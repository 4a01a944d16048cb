//===--- Reaching.cpp - what reaches a backward pass ----------------------===//
//
// AutogradFlow::reachesBackwardPass: which variables and fields the backward
// passes of a function differentiate, directly or through the values stored
// into them (initializers, assignments, add_, push_back, ...), except through
// detach(), item() and data(). Flow-insensitive: one walk over the body,
// independent of the dataflow.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/AutogradFlow.h"
#include "utils/analysis/AccessPath.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch {

namespace {

/// A definition of a variable's value found in its function: what was stored
/// into it (initializer, `=`, `+=`, add_, push_back, ...).
struct Definitions {
  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<const Expr *, 2>> Values;
  /// Variables on which backward() is called.
  llvm::SmallPtrSet<const ValueDecl *, 4> Backpropagated;
  /// What the backward passes differentiate.
  llvm::SmallVector<const Expr *, 4> PassRoots;
};

Definitions collectDefinitions(const Stmt *Body) {
  Definitions Defs;
  forEachStmt(Body, [&](const Stmt &S) {
    if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit())
          Defs.Values[VD].push_back(VD->getInit());
      return;
    }
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (!Call)
      return;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      switch (Op->getOperator()) {
      case OO_Equal:
      case OO_PlusEqual:
      case OO_MinusEqual:
      case OO_StarEqual:
      case OO_SlashEqual:
        if (Op->getNumArgs() == 2)
          if (const ValueDecl *D = namedEntity(*Op->getArg(0)))
            Defs.Values[D].push_back(Op->getArg(1));
        return;
      default:
        break;
      }
    }
    const Expr *Object = callObject(*Call);
    const ValueDecl *ObjectEntity = Object ? namedEntity(*Object) : nullptr;
    if (isBackwardCall(*Call) || isAutogradGradCall(*Call) ||
        dependentCalleeName(*Call) == "backward") {
      if (isa<CXXMemberCallExpr>(Call) ||
          (Object && !isa<CXXOperatorCallExpr>(Call))) {
        if (Object)
          Defs.PassRoots.push_back(Object);
        if (ObjectEntity)
          Defs.Backpropagated.insert(ObjectEntity);
      } else {
        // torch::autograd::backward(tensors, ...) / grad(outputs, ...).
        if (Call->getNumArgs() > 0)
          Defs.PassRoots.push_back(Call->getArg(0));
      }
      return;
    }
    if (!ObjectEntity || isa<CXXOperatorCallExpr>(Call))
      return;
    const FunctionDecl *Callee = Call->getDirectCallee();
    StringRef Name = Callee && Callee->getIdentifier()
                         ? Callee->getName()
                         : dependentCalleeName(*Call);
    if (Name == "add_" || Name == "sub_" || Name == "mul_" || Name == "div_" ||
        Name == "copy_" || Name == "push_back" || Name == "emplace_back")
      for (const Expr *Arg : Call->arguments())
        if (!isa<CXXDefaultArgExpr>(Arg))
          Defs.Values[ObjectEntity].push_back(Arg);
  });
  return Defs;
}

/// Calls \p Fn on every variable or field named in \p E, except inside
/// detach(), item() and data() (their values carry no history).
void forEachNamedEntity(const Expr *E,
                        llvm::function_ref<void(const ValueDecl &)> Fn) {
  if (!E)
    return;
  forEachStmt(E, [&](const Stmt &S) {
    // forEachStmt cannot prune; history-removing calls are rare enough that
    // a second walk is acceptable.
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S))
      Fn(*Ref->getDecl());
    else if (const auto *Member = dyn_cast<MemberExpr>(&S))
      Fn(*Member->getMemberDecl());
  });
}

bool containsHistoryRemovingCallOn(const Expr *E, const ValueDecl &D) {
  bool Found = false;
  forEachStmt(E, [&](const Stmt &S) {
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (Found || !Call || !isHistoryRemovingCall(*Call))
      return;
    if (const Expr *Object = callObject(*Call))
      if (namedEntity(*Object) == &D)
        Found = true;
  });
  return Found;
}

/// Calls \p Fn on the access path of every maximal sub-expression of \p S
/// that has one (`b.first`, `std::get<1>(t)`, `v[0]`, `x`), except inside
/// detach(), item() and data() (their values carry no history).
void forEachAccessPath(const Stmt *S,
                       llvm::function_ref<void(const AccessPath &)> Fn) {
  if (!S)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S); Call && isHistoryRemovingCall(*Call))
    return;
  if (const auto *E = dyn_cast<Expr>(S))
    if (!isa<CXXThisExpr>(E->IgnoreParenImpCasts()))
      if (std::optional<AccessPath> P = accessPathOf(*E)) {
        Fn(*P);
        // An index or key may name variables too (`v[i]`); they do not
        // reach the pass through the element.
        return;
      }
  for (const Stmt *Child : S->children())
    forEachAccessPath(Child, Fn);
}

/// What is stored into each access path (initializers, `=`, `+=`, add_,
/// push_back, ...), and the objects the backward passes run on.
struct PathDefinitions {
  std::vector<std::pair<AccessPath, const Expr *>> Values;
  llvm::SmallVector<const Expr *, 4> PassRoots;
};

PathDefinitions collectPathDefinitions(const Stmt *Body) {
  PathDefinitions Defs;
  auto Store = [&](const Expr &Target, const Expr *Value) {
    if (std::optional<AccessPath> P = accessPathOf(Target))
      Defs.Values.push_back({std::move(*P), Value});
  };
  forEachStmt(Body, [&](const Stmt &S) {
    if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit()) {
          AccessPath P;
          P.Root = VD;
          Defs.Values.push_back({P, VD->getInit()});
        }
      return;
    }
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (!Call)
      return;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      switch (Op->getOperator()) {
      case OO_Equal:
      case OO_PlusEqual:
      case OO_MinusEqual:
      case OO_StarEqual:
      case OO_SlashEqual:
        if (Op->getNumArgs() == 2)
          Store(*Op->getArg(0), Op->getArg(1));
        return;
      default:
        break;
      }
    }
    const Expr *Object = callObject(*Call);
    if (isBackwardCall(*Call) || isAutogradGradCall(*Call) ||
        dependentCalleeName(*Call) == "backward") {
      if (isa<CXXMemberCallExpr>(Call) ||
          (Object && !isa<CXXOperatorCallExpr>(Call))) {
        if (Object)
          Defs.PassRoots.push_back(Object);
      } else if (Call->getNumArgs() > 0) {
        Defs.PassRoots.push_back(Call->getArg(0));
      }
      return;
    }
    if (!Object || isa<CXXOperatorCallExpr>(Call))
      return;
    const FunctionDecl *Callee = Call->getDirectCallee();
    StringRef Name = Callee && Callee->getIdentifier()
                         ? Callee->getName()
                         : dependentCalleeName(*Call);
    if (Name == "add_" || Name == "sub_" || Name == "mul_" || Name == "div_" ||
        Name == "copy_" || Name == "push_back" || Name == "emplace_back")
      for (const Expr *Arg : Call->arguments())
        if (!isa<CXXDefaultArgExpr>(Arg))
          Store(*Object, Arg);
  });
  return Defs;
}

} // namespace

bool AutogradFlow::reachesBackwardPass(const Expr &Target) const {
  std::optional<AccessPath> Path = accessPathOf(Target);
  if (!Path) {
    const ValueDecl *D = namedEntity(Target);
    return D && reachesBackwardPass(*D);
  }
  if (!ReachingPaths) {
    auto &Reached = ReachingPaths.emplace();
    const Stmt *Body = Function ? Function->getBody() : nullptr;
    if (!Body)
      return false;
    const PathDefinitions Defs = collectPathDefinitions(Body);
    std::vector<bool> Done(Defs.Values.size(), false);
    llvm::SmallVector<AccessPath, 16> Work;
    auto Reach = [&](const Expr *E) {
      forEachAccessPath(E, [&](const AccessPath &P) {
        if (!llvm::is_contained(Reached, P)) {
          Reached.push_back(P);
          Work.push_back(P);
        }
      });
    };
    for (const Expr *Root : Defs.PassRoots)
      Reach(Root);
    while (!Work.empty()) {
      const AccessPath P = Work.pop_back_val();
      // What was stored into any location that may overlap P: a write to
      // `b` reaches `b.first`, one to `v[i]` reaches `v[0]`.
      for (size_t I = 0; I < Defs.Values.size(); ++I)
        if (!Done[I] && mayAlias(Defs.Values[I].first, P)) {
          Done[I] = true;
          Reach(Defs.Values[I].second);
        }
    }
  }
  return llvm::any_of(*ReachingPaths, [&](const AccessPath &P) {
    return mayAlias(P, *Path);
  });
}

bool AutogradFlow::reachesBackwardPass(const ValueDecl &D) const {
  if (!Reaching) {
    auto &Reached = Reaching.emplace();
    const Stmt *Body = Function ? Function->getBody() : nullptr;
    if (!Body)
      return false;
    const Definitions Defs = collectDefinitions(Body);
    llvm::SmallVector<const ValueDecl *, 16> Work;
    auto Reach = [&](const Expr *E) {
      forEachNamedEntity(E, [&](const ValueDecl &V) {
        if (!containsHistoryRemovingCallOn(E, V) && Reached.insert(&V).second)
          Work.push_back(&V);
      });
    };
    for (const Expr *Root : Defs.PassRoots)
      Reach(Root);
    while (!Work.empty()) {
      const ValueDecl *V = Work.pop_back_val();
      if (auto It = Defs.Values.find(V); It != Defs.Values.end())
        for (const Expr *Value : It->second)
          Reach(Value);
    }
  }
  return Reaching->contains(&D);
}

} // namespace clang::tidy::torch
