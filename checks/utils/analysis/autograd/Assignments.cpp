//===--- Assignments.cpp - AutogradFlow's definitions and stores ----------===//
//
// Where a local tensor variable gets a value: its definition sites (a
// declaration, an assignment, a container insertion), each standing for every
// value it produces. A site executed again (in a loop) builds a fresh graph:
// defining a variable clears the freed marks of the site and keeps those of
// the value it now holds, so loop-carried values (a running total) keep the
// graph of earlier iterations while recomputed ones do not; a variable whose
// lifetime ends leaves the state (last iteration's loss is not this one's).
// Also stores into elements (`v[i] = x`, `*p = x`), compound assignments
// (an in-place write into the same tensor) and host variables that receive
// values read out of tensors.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/autograd/Builder.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::torch {

using namespace autograd;

unsigned AutogradFlowBuilder::definitionAt(const void *Site, const VarDecl *Var,
                                           SourceLocation Loc) {
  auto [It, Inserted] = DefIds.try_emplace({Site, Var}, Defs.size());
  if (Inserted) {
    Definition D;
    D.Var = Var;
    D.Loc = Loc;
    Defs.push_back(D);
    DefsChanged = true;
  }
  return It->second;
}

void AutogradFlowBuilder::define(const VarDecl *Var, const void *Site,
                                 SourceLocation Loc, const Value &V) {
  unsigned Id = definitionAt(Site, Var, Loc);
  Definition &D = Defs[Id];
  if (V.History > D.History) {
    D.History = V.History;
    DefsChanged = true;
  }
  if (V.FromValues && !D.FromValues) {
    D.FromValues = V.FromValues;
    D.ValuesRead = V.ValuesRead;
    DefsChanged = true;
  }
  TensorFacts &Facts = S->Tensors[Var];
  Facts.Reaching = DefSet{Id};
  Facts.Graph = V.Graph;
  if (D.History != HistoryEvidence::None)
    Facts.Graph.insert(Id);
  // The variable's freed marks are those of the value it now holds; the
  // site's own graph is fresh.
  Facts.Freed = V.Freed;
  Facts.Freed.erase(Id);
  Facts.Freed.keepOnly(Facts.Graph);
  Facts.Savers = V.Savers;
  // The site's new value is saved by whoever saved the tensor it is.
  S->Saved.eraseFirst(Id);
  for (unsigned Saver : V.SavedBy)
    S->Saved.insert(Id, Saver);
}

Value AutogradFlowBuilder::assign(const Expr &LHS, const Expr &RHS,
                                  const Expr &Site, bool Compound) {
  Value R = visit(&RHS);
  const Expr *Target = LHS.IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Target)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!isLocal(Var))
      return R;
    if (isTensorValued(Var->getType())) {
      if (Compound) {
        // `x += y` writes into x's tensor, which stays the same tensor.
        Value Old = valueOfVariable(Var);
        if (isa<CXXOperatorCallExpr>(Site))
          recordWrite(Site, Old);
        R.join(Old);
        R.Same = Old.Same;
        R.SavedBy = Old.SavedBy;
      }
      define(Var, &Site, beginLoc(Site), R);
      return valueOfVariable(Var);
    }
    if (R.Taint)
      S->Taint[Var] = R.Taint;
    else if (!Compound)
      S->Taint.erase(Var);
    return R;
  }
  // A store into an element: v[i] = x, *p = x, acc[i][j] = x.
  Value L = visit(&LHS);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Site);
      Op && inPlaceWriteTarget(*Op))
    recordWrite(Site, L);
  const VarDecl *Stored = storedVariableOf(&LHS);
  if (R.Taint && isLocal(Stored) && !isTensorValued(Stored->getType()))
    S->Taint.emplace(Stored, R.Taint);
  L.join(R);
  return L;
}

bool AutogradFlowBuilder::visitContainerInsertion(const CallExpr &Call,
                                                  const CallOperands &Ops) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member || !isContainerInsertion(*Member))
    return false;
  const auto *Ref = dyn_cast<DeclRefExpr>(
      Member->getImplicitObjectArgument()->IgnoreParenImpCasts());
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (isLocal(Var)) {
    if (isTensorValued(Var->getType())) {
      Value V = filterByType(Ops.AllArgs, Var->getType());
      V.join(valueOfVariable(Var));
      define(Var, &Call, beginLoc(Call), V);
    } else if (Ops.AllArgs.Taint) {
      S->Taint.emplace(Var, Ops.AllArgs.Taint);
    }
  }
  return true;
}

void AutogradFlowBuilder::endLifetime(const VarDecl *Var) {
  S->Tensors.erase(Var);
}

} // namespace clang::tidy::torch
