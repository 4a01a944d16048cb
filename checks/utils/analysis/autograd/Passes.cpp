//===--- Passes.cpp - AutogradFlow's backward passes ----------------------===//
//
// Backward passes (Tensor::backward, torch::autograd::backward,
// torch::autograd::grad, and in a template a dependent backward()): what a
// pass keeps of its graph (retain_graph, create_graph), which definitions it
// reaches and marks backpropagated, the second pass through a graph an
// earlier pass freed, and the freed marks a pass leaves on every variable
// whose value reaches its graph. Also the tensors rebuilt from read-out
// values that reach a gradient use.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/autograd/Builder.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include <optional>

namespace clang::tidy::torch {

// --- Retention and argument roles of backward passes
// ---------------------------

std::optional<bool>
autograd::constantFlag(const Expr *Arg, const ASTContext &Ctx, bool &IsEmpty) {
  IsEmpty = false;
  if (!Arg)
    return std::nullopt;
  if (isEmptyOptional(Arg)) {
    IsEmpty = true;
    return std::nullopt;
  }
  const Expr *E = stripArgumentConversions(Arg);
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  if (isEmptyOptional(E)) {
    IsEmpty = true;
    return std::nullopt;
  }
  bool Value = false;
  if (!E->getType()->isScalarType() ||
      !E->EvaluateAsBooleanCondition(Value, Ctx))
    return std::nullopt;
  return Value;
}

const Expr *writtenRetainGraphArg(const CallExpr &Pass) {
  std::optional<PassFlagPositions> Sig = passFlagPositions(Pass);
  return Sig ? writtenArg(Pass, Sig->RetainIndex) : nullptr;
}

GraphRetention graphRetentionOf(const CallExpr &Pass, const ASTContext &Ctx) {
  std::optional<PassFlagPositions> Sig = passFlagPositions(Pass);
  if (!Sig)
    return GraphRetention::Unknown;
  // Both torch::autograd::backward and Tensor::backward default retain_graph
  // to create_graph.
  bool Empty = false;
  if (const Expr *Retain = writtenArg(Pass, Sig->RetainIndex)) {
    std::optional<bool> Value = autograd::constantFlag(Retain, Ctx, Empty);
    if (Value)
      return *Value ? GraphRetention::Retains : GraphRetention::Frees;
    if (!Empty)
      return GraphRetention::Unknown;
  }
  const Expr *Create = writtenArg(Pass, Sig->CreateIndex);
  if (!Create)
    return GraphRetention::Frees;
  std::optional<bool> Value = autograd::constantFlag(Create, Ctx, Empty);
  if (!Value)
    return GraphRetention::Unknown;
  return *Value ? GraphRetention::Retains : GraphRetention::Frees;
}

// --- Passes in the dataflow
// ---------------------------------------------------------

using namespace autograd;

namespace {

/// The tensor (or list of tensors) a pass backpropagates from.
const Expr *passRootOf(const CallExpr &Pass) {
  if (const Expr *Object = memberCallObject(Pass))
    return Object;
  return Pass.getNumArgs() > 0 ? Pass.getArg(0) : nullptr;
}

} // namespace

std::optional<Value> AutogradFlowBuilder::visitPass(const CallExpr &Call,
                                                    const CallOperands &Ops) {
  const Expr *Object = Ops.Object;
  const Value &ObjectValue = Ops.ObjectValue;
  const llvm::SmallVector<Value, 4> &Args = Ops.Args;
  const Value &AllArgs = Ops.AllArgs;
  // In a template, `loss.backward()` on a `loss` of dependent type is a pass
  // when the loss evidently has history (a dependent forward's, a loss's).
  const bool DependentPass = isDependentBackwardCall(Call) &&
                             ObjectValue.History == HistoryEvidence::Evident;
  if (!(isBackwardCall(Call) || isAutogradGradCall(Call) || DependentPass))
    return std::nullopt;
  Value RootValue = Object ? ObjectValue : (Args.empty() ? Value() : Args[0]);
  pass(Call, RootValue, passRootOf(Call), graphRetentionOf(Call, Ctx));
  if (!isAutogradGradCall(Call))
    return Value();
  // grad() returns gradients with history only with create_graph=true.
  bool Empty = false;
  const Expr *Create = writtenArg(Call, 4);
  std::optional<bool> CreateGraph = constantFlag(Create, Ctx, Empty);
  if (!Create || (CreateGraph && !*CreateGraph))
    return Value();
  Value V = AllArgs;
  newTensor(V);
  V.Savers.clear();
  return V;
}

void AutogradFlowBuilder::pass(const CallExpr &Call, const Value &Root,
                               const Expr *RootExpr,
                               GraphRetention Retention) {
  PassRoots.try_emplace(&Call, RootExpr);
  // The backpropagated tensor itself is part of the graph even without other
  // evidence: backward() on it is evidence of history.
  DefSet Reach = Root.Graph;
  DefSet RootDefs;
  FreedSet Freed = Root.Freed;
  DefSet Needed = Root.Savers;
  if (const VarDecl *Var = soleVariableOf(RootExpr); isLocal(Var)) {
    if (const TensorFacts *Facts = S->Tensors.find(Var)) {
      Freed.insertAll(Facts->Freed);
      Needed.insertAll(Facts->Savers);
      for (unsigned Id : Facts->Reaching) {
        Reach.insert(Id);
        RootDefs.insert(Id);
        markBackpropagated(Id);
      }
    }
  }

  reportBroken(Root, Call, AutogradFlow::GradientUse::Backpropagated);
  if (Reporting && Root.AddedFromValues &&
      Reported.insert(Root.AddedFromValues).second)
    Out.BrokenGraphs.push_back({Root.AddedFromValues, Root.AddedValuesRead,
                                &Call, AutogradFlow::GradientUse::AddedToLoss});

  // The pass needs what the savers of its graph saved; once it ran without
  // retaining the graph, those tensors are free to change.
  reportWrites(Needed, Call);
  if (Retention != GraphRetention::Retains) {
    S->Pending.eraseSeconds(Needed);
    S->Saved.eraseSeconds(Needed);
  }
  reportSecondPass(Call, Reach, RootDefs, Freed);
  if (Retention == GraphRetention::Frees)
    freeGraph(Call, Reach);
}

void AutogradFlowBuilder::reportSecondPass(const CallExpr &Call,
                                           const DefSet &Reach,
                                           const DefSet &RootDefs,
                                           const FreedSet &Freed) {
  if (!Reporting || Reported.count(&Call))
    return;
  // Name the backpropagated tensor itself if its graph was freed, else the
  // latest (closest) shared intermediate.
  std::optional<unsigned> SharedId;
  for (unsigned Id : RootDefs)
    if (Freed.count(Id)) {
      SharedId = Id;
      break;
    }
  if (!SharedId)
    for (auto Id = Reach.rbegin(); Id != Reach.rend(); ++Id)
      if (Freed.count(*Id)) {
        SharedId = *Id;
        break;
      }
  if (SharedId) {
    const unsigned Id = *SharedId;
    const CallExpr *First = Freed.lookup(Id);
    Reported.insert(&Call);
    AutogradFlow::SecondPass P;
    P.Failing = &Call;
    P.First = First;
    P.Shared = Defs[Id].Var;
    P.SharedDefinitionLoc = Defs[Id].Loc;
    P.CarriedOver = Defs[Id].CarriedOver;
    P.StateMember = Defs[Id].StateMember;
    P.StateWrite = Defs[Id].StateWrite;
    P.StateWriter = Defs[Id].StateWriter;
    P.FailingRoot = soleVariableOf(PassRoots.lookup(&Call));
    P.FirstRoot = soleVariableOf(PassRoots.lookup(First));
    P.Via = PassVia;
    Out.SecondPasses.push_back(P);
  }
}

void AutogradFlowBuilder::freeGraph(const CallExpr &Call, const DefSet &Reach) {
  if (Reach.empty())
    return;
  // Every variable whose value reaches a freed graph now holds a freed one.
  for (auto &[Var, Facts] : S->Tensors) {
    for (unsigned Id : Facts.Reaching)
      if (Reach.count(Id))
        Facts.Freed.emplace(Id, &Call);
    for (unsigned Id : Facts.Graph)
      if (Reach.count(Id))
        Facts.Freed.emplace(Id, &Call);
  }
}

void AutogradFlowBuilder::markDependentPass(const CallExpr &Call) {
  if (dependentCalleeName(Call) == "backward")
    if (const VarDecl *Var = soleVariableOf(callObject(Call)); isLocal(Var))
      if (const TensorFacts *Facts = S->Tensors.find(Var))
        for (unsigned Id : Facts->Reaching)
          markBackpropagated(Id);
}

void AutogradFlowBuilder::markBackpropagated(unsigned Id) {
  if (!Defs[Id].Backpropagated) {
    Defs[Id].Backpropagated = true;
    DefsChanged = true;
  }
}

void AutogradFlowBuilder::reportBroken(const Value &V, const Stmt &Use,
                                       AutogradFlow::GradientUse Kind) {
  if (!Reporting || !V.FromValues || V.History != HistoryEvidence::None ||
      !Reported.insert(V.FromValues).second)
    return;
  Out.BrokenGraphs.push_back({V.FromValues, V.ValuesRead, &Use, Kind});
}

} // namespace clang::tidy::torch
