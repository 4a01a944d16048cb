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
#include "utils/analysis/autograd/MemberState.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "utils/libtorch/OpTable.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::torch {

using namespace autograd;

namespace {

/// How an operation treats a sum with a rebuilt term (Value::AddedFromValues).
enum class SumRole { Adds, Scales, Keeps, Other };

SumRole sumRoleOf(const CallExpr &Call) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    switch (Op->getOperator()) {
    case OO_Plus:
    case OO_Minus:
      return Op->getNumArgs() == 2 ? SumRole::Adds : SumRole::Keeps;
    case OO_Star:
    case OO_Slash:
      return SumRole::Scales;
    default:
      return SumRole::Other;
    }
  }
  const OpInfo *Info = tensorOpOf(Call);
  if (!Info)
    return SumRole::Other;
  return llvm::StringSwitch<SumRole>(Info->Name)
      .Cases("add", "sub", "subtract", SumRole::Adds)
      .Cases("mul", "multiply", "div", "divide", SumRole::Scales)
      .Cases("sum", "mean", "neg", "negative", "squeeze", SumRole::Keeps)
      .Cases("view", "reshape", "flatten", "unsqueeze", SumRole::Keeps)
      .Default(SumRole::Other);
}

/// `model->parameters()`, `model.named_parameters()`: a module's parameters.
bool isModuleParametersCall(const CallExpr &Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  const CXXMethodDecl *M = Member ? Member->getMethodDecl() : nullptr;
  return M && M->getIdentifier() &&
         (M->getName() == "parameters" || M->getName() == "named_parameters") &&
         isModuleClass(M->getParent());
}

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
      return isTensorType(Op->getType());
    case OO_Subscript:
      // `t[0]` of a tensor, `v[i]` of a container of tensors at any depth
      // (`layers[l][t]`): an element of the value.
      return isTensorType(Op->getType()) ||
             (Op->getNumArgs() == 2 && isTensorValued(Op->getType()) &&
              isTensorValued(Op->getArg(0)->getType()));
    default:
      return false;
    }
  }
  if (isDifferentiableCall(Call) || isIValueToTensorCall(Call))
    return true;
  // `p.value()` on an entry of named_parameters() (torch::OrderedDict<Key,
  // Tensor>::Item): the tensor itself.
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    if (const CXXMethodDecl *M = Member->getMethodDecl();
        M && M->getIdentifier() && M->getName() == "value" &&
        M->getParent()->getIdentifier() &&
        M->getParent()->getName() == "Item" && isTensorType(Call.getType()))
      if (const auto *Dict = dyn_cast<ClassTemplateSpecializationDecl>(
              M->getParent()->getParent());
          Dict && Dict->getQualifiedNameAsString() == "torch::OrderedDict")
        return true;
  // `m.at("loss")`, `v.front()`, `q.back()` of a standard container holding
  // tensors: an element of the value.
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    if (const CXXMethodDecl *M = Member->getMethodDecl();
        M && M->getIdentifier() && M->getParent()->isInStdNamespace() &&
        isElementAccessName(M->getName()) &&
        isTensorValued(Call.getType()) &&
        isTensorValued(Member->getImplicitObjectArgument()->getType()))
      return true;
  // std::get<I>(tuple) of a tuple of tensors: an element of the value; and
  // std::make_pair / std::make_tuple of tensors: the elements as a whole.
  if (const FunctionDecl *F = Call.getDirectCallee();
      F && F->isInStdNamespace() && F->getDeclName().isIdentifier() &&
      llvm::is_contained({"get", "make_pair", "make_tuple"}, F->getName()) &&
      isTensorValued(Call.getType()))
    return true;
  // In a template, `out.mean()` on a dependent `out`: only the name is known.
  const Expr *Callee = stripImplicit(Call.getCallee());
  if (const auto *Member =
          dyn_cast_or_null<CXXDependentScopeMemberExpr>(Callee))
    return opHas(identifierOf(Member->getMember()), op::Differentiable);
  return false;
}

/// A call whose callee is out of sight: through a std::function or a
/// function pointer with no lambda or function of the user's in view.
bool isOpaqueCallable(const CallExpr &Call, const ASTContext &Ctx) {
  if (!calledBodies(Call, Ctx).empty())
    return false;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    const auto *M = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    return Op->getOperator() == OO_Call && M &&
           M->getParent()->getQualifiedNameAsString() == "std::function";
  }
  return !Call.getDirectCallee() && Call.getCalleeDecl() &&
         !isa<FunctionDecl>(Call.getCalleeDecl());
}

/// A call that returns a floating-point host value.
bool isFloatingHostResult(const CallExpr &Call) {
  QualType T = Call.getType().getNonReferenceType().getCanonicalType();
  return T->isRealFloatingType();
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
  Value V = visitCallee(Call, Ops);
  trackObjectState(Call, V);
  trackFieldWrites(Call, Ops);
  return V;
}

Value AutogradFlowBuilder::visitCallee(const CallExpr &Call,
                                       const CallOperands &Ops) {
  if (std::optional<Value> V = visitHistorySource(Call, Ops))
    return *V;
  // Filling a container: vec.push_back(x), vec.emplace_back(...), ...
  if (visitContainerInsertion(Call, Ops))
    return {};
  markDependentPass(Call);

  // A helper that backpropagates an argument: a pass at the call.
  if (const FunctionSummary *Summary = summaryAt(Call, Ctx)) {
    const unsigned Shift = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
    for (unsigned Index : Summary->BackpropagatedParams)
      if (Index + Shift < Call.getNumArgs() &&
          Index + Shift < Ops.Args.size() &&
          Ops.Args[Index + Shift].History == HistoryEvidence::Evident)
        pass(Call, Ops.Args[Index + Shift], Call.getArg(Index + Shift),
             GraphRetention::Frees);
    // ... or values computed from arguments: one pass per backward() in it,
    // through the graphs of the arguments it computes that value from.
    // Each is the helper's own pass (the second one is where it fails; the
    // first keeps the graph with retain_graph=true).
    FreedSet Earlier; // What this call's earlier passes freed.
    for (const auto &Through : Summary->BackpropagatedThrough) {
      Value Root;
      bool Any = false;
      for (unsigned I = 0; I < 32; ++I)
        if ((Through.Params & (1u << I)) && I + Shift < Call.getNumArgs() &&
            I + Shift < Ops.Args.size() &&
            Ops.Args[I + Shift].History == HistoryEvidence::Evident) {
          Root.join(Ops.Args[I + Shift]);
          Any = true;
        }
      const Expr *InnerRoot = memberCallObject(*Through.Pass);
      if (!InnerRoot && Through.Pass->getNumArgs() > 0)
        InnerRoot = Through.Pass->getArg(0);
      if (!Any || underNoGradGuard(Call))
        continue;
      for (const auto &[Id, By] : Earlier)
        if (Root.Graph.count(Id))
          Root.Freed.emplace(Id, By);
      PassVia = &Call;
      pass(*Through.Pass, Root, InnerRoot, GraphRetention::Frees);
      PassVia = nullptr;
      for (unsigned Id : Root.Graph)
        Earlier.emplace(Id, Through.Pass);
    }
    // A helper that writes into an argument in place: the call is the write.
    if (!Summary->WrittenParams.empty())
      for (unsigned Index : Summary->WrittenParams)
        if (Index + Shift < Call.getNumArgs() &&
            Index + Shift < Ops.Args.size())
          recordWrite(Call, Ops.Args[Index + Shift]);
    // A helper that returns its argument: the result is that tensor.
    if (Summary->ReturnedParams.size() == 1 &&
        Summary->ReturnedParams[0] + Shift < Ops.Args.size() &&
        !underNoGradGuard(Call))
      return Ops.Args[Summary->ReturnedParams[0] + Shift];
  }
  // A callable that holds one of several lambdas (a std::function member
  // assigned `[](Tensor t) { return t.relu_(); }` on one path and another
  // lambda on the other): a lambda that writes into its argument in place
  // may be the one that runs.
  llvm::SmallVector<unsigned, 2> Written;
  const unsigned WrittenShift = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
  if (!summaryAt(Call, Ctx)) {
    const unsigned Shift = WrittenShift;
    for (const FunctionDecl *Body : calledBodies(Call, Ctx))
      if (const FunctionSummary *S =
              Body->getBody() ? FunctionSummary::summarise(*Body, Ctx) : nullptr)
        for (unsigned Index : S->WrittenParams)
          if (!llvm::is_contained(Written, Index))
            Written.push_back(Index);
    for (unsigned Index : Written)
      if (Index + Shift < Call.getNumArgs() && Index + Shift < Ops.Args.size())
        recordWrite(Call, Ops.Args[Index + Shift]);
  }
  Value Operands = Ops.AllArgs;
  Operands.join(Ops.ObjectValue);
  if (std::optional<Value> Summarised = visitUserCall(Call, Operands)) {
    if (const FunctionSummary *Summary = summaryAt(Call, Ctx);
        Summary && !underNoGradGuard(Call))
      recordCalleeSaving(Call, Ops, *Summary, *Summarised);
    return *Summarised;
  }
  Value V = visitOperation(Call, Ops);
  // A host value (a double, a float) that a callable out of sight computes
  // from a tensor with history (a loss callback held in a std::function
  // without a lambda in view, a function pointer): whatever it did, the
  // value carries no graph, and rebuilding a tensor from it cuts it.
  if (!V.Taint && isFloatingHostResult(Call) && isOpaqueCallable(Call, Ctx) &&
      (Ops.AllArgs.History == HistoryEvidence::Evident ||
       Ops.AllArgs.Backpropagated))
    V.Taint = &Call;
  // What it wrote into in place and computes its result from is still
  // needed by the result's backward pass (`x = post_act(x); return fc2(x);`).
  for (unsigned Index : Written)
    if (Index + WrittenShift < Ops.Args.size())
      V.Savers.insertAll(Ops.Args[Index + WrittenShift].Savers);
  // A helper that returns what it was handed, changed: what it saved and
  // wrote into is still needed by the result.
  if (const FunctionSummary *Summary = summaryAt(Call, Ctx))
    recordConditionalCallWrites(Call, Ops, *Summary, V);
  return V;
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
    // Values read out of a tensor with history, or out of a leaf that
    // requires grad (a parameter) where gradient recording is on: under a
    // no-grad guard they are read for logging or a manual update.
    Value V;
    if (ObjectValue.History != HistoryEvidence::None ||
        (ObjectValue.RequiresGrad && !underNoGradGuard(Call)))
      V.Taint = &Call;
    return V;
  }
  // `x.requires_grad_()`: x is now a leaf that requires grad. A tensor
  // rebuilt from read-out values stays what it was: a new leaf does not
  // connect it to the graph its values came from.
  if (const Expr *Object = Ops.Object;
      Object && setsRequiresGrad(Call) && !ObjectValue.FromValues) {
    Value V = ObjectValue;
    V.RequiresGrad = true;
    if (const VarDecl *Var = soleVariableOf(Object);
        isLocal(Var) && isTensorType(Var->getType()))
      define(Var, &Call, beginLoc(Call), V);
    return V;
  }
  // A leaf's gradient (`p.grad()`, `model->fc->weight.grad()`): filled by a
  // backward pass, it has no history of its own.
  if (isGradientCall(Call))
    return Value{};
  // A module's parameters are leaves that require grad.
  if (isModuleParametersCall(Call)) {
    Value V;
    V.RequiresGrad = true;
    return V;
  }
  // argmax, eq, isnan, new_zeros, ...: no gradient flows through them, and
  // their result has no history (nor values read out of one).
  if (isNonDifferentiableCall(Call)) {
    Value V;
    newTensor(V);
    return V;
  }
  // detach()/item() and fresh tensors (zeros_like(x), full_like(x, 1), ...)
  // carry no history, whatever their operands had.
  if (isHistoryRemovingCall(Call) || isTensorFactoryCall(Call) ||
      removesHistoryAsWritten(Call)) {
    // detach() shares the tensor's storage and version counter.
    Value V;
    if (isTensorFactoryCall(Call)) {
      // torch::randn({3}, torch::requires_grad()): a leaf that requires
      // grad; torch::full({}, x.item<float>()): a tensor built from a value
      // read out of another.
      if (!underNoGradGuard(Call) && requestsGrad(Call))
        V.RequiresGrad = true;
      for (unsigned I = 0; I < Args.size() && I < Call.getNumArgs(); ++I)
        if (Args[I].Taint && !isTensorType(Call.getArg(I)->getType())) {
          V.FromValues = &Call;
          V.ValuesRead = Args[I].Taint;
          break;
        }
    }
    if (const OpInfo *Info = tensorOpOf(Call);
        Info && (Info->Roles & op::Detach)) {
      V.Same = ObjectValue.Same;
      V.SavedBy = ObjectValue.SavedBy;
      // `h.detach_()`: the variable itself holds the detached tensor now (a
      // state carried round a loop is cut there).
      if (const VarDecl *Var = soleVariableOf(Ops.Object);
          Var && isLocal(Var) && isTensorType(Var->getType()) &&
          (Info->Roles & op::InPlace))
        define(Var, &Call, beginLoc(Call), V);
    }
    return V;
  }

  if (isModuleForwardCall(Call) || isLossCall(Call)) {
    Value V = AllArgs;
    V.Taint = nullptr;
    V.RequiresGrad = false;
    newTensor(V);
    if (isLossCall(Call)) {
      const Expr *Prediction = lossPredictionArg(Call);
      // When another operand has history, gradient flows through it: the
      // rebuilt tensor is the target of a symmetric loss written first
      // (`mse_loss(torch::tensor(td_targets), values)`).
      bool OtherHasHistory = false;
      for (unsigned I = 0; I < Call.getNumArgs() && I < Args.size(); ++I)
        if (Call.getArg(I) != Prediction &&
            (Args[I].History != HistoryEvidence::None ||
             Args[I].Backpropagated || Args[I].RequiresGrad))
          OtherHasHistory = true;
      for (unsigned I = 0; I < Call.getNumArgs(); ++I)
        if (Call.getArg(I) == Prediction && !OtherHasHistory)
          reportBroken(Args[I], Call,
                       AutogradFlow::GradientUse::LossPrediction);
      V.FromValues = nullptr;
      V.ValuesRead = nullptr;
    }
    if (!underNoGradGuard(Call)) {
      V.History = HistoryEvidence::Evident;
      // A layer with weights saves its input for the weight's gradient
      // (`cell(states[t])`): a later write into that input breaks it.
      if (moduleSavesInput(forwardModuleClass(Call)) ||
          moduleSavesInput(sequentialFirstLayer(Call)))
        recordModuleSaving(Call, Ops, V);
      // A module of the user's: what its forward saves.
      else if (const CXXMethodDecl *Forward = objectMethodOf(Call).second)
        if (const FunctionSummary *Summary = summaryOf(*Forward, Ctx))
          recordCalleeSaving(Call, Ops, *Summary, V);
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
  if (!Summary) {
    // A lambda that returns a value it read out: the call is the read.
    if (lambdaReadOut(Call, Ctx)) {
      Value V;
      V.Taint = &Call;
      return V;
    }
    return std::nullopt;
  }
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
  const bool OperandsHaveHistory = Operands.History != HistoryEvidence::None ||
                                   Operands.Backpropagated ||
                                   Operands.RequiresGrad;
  if (Summary->ResultFromValues && V.History == HistoryEvidence::None &&
      (OperandsHaveHistory || Summary->ResultValuesReadOwnHistory)) {
    V.FromValues = Summary->ResultFromValues;
    V.ValuesRead = Summary->ResultValuesRead;
  } else if (Summary->ResultFromValuesElsewhere &&
             V.History == HistoryEvidence::None &&
             (OperandsHaveHistory || Summary->ResultValuesReadOwnHistory)) {
    // Rebuilt in another file: the call is the construction, and what it
    // was handed the values read.
    V.FromValues = &Call;
    V.ValuesRead = Call.getNumArgs() ? Call.getArg(0) : &Call;
  }
  // A value read out inside the callee: the call is the read.
  if ((Summary->ResultReadOut || Summary->ResultReadOutElsewhere) &&
      (OperandsHaveHistory || Summary->ResultReadOutOwnHistory))
    V.Taint = &Call;
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
  // An operation on a leaf that requires grad records a graph.
  if (V.RequiresGrad) {
    V.RequiresGrad = false;
    if (!underNoGradGuard(Call))
      V.History =
          std::max(V.History, keepsEvidence(Call) ? HistoryEvidence::Evident
                                                  : HistoryEvidence::Possible);
  }
  if (!keepsEvidence(Call))
    capEvidence(V);
  // Under a no-grad guard autograd records nothing: the result of an
  // operation (a sample drawn in a forward, a view) has no history, and no
  // backward pass reaches a graph through it. An in-place operation returns
  // its object, which keeps what it had.
  const OpInfo *Info = tensorOpOf(Call);
  const bool InPlace =
      inPlaceWriteTarget(Call) ||
      (Info && (Info->Roles & (op::InPlace | op::KeepsValues)));
  if (underNoGradGuard(Call) && !InPlace) {
    V.History = HistoryEvidence::None;
    V.Backpropagated = false;
    V.Graph = {};
    V.Freed = {};
    V.Savers = {};
  }
  markScaledFromValues(Call, Ops, V);
  trackAddedTerm(Call, Ops, V);
  newTensor(V);
  trackSameTensor(Call, Ops, V);
  if (!underNoGradGuard(Call) && savingRolesOf(Call))
    recordSaving(Call, Ops.ObjectValue, Ops.Args, V);
  return V;
}

void AutogradFlowBuilder::markScaledFromValues(const CallExpr &Call,
                                              const CallOperands &Ops,
                                              Value &V) {
  // `torch::ones({}) * (1e-4 * l2)` with `l2` read out of a tensor with
  // history: a fresh tensor scaled or shifted by the value is a tensor
  // built from it.
  if (V.FromValues || V.History != HistoryEvidence::None ||
      sumRoleOf(Call) == SumRole::Other || sumRoleOf(Call) == SumRole::Keeps)
    return;
  const CallExpr *Fresh = nullptr;
  const Expr *Read = nullptr;
  auto Consider = [&](const Expr *Arg, const Value &Val) {
    const auto *Inner = dyn_cast_or_null<CallExpr>(stripImplicit(Arg));
    if (isTensorType(Arg->getType())) {
      if (Inner && isTensorFactoryCall(*Inner) && !Val.RequiresGrad)
        Fresh = Inner;
    } else if (Val.Taint) {
      Read = Val.Taint;
    }
  };
  if (Ops.Object)
    Consider(Ops.Object, Ops.ObjectValue);
  for (unsigned I = 0; I < Call.getNumArgs() && I < Ops.Args.size(); ++I)
    Consider(Call.getArg(I), Ops.Args[I]);
  if (Fresh && Read) {
    V.FromValues = Fresh;
    V.ValuesRead = Read;
  }
}

void AutogradFlowBuilder::trackAddedTerm(const CallExpr &Call,
                                         const CallOperands &Ops, Value &V) {
  llvm::SmallVector<const Value *, 3> Operands;
  if (Ops.Object)
    Operands.push_back(&Ops.ObjectValue);
  for (unsigned I = 0; I < Call.getNumArgs() && I < Ops.Args.size(); ++I)
    if (isTensorType(Call.getArg(I)->getType()))
      Operands.push_back(&Ops.Args[I]);
  V.AddedFromValues = nullptr;
  V.AddedValuesRead = nullptr;
  auto Keep = [&](const Value &From) {
    if (From.AddedFromValues && !V.AddedFromValues) {
      V.AddedFromValues = From.AddedFromValues;
      V.AddedValuesRead = From.AddedValuesRead;
    }
  };
  switch (sumRoleOf(Call)) {
  case SumRole::Adds:
    for (const Value *O : Operands)
      Keep(*O);
    if (Operands.size() == 2)
      markAddedTerm(V, {Operands[0], Operands[1]});
    break;
  case SumRole::Scales:
    // (loss + c) * k: still a constant term when k has no history.
    for (const Value *O : Operands) {
      bool OthersPlain = llvm::all_of(Operands, [&](const Value *F) {
        return F == O || keepsAddedTerm(*O, *F);
      });
      if (OthersPlain)
        Keep(*O);
    }
    break;
  case SumRole::Keeps:
    for (const Value *O : Operands)
      Keep(*O);
    break;
  case SumRole::Other:
    break;
  }
}

bool AutogradFlowBuilder::underNoGradGuard(const CallExpr &Call) {
  auto [It, Inserted] = NoGrad.try_emplace(&Call, false);
  if (Inserted)
    It->second = GradMode.isOffAt(Call, Fn);
  return It->second;
}

} // namespace clang::tidy::torch
