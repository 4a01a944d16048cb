//===--- SavedTensors.cpp - AutogradFlow's saved tensors ------------------===//
//
// What an operation saves for its backward (the operation table's
// SavesOutput, SavesInput and SavesOperands, when its operands require
// grad), which tensor a value is (the same tensor through in-place calls,
// views by indexing and detach()), the in-place writes into a saved tensor,
// and their report when a backward pass (or the return from a module's
// forward()) needs what was saved.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/autograd/Builder.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "utils/libtorch/OpTable.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include <cstdint>

namespace clang::tidy::torch {

using namespace autograd;

namespace {

/// Evidence that a tensor requires grad where an operation uses it.
bool requiresGrad(const Value &V) {
  return V.History == HistoryEvidence::Evident || V.Backpropagated ||
         V.RequiresGrad;
}

} // namespace

unsigned AutogradFlowBuilder::saverId(const CallExpr &Call, bool Output,
                                      unsigned Params, int Operand) {
  auto [It, Inserted] =
      SaverIds.try_emplace({&Call, Output, Operand}, Savers.size());
  if (Inserted) {
    Savers.push_back({&Call, Output});
    SaverParams.push_back(Params);
    SaverIdsOf[&Call].push_back(It->second);
  } else if (SaverParams[It->second]) {
    // Saved for sure on one path: no longer conditional.
    SaverParams[It->second] = Params ? SaverParams[It->second] | Params : 0;
  }
  return It->second;
}

void AutogradFlowBuilder::recordWrite(const Expr &Write, const Value &Target) {
  if (Target.SavedBy.empty())
    return;
  auto [It, Inserted] = WriteIds.try_emplace(&Write, Writes.size());
  if (Inserted)
    Writes.push_back(&Write);
  for (unsigned Saver : Target.SavedBy)
    S->Pending.insert(It->second, Saver);
}

void AutogradFlowBuilder::reportWrites(const DefSet &Needed, const Stmt &Use,
                                       bool Returned) {
  if (!Reporting)
    return;
  for (const auto &[WriteId, SaverId] : S->Pending) {
    // A saver that saves only if a parameter requires grad: the callers
    // decide (recordConditionalWrites).
    if (!Needed.count(SaverId) || SaverParams[SaverId] ||
        ReportedWrites.contains(Writes[WriteId]))
      continue;
    // A returned write is judged by the check at the callers; each write is
    // recorded once per list.
    if (Returned ? !ReturnedWrites.insert(Writes[WriteId]).second
                 : !ReportedWrites.insert(Writes[WriteId]).second)
      continue;
    AutogradFlow::InPlaceOnSaved R;
    R.Write = Writes[WriteId];
    R.Saver = Savers[SaverId].first;
    R.SavedOutput = Savers[SaverId].second;
    R.Use = &Use;
    R.InnerSaver = InnerSavers.lookup(SaverId);
    R.Through = ThroughCalls.lookup(SaverId);
    (Returned ? Out.ReturnedInPlaceWrites : Out.InPlaceWrites).push_back(R);
  }
}

void AutogradFlowBuilder::recordConditionalWrites(const Value &Returned) {
  for (const auto &[WriteId, SaverId] : S->Pending) {
    if (!Returned.Savers.count(SaverId) || !SaverParams[SaverId] ||
        llvm::any_of(Out.Result.ConditionalWrites, [&](const auto &W) {
          return W.Write == Writes[WriteId];
        }))
      continue;
    AutogradFlow::ConditionalWrite W;
    W.Write = Writes[WriteId];
    W.Saver = Savers[SaverId].first;
    W.SavedOutput = Savers[SaverId].second;
    W.Params = SaverParams[SaverId];
    Out.Result.ConditionalWrites.push_back(W);
  }
}

namespace {

/// A view of the object of a tensor method: an operation of the table that
/// shares storage, or `index` with no tensor among its indices (basic
/// indexing; a tensor index copies).
bool isViewOf(const CallExpr &Call, const Expr *Object) {
  if (!Object || !isa<CXXMemberCallExpr>(Call))
    return false;
  const OpInfo *Info = tensorOpOf(Call);
  if (!Info)
    return false;
  if (Info->Roles & op::SharesStorage)
    return true;
  if (Info->Name != "index" || Call.getNumArgs() != 1)
    return false;
  bool TensorIndex = false;
  forEachStmt(Call.getArg(0), [&](const Stmt &S) {
    if (const auto *E = dyn_cast<Expr>(&S); E && isTensorType(E->getType()))
      TensorIndex = true;
  });
  return !TensorIndex;
}

} // namespace

void AutogradFlowBuilder::trackSameTensor(const CallExpr &Call,
                                          const CallOperands &Ops,
                                          Value &Result) {
  const Expr *Object = Ops.Object;
  const Value &ObjectValue = Ops.ObjectValue;
  const llvm::SmallVector<Value, 4> &Args = Ops.Args;
  if (const Expr *Target = inPlaceWriteTarget(Call)) {
    // The object, an argument (torch::relu_(y)), or the base of a member
    // call still unresolved in a template (not visited yet).
    Value TargetValue;
    if (Target == Object)
      TargetValue = ObjectValue;
    else if (auto It = llvm::find(Call.arguments(), Target);
             It != Call.arg_end())
      TargetValue = Args[It - Call.arg_begin()];
    else
      TargetValue = visit(Target);
    recordWrite(Call, TargetValue);
    Result.Same = TargetValue.Same;
    Result.SavedBy = TargetValue.SavedBy;
    // `out.index_put_({i}, f(out[i - 1]))`, `buf.narrow(0, t, 1).copy_(h)`:
    // the variable written into now holds what was written, with its graph
    // and what saved it.
    if (const VarDecl *Base = storedTensorOf(Target);
        Base && isLocal(Base) && isTensorType(Base->getType())) {
      Value Written = Ops.AllArgs;
      if (Target != Object)
        Written.join(ObjectValue);
      if (Written.History != HistoryEvidence::None || !Written.Graph.empty() ||
          !Written.Savers.empty())
        writeInto(Base, Call, Written);
    }
  } else if (isViewOf(Call, Object)) {
    // A view (`x.select(0, t)`, `x.index({Slice(), 0})`) is the same tensor.
    Result.Same = ObjectValue.Same;
    Result.SavedBy = ObjectValue.SavedBy;
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
             Op && Op->getOperator() == OO_Subscript && !Args.empty() &&
             isTensorType(Op->getArg(0)->getType())) {
    Result.Same = Args[0].Same;
    Result.SavedBy = Args[0].SavedBy;
  } else if (Op && Op->getOperator() == OO_Subscript && !Args.empty() &&
             Op->getNumArgs() == 2 && isTensorValued(Op->getArg(0)->getType()) &&
             isTensorValued(Op->getType())) {
    // `laterals[i]` of a container of tensors: one of the tensors it holds
    // (the container is one weak location: any of them).
    Result.Same = Args[0].Same;
    Result.SavedBy = Args[0].SavedBy;
  } else if (const FunctionDecl *F = Call.getDirectCallee();
             F && F->isInStdNamespace() && F->getIdentifier() &&
             llvm::is_contained({"make_pair", "make_tuple", "move", "forward"},
                                F->getName()) &&
             isTensorValued(Call.getType())) {
    // `std::make_pair(torch::tanh(h), 1.0)`: a pair of the same tensors.
    Result.Same = Ops.AllArgs.Same;
    Result.SavedBy = Ops.AllArgs.SavedBy;
  } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
             Member && Object && isTensorValued(Object->getType()) &&
             !isTensorType(Object->getType()) &&
             isTensorValued(Call.getType())) {
    const CXXMethodDecl *M = Member->getMethodDecl();
    if (M && M->getIdentifier() && M->getParent()->isInStdNamespace() &&
        isElementAccessName(M->getName())) {
      Result.Same = ObjectValue.Same;
      Result.SavedBy = ObjectValue.SavedBy;
    }
  }
}

void AutogradFlowBuilder::recordModuleSaving(const CallExpr &Call,
                                             const CallOperands &Ops,
                                             Value &Result) {
  // The module's weights require grad: every tensor argument is saved.
  bool Saves = false;
  for (unsigned I = 0; I < Call.getNumArgs() && I < Ops.Args.size(); ++I) {
    if (!isTensorType(Call.getArg(I)->getType()) || Ops.Args[I].Same.empty())
      continue;
    unsigned Id = saverId(Call, /*Output=*/false);
    for (unsigned Def : Ops.Args[I].Same)
      S->Saved.insert(Def, Id);
    Saves = true;
  }
  if (!Saves)
    return;
  unsigned Id = saverId(Call, /*Output=*/false);
  Result.Savers.insert(Id);
  S->Pending.eraseSeconds(DefSet{Id});
}

void AutogradFlowBuilder::recordConditionalCallWrites(
    const CallExpr &Call, const CallOperands &Ops,
    const FunctionSummary &Summary, Value &Result) {
  if (Summary.ConditionalWrites.empty() || underNoGradGuard(Call))
    return;
  const unsigned Shift =
      isa<CXXOperatorCallExpr>(Call) && !isa<CXXMemberCallExpr>(Call) &&
              cast<CXXOperatorCallExpr>(Call).getOperator() == OO_Call
          ? 1
          : 0;
  // A write inside the callee into what it saved because an argument
  // requires grad: this argument does, so the result's backward pass needs
  // a tensor the call has already changed.
  for (const AutogradFlow::ConditionalWrite &W : Summary.ConditionalWrites) {
    bool Requires = false;
    for (unsigned I = 0; I < 32 && !Requires; ++I)
      if ((W.Params & (1u << I)) && I + Shift < Ops.Args.size() &&
          I + Shift < Call.getNumArgs())
        Requires = requiresGrad(Ops.Args[I + Shift]);
    if (!Requires)
      continue;
    unsigned Id = saverId(*W.Saver, W.SavedOutput);
    ThroughCalls.try_emplace(Id, &Call);
    auto [It, Inserted] = WriteIds.try_emplace(W.Write, Writes.size());
    if (Inserted)
      Writes.push_back(W.Write);
    S->Pending.insert(It->second, Id);
    Result.Savers.insert(Id);
  }
}

void AutogradFlowBuilder::recordCalleeSaving(const CallExpr &Call,
                                             const CallOperands &Ops,
                                             const FunctionSummary &Summary,
                                             Value &Result) {
  // `model(x)` on a holder: the object is the first operand.
  const unsigned Shift =
      isa<CXXOperatorCallExpr>(Call) && !isa<CXXMemberCallExpr>(Call) &&
              cast<CXXOperatorCallExpr>(Call).getOperator() == OO_Call
          ? 1
          : 0;
  bool SavesArgs = false;
  for (const auto &[Index, Inner] : Summary.SavedParams) {
    const unsigned Arg = Index + Shift;
    if (Arg >= Call.getNumArgs() || Arg >= Ops.Args.size() ||
        Ops.Args[Arg].Same.empty())
      continue;
    unsigned Id = saverId(Call, /*Output=*/false);
    InnerSavers.try_emplace(Id, Inner);
    for (unsigned Def : Ops.Args[Arg].Same)
      S->Saved.insert(Def, Id);
    SavesArgs = true;
  }
  if (SavesArgs) {
    unsigned Id = saverId(Call, /*Output=*/false);
    Result.Savers.insert(Id);
    S->Pending.eraseSeconds(DefSet{Id});
  }
  recordConditionalCallWrites(Call, Ops, Summary, Result);
  if (Summary.ResultSaver || Summary.ResultSavedElsewhere) {
    unsigned Id = saverId(Call, /*Output=*/true);
    InnerSavers.try_emplace(Id, Summary.ResultSaver);
    Result.Same.clear();
    Result.SavedBy = DefSet{Id};
    Result.Savers.insert(Id);
    S->Pending.eraseSeconds(DefSet{Id});
  }
}

void AutogradFlowBuilder::recordSaving(const CallExpr &Call,
                                       const Value &ObjectValue,
                                       llvm::ArrayRef<Value> Args,
                                       Value &Result) {
  const std::uint64_t Roles = savingRolesOf(Call);
  // The tensor operands (a scalar operand saves nothing and needs nothing).
  llvm::SmallVector<const Value *, 3> Operands;
  if (isa<CXXMemberCallExpr>(&Call))
    Operands.push_back(&ObjectValue);
  for (unsigned I = 0; I < Call.getNumArgs() && I < Args.size(); ++I) {
    QualType T = Call.getArg(I)->getType();
    if (isTensorType(T) || T->isDependentType())
      Operands.push_back(&Args[I]);
  }
  // Saved for sure when an operand requires grad; else, when an operand is
  // computed from a tensor parameter, saved if that parameter requires grad:
  // a conditional saver, one per saved operand with the parameters that
  // make it save, which only the function's callers can judge.
  bool Saves = false;
  for (bool Conditional : {false, true}) {
    auto Needs = [&](const Value *V) {
      return requiresGrad(*V) || (Conditional && V->Params);
    };
    unsigned AllParams = 0;
    bool AnyNeeds = false;
    for (const Value *Operand : Operands)
      if (Needs(Operand)) {
        AnyNeeds = true;
        AllParams |= Operand->Params;
      }
    for (unsigned K = 0; K < Operands.size(); ++K) {
      const Value &Operand = *Operands[K];
      bool Saved = false;
      unsigned Params = 0;
      if ((Roles & op::SavesInput) && Needs(&Operand)) {
        Saved = true;
        Params |= Operand.Params;
      }
      if (Roles & op::SavesOperands)
        for (unsigned J = 0; J < Operands.size(); ++J)
          if (J != K && Needs(Operands[J])) {
            Saved = true;
            Params |= Operands[J]->Params;
          }
      if (!Saved || (Conditional && !Params))
        continue;
      unsigned Id = Conditional ? saverId(Call, /*Output=*/false, Params,
                                          static_cast<int>(K))
                                : saverId(Call, /*Output=*/false);
      for (unsigned Def : Operand.Same)
        S->Saved.insert(Def, Id);
      Result.Savers.insert(Id);
      Saves = true;
    }
    if ((Roles & op::SavesOutput) && AnyNeeds &&
        (!Conditional || AllParams)) {
      unsigned Id =
          saverId(Call, /*Output=*/true, Conditional ? AllParams : 0);
      const OpInfo *Info = tensorOpOf(Call);
      if (Info && (Info->Roles & op::InPlace) && isa<CXXMemberCallExpr>(Call)) {
        // An in-place operation's output is its object: what it saved is
        // the object's tensor, which a later in-place write changes.
        for (unsigned Def : ObjectValue.Same)
          S->Saved.insert(Def, Id);
        // ... and the variable holding it carries the saver to the backward
        // pass that reaches it.
        if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
          if (const VarDecl *Base =
                  storedTensorOf(Member->getImplicitObjectArgument());
              Base && isLocal(Base) && isTensorType(Base->getType()) &&
              S->Tensors.find(Base))
            S->Tensors[Base].Savers.insert(Id);
      } else {
        Result.Same.clear();
        Result.SavedBy = DefSet{Id};
      }
      Result.Savers.insert(Id);
      Saves = true;
    }
    if (Saves)
      break;
  }
  if (!Saves)
    return;
  // Executed again (in a loop): writes into what its previous execution
  // saved no longer concern the graph it builds now.
  DefSet Again;
  for (unsigned Id : SaverIdsOf.lookup(&Call))
    Again.insert(Id);
  S->Pending.eraseSeconds(Again);
}

} // namespace clang::tidy::torch
