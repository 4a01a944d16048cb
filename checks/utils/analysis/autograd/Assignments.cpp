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

#include "utils/analysis/FunctionSummary.h"
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
  if (V.RequiresGrad && !D.RequiresGrad) {
    D.RequiresGrad = true;
    DefsChanged = true;
  }
  if ((V.Params | D.Params) != D.Params) {
    D.Params |= V.Params;
    DefsChanged = true;
  }
  if (V.AddedFromValues && !D.AddedFromValues) {
    D.AddedFromValues = V.AddedFromValues;
    D.AddedValuesRead = V.AddedValuesRead;
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
  // site's own graph is fresh, unless the value was computed from the
  // site's previous value (`h = cell(x, h)` round a loop): a mark for the
  // site in the value can only come from an earlier execution, and the new
  // graph holds that earlier one.
  Facts.Freed = V.Freed;
  if (!V.Graph.count(Id))
    Facts.Freed.erase(Id);
  else if (!D.CarriedOver) {
    D.CarriedOver = true;
    DefsChanged = true;
  }
  Facts.Freed.keepOnly(Facts.Graph);
  Facts.Savers = V.Savers;
  // The site's new value is saved by whoever saved the tensor it is.
  S->Saved.eraseFirst(Id);
  for (unsigned Saver : V.SavedBy)
    S->Saved.insert(Id, Saver);
}

void AutogradFlowBuilder::writeInto(const VarDecl *Base, const Expr &Write,
                                    Value Written) {
  Value Old = valueOfVariable(Base);
  Written.Taint = nullptr;
  Written.FromValues = nullptr;
  Written.ValuesRead = nullptr;
  Written.join(Old);
  Written.Same = Old.Same;
  Written.SavedBy = Old.SavedBy;
  define(Base, &Write, beginLoc(Write), Written);
}

const VarDecl *autograd::storedTensorOf(const Expr *LHS) {
  for (int Depth = 0; LHS && Depth < 8; ++Depth) {
    LHS = LHS->IgnoreImplicit()->IgnoreParens();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(LHS))
      return dyn_cast<VarDecl>(Ref->getDecl());
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(LHS)) {
      if (Op->getOperator() != OO_Subscript || Op->getNumArgs() < 1)
        return nullptr;
      LHS = Op->getArg(0);
      continue;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(LHS)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      if (!M || !M->getIdentifier() ||
          !isTensorType(Member->getImplicitObjectArgument()->getType()) ||
          !llvm::is_contained({"select", "narrow", "slice", "index"},
                              M->getName()))
        return nullptr;
      LHS = Member->getImplicitObjectArgument();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

namespace {

bool isStdTie(const CallExpr &Call) {
  const FunctionDecl *F = Call.getDirectCallee();
  return F && F->isInStdNamespace() && F->getDeclName().isIdentifier() &&
         F->getName() == "tie";
}

} // namespace

Value AutogradFlowBuilder::assign(const Expr &LHS, const Expr &RHS,
                                  const Expr &Site, bool Compound) {
  Value R = visit(&RHS);
  const Expr *Target = LHS.IgnoreParenImpCasts();
  // A tensor field of a local struct (`out.probs = torch::softmax(...)`) is
  // assigned like a local tensor.
  const VarDecl *FieldVar = localFieldStandin(Target);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Target); Ref || FieldVar) {
    const auto *Var =
        FieldVar ? FieldVar : dyn_cast<VarDecl>(Ref->getDecl());
    if (!isLocal(Var))
      return R;
    // A write to the whole object replaces its sub-objects (a strong
    // update): what was known of `b.first` no longer holds.
    if (!FieldVar && !Compound)
      killSubobjects(Var);
    if (isTensorValued(Var->getType())) {
      if (Compound) {
        // `x += y` writes into x's tensor, which stays the same tensor.
        Value Old = valueOfVariable(Var);
        if (isa<CXXOperatorCallExpr>(Site))
          recordWrite(Site, Old);
        const bool Additive =
            isa<CXXOperatorCallExpr>(Site)
                ? llvm::is_contained(
                      {OO_PlusEqual, OO_MinusEqual},
                      cast<CXXOperatorCallExpr>(Site).getOperator())
                : false;
        Value Sum = R;
        if (Additive)
          markAddedTerm(Sum, {&Old, &R});
        else if (!keepsAddedTerm(R, Old))
          Sum.AddedFromValues = nullptr;
        R.join(Old);
        R.AddedFromValues = Sum.AddedFromValues;
        R.AddedValuesRead = Sum.AddedValuesRead;
        R.Same = Old.Same;
        R.SavedBy = Old.SavedBy;
      }
      define(Var, &Site, beginLoc(Site), R);
      // A strong write to a sub-object of a tensor-valued local
      // (`p.first = x` of a pair of tensors): the whole, read as one value,
      // may now hold it too (a weak update of the enclosing object).
      if (FieldVar)
        if (std::optional<AccessPath> Path = accessPathOf(*Target);
            Path && Path->Root && isLocal(Path->Root) &&
            isTensorValued(Path->Root->getType()) &&
            S->Tensors.find(Path->Root))
          writeInto(Path->Root, Site, filterByType(R, Path->Root->getType()));
      return valueOfVariable(Var);
    }
    if (R.Taint)
      S->Taint[Var] = R.Taint;
    else if (!Compound)
      S->Taint.erase(Var);
    return R;
  }
  // `std::tie(h, c) = state;`: each tied local takes the tuple's value.
  if (const auto *Tie = dyn_cast<CallExpr>(LHS.IgnoreImplicit());
      Tie && !Compound && isStdTie(*Tie)) {
    // A call whose summary says which elements of its result an operation
    // saved (`return {out, alpha};` with alpha a softmax's result): the
    // other elements do not carry that saver.
    const auto *Source = dyn_cast_or_null<CallExpr>(stripImplicit(&RHS));
    const FunctionSummary *Summary =
        Source ? summaryAt(*Source, Ctx) : nullptr;
    const bool PerElement =
        Summary && Summary->ResultElementsSaved.size() == Tie->getNumArgs();
    for (unsigned I = 0; I < Tie->getNumArgs(); ++I) {
      const Expr *Arg = Tie->getArg(I);
      const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
      const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      if (!isLocal(Var) || !isTensorValued(Var->getType()))
        continue;
      Value Element = filterByType(R, Var->getType());
      if (PerElement && !Summary->ResultElementsSaved[I]) {
        const unsigned Id = saverId(*Source, /*Output=*/true);
        Element.SavedBy.erase(Id);
        Element.Savers.erase(Id);
      }
      define(Var, Ref, beginLoc(Site), Element);
    }
    return R;
  }
  // `model->h = model->h.detach()`: the object's state, replaced by hand.
  if (!Compound)
    writeStateMember(LHS, Site, R);
  // A store into an element: v[i] = x, *p = x, acc[i][j] = x.
  Value L = visit(&LHS);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Site);
      Op && inPlaceWriteTarget(*Op))
    recordWrite(Site, L);
  // `buf[t + 1] = f(buf[t])`, `hs[i] = h`: the tensor (or list) stored into
  // holds the element from now on, with its graph and what saved it; it
  // stays the same tensor.
  if (const VarDecl *Base = storedTensorOf(&LHS);
      Base && isLocal(Base) && isTensorValued(Base->getType())) {
    writeInto(Base, Site, filterByType(R, Base->getType()));
  }
  const VarDecl *Stored = storedVariableOf(&LHS);
  if (R.Taint && isLocal(Stored) && !isTensorValued(Stored->getType()))
    S->Taint.emplace(Stored, R.Taint);
  L.join(R);
  return L;
}

bool AutogradFlowBuilder::visitContainerInsertion(const CallExpr &Call,
                                                  const CallOperands &Ops) {
  // `std::transform(in.begin(), in.end(), out.begin(), [&](...) { return
  // m(s).item<float>(); })`: the lambda's read-out values fill `out`.
  if (isStdCall(Call, "transform") &&
      (Call.getNumArgs() == 4 || Call.getNumArgs() == 5)) {
    const auto *Lambda = dyn_cast<LambdaExpr>(
        Call.getArg(Call.getNumArgs() - 1)->IgnoreImplicit()->IgnoreParenImpCasts());
    // The output iterator: `v.begin()`, `std::back_inserter(v)`.
    const Expr *OutBase =
        iteratorBase(Call.getArg(Call.getNumArgs() - 2), /*Inserters=*/true);
    const VarDecl *Out = OutBase ? storedVariableOf(OutBase) : nullptr;
    const Expr *Read = Lambda ? lambdaReadOut(*Lambda, Ctx) : nullptr;
    if (Read && isLocal(Out) && !isTensorValued(Out->getType())) {
      S->Taint[Out] = Read; // The note points at the read in the lambda.
      return true;
    }
    return false;
  }
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member || !isContainerInsertion(*Member))
    return false;
  // `vec.push_back(x)`, and into an element: `rows[i].push_back(x)`.
  const Expr *Container = Member->getImplicitObjectArgument();
  const VarDecl *Var = storedTensorOf(Container);
  if (isLocal(Var) && isTensorValued(Var->getType())) {
    Value V = filterByType(Ops.AllArgs, Var->getType());
    V.join(valueOfVariable(Var));
    define(Var, &Call, beginLoc(Call), V);
    return true;
  }
  // Host values, also into a field of a local (`rollout.values.push_back`).
  if (!isLocal(Var))
    Var = storedVariableOf(Container);
  if (isLocal(Var) && !isTensorValued(Var->getType()) && Ops.AllArgs.Taint)
    S->Taint.emplace(Var, Ops.AllArgs.Taint);
  return true;
}


void AutogradFlowBuilder::endLifetime(const VarDecl *Var) {
  S->Tensors.erase(Var);
  // The tensor fields of a local struct end with it.
  for (const auto &[Key, Standin] : LocalFieldStandins)
    if (Key.first == Var)
      S->Tensors.erase(Standin);
}

} // namespace clang::tidy::torch
