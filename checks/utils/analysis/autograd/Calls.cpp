//===--- Calls.cpp - AutogradFlow's transfer functions for calls ----------===//
//
// A call's operands are evaluated first, left to right; then the call is, in
// this order: an assignment operator (Assignments.cpp), a backward pass
// (Passes.cpp), a source or sink of history (a value read, detach() and fresh
// tensors, a module's forward or a loss, a tensor built from host values), a
// container insertion (Assignments.cpp), a call of a user function with a
// summary (FunctionSummary.h), or any other operation: its result is computed
// from its operands, keeping their evidence through the operation table's
// Differentiable operations and tensor arithmetic, and it may save tensors
// for its backward (SavedTensors.cpp).
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/autograd/Builder.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "utils/libtorch/OpTable.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::torch {

using namespace autograd;

namespace {

/// Calls whose result carries its operands' evidence of history unchanged:
/// LibTorch's differentiable operations (op::Differentiable), arithmetic and
/// indexing on tensors, and IValue::toTensor.
bool keepsEvidence(const CallExpr &Call) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    switch (Op->getOperator()) {
    case OO_Plus:
    case OO_Minus:
    case OO_Star:
    case OO_Slash:
    case OO_Subscript:
      return isTensorType(Op->getType());
    default:
      return false;
    }
  }
  if (isDifferentiableCall(Call) || isIValueToTensorCall(Call))
    return true;
  // std::get<I>(tuple) of a tuple of tensors: an element of the value.
  if (const FunctionDecl *F = Call.getDirectCallee();
      F && F->isInStdNamespace() && F->getDeclName().isIdentifier() &&
      F->getName() == "get" && isTensorValued(Call.getType()))
    return true;
  // In a template, `out.mean()` on a dependent `out`: only the name is known.
  const Expr *Callee = stripImplicit(Call.getCallee());
  if (const auto *Member =
          dyn_cast_or_null<CXXDependentScopeMemberExpr>(Callee))
    return opHas(identifierOf(Member->getMember()), op::Differentiable);
  return false;
}

/// `dependent.detach()`, `dependent.item()` in a template: by name only.
bool removesHistoryAsWritten(const CallExpr &Call) {
  const Expr *Callee = stripImplicit(Call.getCallee());
  const auto *Member = dyn_cast_or_null<CXXDependentScopeMemberExpr>(Callee);
  return Member && opHas(identifierOf(Member->getMember()), op::RemovesHistory);
}

} // namespace

Value AutogradFlowBuilder::visitCall(const CallExpr &Call) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    if (Op->isAssignmentOp() && Op->getNumArgs() == 2)
      return assign(*Op->getArg(0), *Op->getArg(1), *Op,
                    Op->getOperator() != OO_Equal);
  }

  const CallOperands Ops = visitOperands(Call);
  if (std::optional<Value> V = visitPass(Call, Ops))
    return *V;
  if (std::optional<Value> V = visitHistorySource(Call, Ops))
    return *V;
  // Filling a container: vec.push_back(x), vec.emplace_back(...), ...
  if (visitContainerInsertion(Call, Ops))
    return {};
  markDependentPass(Call);

  Value Operands = Ops.AllArgs;
  Operands.join(Ops.ObjectValue);
  if (std::optional<Value> Summarised = visitUserCall(Call, Operands))
    return *Summarised;
  return visitOperation(Call, Ops);
}

AutogradFlowBuilder::CallOperands
AutogradFlowBuilder::visitOperands(const CallExpr &Call) {
  // Operands first, left to right: their effects happen before the call.
  CallOperands Ops;
  Ops.Object = memberCallObject(Call);
  if (Ops.Object)
    Ops.ObjectValue = visit(Ops.Object);
  for (const Expr *Arg : Call.arguments()) {
    Ops.Args.push_back(visit(Arg));
    Ops.AllArgs.join(Ops.Args.back());
  }
  return Ops;
}

/// Calls that read values out of a tensor, drop its history, produce history
/// (a module's forward, a loss) or build a tensor from host values; nullopt
/// for any other call.
std::optional<Value>
AutogradFlowBuilder::visitHistorySource(const CallExpr &Call,
                                        const CallOperands &Ops) {
  const Value &ObjectValue = Ops.ObjectValue;
  const llvm::SmallVector<Value, 4> &Args = Ops.Args;
  const Value &AllArgs = Ops.AllArgs;
  if (isTensorValueReadCall(Call)) {
    Value V;
    if (ObjectValue.History != HistoryEvidence::None)
      V.Taint = &Call;
    return V;
  }
  // detach()/item() and fresh tensors (zeros_like(x), full_like(x, 1), ...)
  // carry no history, whatever their operands had.
  if (isHistoryRemovingCall(Call) || isTensorFactoryCall(Call) ||
      removesHistoryAsWritten(Call)) {
    // detach() shares the tensor's storage and version counter.
    Value V;
    if (const OpInfo *Info = tensorOpOf(Call);
        Info && (Info->Roles & op::Detach)) {
      V.Same = ObjectValue.Same;
      V.SavedBy = ObjectValue.SavedBy;
    }
    return V;
  }

  if (isModuleForwardCall(Call) || isLossCall(Call)) {
    Value V = AllArgs;
    V.Taint = nullptr;
    newTensor(V);
    if (isLossCall(Call)) {
      const Expr *Prediction = lossPredictionArg(Call);
      for (unsigned I = 0; I < Call.getNumArgs(); ++I)
        if (Call.getArg(I) == Prediction)
          reportBroken(Args[I], Call,
                       AutogradFlow::GradientUse::LossPrediction);
      V.FromValues = nullptr;
      V.ValuesRead = nullptr;
    }
    if (!underNoGradGuard(Call)) {
      V.History = HistoryEvidence::Evident;
      // A layer with weights saves its input for the weight's gradient
      // (`cell(states[t])`): a later write into that input breaks it.
      if (moduleSavesInput(forwardModuleClass(Call)))
        recordModuleSaving(Call, Ops, V);
    }
    return V;
  }

  if (isTensorFromValuesCall(Call)) {
    Value V;
    if (!Args.empty() && Args[0].Taint) {
      V.FromValues = &Call;
      V.ValuesRead = Args[0].Taint;
    }
    return V;
  }
  return std::nullopt;
}

std::optional<Value> AutogradFlowBuilder::visitUserCall(const CallExpr &Call,
                                                        const Value &Operands) {
  // The callee's summary: its own, or the one another translation unit
  // wrote for it (ProjectSummaries).
  const FunctionSummary *Summary = summaryAt(Call, Ctx);
  if (!Summary)
    return std::nullopt;
  // What the callee returns, from its summary: history it creates itself
  // (a forward or a loss inside it) unless this call runs under a guard;
  // none when it returns a detached, read-out or fresh tensor. When it may
  // return what it was given (or a member), the call is any other call.
  Value V;
  switch (Summary->ResultHistory) {
  case HistoryEvidence::Evident:
    if (!underNoGradGuard(Call))
      V.History = HistoryEvidence::Evident;
    break;
  case HistoryEvidence::Possible:
    return std::nullopt;
  case HistoryEvidence::None:
    break;
  }
  // A tensor rebuilt inside the callee from values read out of an argument
  // with history (or of a member).
  if (Summary->ResultFromValues && V.History == HistoryEvidence::None &&
      (Operands.History != HistoryEvidence::None || Operands.Backpropagated)) {
    V.FromValues = Summary->ResultFromValues;
    V.ValuesRead = Summary->ResultValuesRead;
  } else if (Summary->ResultFromValuesElsewhere &&
             V.History == HistoryEvidence::None &&
             (Operands.History != HistoryEvidence::None ||
              Operands.Backpropagated)) {
    // Rebuilt in another file: the call is the construction, and what it
    // was handed the values read.
    V.FromValues = &Call;
    V.ValuesRead = Call.getNumArgs() ? Call.getArg(0) : &Call;
  }
  return V;
}

Value AutogradFlowBuilder::visitOperation(const CallExpr &Call,
                                          const CallOperands &Ops) {
  // Anything else computes its result from its operands. The evidence passes
  // on as it is through LibTorch's differentiable operations, arithmetic on
  // tensors and the tensor a TorchScript module returned; any other call
  // (a user function, an operation the table does not know) may or may not
  // keep the history.
  Value V = Ops.AllArgs;
  V.join(Ops.ObjectValue);
  if (!keepsEvidence(Call))
    capEvidence(V);
  newTensor(V);
  trackSameTensor(Call, Ops, V);
  if (!underNoGradGuard(Call) && savingRolesOf(Call))
    recordSaving(Call, Ops.ObjectValue, Ops.Args, V);
  return V;
}

bool AutogradFlowBuilder::underNoGradGuard(const CallExpr &Call) {
  auto [It, Inserted] = NoGrad.try_emplace(&Call, false);
  if (Inserted)
    It->second = GradMode.isOffAt(Call, Fn);
  return It->second;
}

} // namespace clang::tidy::torch
