//===--- ObjectState.cpp - AutogradFlow's state kept in objects -----------===//
//
// The caller's side of MemberState.h: a call of a method that carries a
// member of its object from one call into the next extends the state the
// object's variable holds in the dataflow (a definition computed from its
// previous one, like `h = cell(x, h)`); a method that replaces the state, a
// write by hand into a state member, or a no-grad call starts afresh. The
// object is a local, a parameter, or a field of the analysed method's own
// object (a trainer's `model_`, keyed by a stand-in variable).
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/autograd/Builder.h"
#include "utils/analysis/autograd/MemberState.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::torch {

using namespace autograd;

/// The object a call runs a method of the user's class on, and that method:
/// `model->forward(x)`, `model(x)` on a holder (its Impl's forward),
/// `agent.act(obs)`, `model->reset_state()`.
std::pair<const Expr *, const CXXMethodDecl *>
autograd::objectMethodOf(const CallExpr &Call) {
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    return {Member->getImplicitObjectArgument(), Member->getMethodDecl()};
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
  if (!Op || Op->getOperator() != OO_Call || Op->getNumArgs() == 0 ||
      !isModuleForwardCall(Call))
    return {nullptr, nullptr};
  if (const CXXMethodDecl *M = forwardMethodOf(Call))
    return {Op->getArg(0), M};
  return {nullptr, nullptr};
}


namespace {

/// `model_` or `this->model_` (through `->`, `*` and implicit casts): a field
/// of the object whose method is analysed.
const FieldDecl *ownField(const Expr *Object) {
  while (Object) {
    Object = Object->IgnoreParenImpCasts();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Object);
        Op && (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star) &&
        Op->getNumArgs() == 1) {
      Object = Op->getArg(0);
      continue;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(Object);
        U && U->getOpcode() == UO_Deref) {
      Object = U->getSubExpr();
      continue;
    }
    const auto *Member = dyn_cast<MemberExpr>(Object);
    if (!Member ||
        !isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
      return nullptr;
    return dyn_cast<FieldDecl>(Member->getMemberDecl());
  }
  return nullptr;
}

} // namespace

const VarDecl *AutogradFlowBuilder::stateObjectOf(const Expr *Object) const {
  if (!Object)
    return nullptr;
  if (const auto *Var = dyn_cast_or_null<VarDecl>(moduleObjectEntity(Object)))
    return isLocal(Var) && !isTensorValued(Var->getType()) ? Var : nullptr;
  // A module the analysed method's object holds (`model_->forward(x)` in a
  // trainer's fit()): it outlives every iteration of the method's loops. The
  // dataflow keys its state by a variable that stands for the field in this
  // function (never declared in it, so its lifetime never ends).
  const FieldDecl *Field = ownField(Object);
  if (!Field || isTensorValued(Field->getType()))
    return nullptr;
  const VarDecl *&Standin = FieldStandins[Field];
  if (!Standin)
    Standin = VarDecl::Create(
        Ctx, const_cast<FunctionDecl *>(&Fn), Field->getLocation(),
        Field->getLocation(), Field->getIdentifier(), Field->getType(),
        Field->getTypeSourceInfo(), SC_None);
  return Standin;
}

const VarDecl *AutogradFlowBuilder::namedObjectOf(const Expr *E) const {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  // The analysed method's own object: its tensor members are followed like
  // locals (a trainer's `hidden_` carried from one chunk to the next).
  if (isa<CXXThisExpr>(E)) {
    if (!ThisStandin)
      ThisStandin = VarDecl::Create(
          Ctx, const_cast<FunctionDecl *>(&Fn), E->getBeginLoc(),
          E->getBeginLoc(), &Ctx.Idents.get("this"),
          cast<CXXThisExpr>(E)->getType(), nullptr, SC_None);
    return ThisStandin;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!isLocal(Var) || !Var->getIdentifier() ||
        Var->getType()->isReferenceType() || isTensorValued(Var->getType()) ||
        !Var->getType()->isRecordType())
      return nullptr;
    return Var;
  }
  // A struct the analysed method's object holds (`baseline_` of a trainer):
  // keyed by the field's stand-in.
  const auto *Member = dyn_cast<MemberExpr>(E);
  if (!Member || !isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (!Field || !Field->getIdentifier() || !Field->getType()->isRecordType() ||
      isTensorValued(Field->getType()))
    return nullptr;
  return stateObjectOf(Member);
}

const VarDecl *AutogradFlowBuilder::fieldStandin(const VarDecl *Object,
                                                 const FieldDecl *Field,
                                                 SourceLocation Loc) const {
  const bool Own = Object && Object == ThisStandin;
  if (!Object || !Field || !Field->getIdentifier() ||
      !(Own ? isTensorValued(Field->getType()) && !Field->getType()->isDependentType()
            : isTensorType(Field->getType())))
    return nullptr;
  AccessPath Path;
  Path.Root = Object;
  AccessStep Step;
  Step.Member = Field->getCanonicalDecl();
  Path.Steps.push_back(Step);
  const VarDecl *&Standin = LocalFieldStandins[{Object, Path.stepsKey()}];
  if (!Standin)
    Standin = VarDecl::Create(
        Ctx, const_cast<FunctionDecl *>(&Fn), Loc, Loc,
        Own ? Field->getIdentifier()
            : &Ctx.Idents.get(
                  (Object->getName() + "." + Field->getName()).str()),
        Field->getType(), Field->getTypeSourceInfo(), SC_None);
  return Standin;
}

const VarDecl *AutogradFlowBuilder::localFieldStandin(const Expr *E) const {
  if (!E)
    return nullptr;
  const auto *Member = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
  if (Member && !(Member->isArrow() &&
                  !isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts())))
    if (const VarDecl *Standin =
            fieldStandin(namedObjectOf(Member->getBase()),
                         dyn_cast<FieldDecl>(Member->getMemberDecl()),
                         Member->getMemberLoc()))
      return Standin;
  return pathStandin(*E);
}

const VarDecl *AutogradFlowBuilder::pathStandin(const Expr &E) const {
  // Not in a template's pattern: its types and members are not settled (a
  // class template's member functions, fuzz/mutants-sample's template_class).
  // Nor in code clang could not make sense of (error recovery).
  if (Fn.isDependentContext() || E.isInstantiationDependent() ||
      E.containsErrors() || E.getType().isNull())
    return nullptr;
  const QualType T = E.getType().getNonReferenceType();
  if (T.isNull() || T->isDependentType() || !isTensorType(T))
    return nullptr;
  std::optional<AccessPath> Path = accessPathOf(E);
  // Strong paths, and elements named by a literal index or key of a
  // container accessed only that way (keyedOnly): any other element of a
  // container is one weak location with the container (its facts are the
  // join over its elements).
  if (!Path || !Path->Root || Path->RootIsThis || Path->Steps.empty())
    return nullptr;
  const bool Keyed = !Path->isStrong() && Path->isKeyed();
  if (!Path->isStrong() && !Keyed)
    return nullptr;
  const VarDecl *Root = Path->Root;
  const QualType RootType = Root->getType();
  if (RootType.isNull() || !isLocal(Root) || RootType->isReferenceType() ||
      RootType->isDependentType() || !RootType->isRecordType() ||
      isTensorType(RootType) || (!Keyed && isTensorListType(RootType)))
    return nullptr;
  if (Keyed && !keyedOnly(*Root))
    return nullptr;
  const VarDecl *&Standin = LocalFieldStandins[{Root, Path->stepsKey()}];
  if (!Standin)
    Standin = VarDecl::Create(Ctx, const_cast<FunctionDecl *>(&Fn),
                              E.getBeginLoc(), E.getBeginLoc(),
                              &Ctx.Idents.get(Path->key()), T, nullptr,
                              SC_None);
  return Standin;
}

bool AutogradFlowBuilder::keyedOnly(const VarDecl &Container) const {
  auto [It, Inserted] = KeyedOnlyContainers.try_emplace(&Container, false);
  if (Inserted)
    It->second = accessedByLiteralKeysOnly(Container, Fn);
  return It->second;
}

void AutogradFlowBuilder::killSubobjects(const VarDecl *Var) {
  for (const auto &[Key, Standin] : LocalFieldStandins)
    if (Key.first == Var)
      S->Tensors.erase(Standin);
}

namespace {

/// The expression that initialises a variable, through the nodes that only
/// wrap it.
const Expr *unwrapInit(const Expr *E) {
  for (int Depth = 0; E && Depth < 6; ++Depth) {
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr();
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      E = Bind->getSubExpr();
    else if (const auto *Cast = dyn_cast<ImplicitCastExpr>(E);
             Cast && Cast->getCastKind() == CK_NoOp)
      E = Cast->getSubExpr();
    else
      return E;
  }
  return E;
}

} // namespace

std::optional<Value>
AutogradFlowBuilder::visitElementwiseInit(const VarDecl &Var,
                                          const Expr &Init) {
  const QualType T = Var.getType();
  if (!isLocal(&Var) || T->isReferenceType() || T->isDependentType())
    return std::nullopt;
  const auto *Record = T->getAsCXXRecordDecl();
  if (!Record || isTensorType(T) || isTensorListType(T))
    return std::nullopt;
  const Expr *E = unwrapInit(&Init);
  // The elements and the access step of each.
  llvm::SmallVector<std::pair<const Expr *, AccessStep>, 4> Elements;
  if (const auto *List = dyn_cast<InitListExpr>(E)) {
    // An aggregate: its initialisers in the order of its fields.
    if (Record->isUnion() || Record->getNumBases() != 0 ||
        List->hasArrayFiller())
      return std::nullopt;
    unsigned I = 0;
    for (const FieldDecl *F : Record->fields()) {
      if (I >= List->getNumInits())
        break;
      AccessStep Step;
      Step.Member = F->getCanonicalDecl();
      Elements.push_back({List->getInit(I++), Step});
    }
  } else if (const auto *Make = dyn_cast<CallExpr>(E);
             Make && (isStdCall(*Make, "make_pair") ||
                      isStdCall(*Make, "make_tuple"))) {
    // `auto p = std::make_pair(torch::tanh(h), 1.0);`: element by element.
    const bool Pair = isStdCall(*Make, "make_pair");
    llvm::SmallVector<const FieldDecl *, 2> Fields(Record->fields());
    if (Pair && (Fields.size() != 2 || Make->getNumArgs() != 2))
      return std::nullopt;
    for (unsigned I = 0; I < Make->getNumArgs(); ++I) {
      AccessStep Step;
      if (Pair) {
        Step.Member = Fields[I]->getCanonicalDecl();
      } else {
        Step.K = AccessStep::TupleElement;
        Step.Index = I;
      }
      Elements.push_back({Make->getArg(I), Step});
    }
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(Record);
    if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier() ||
        Construct->getConstructor()->isCopyOrMoveConstructor())
      return std::nullopt;
    if (Spec->getName() == "pair" && Construct->getNumArgs() == 2) {
      unsigned I = 0;
      for (const FieldDecl *F : Record->fields()) {
        if (I >= 2)
          break;
        AccessStep Step;
        Step.Member = F->getCanonicalDecl();
        Elements.push_back({Construct->getArg(I++), Step});
      }
      if (Elements.size() != 2)
        return std::nullopt;
    } else if (Spec->getName() == "tuple" &&
               Spec->getTemplateArgs().size() == 1 &&
               Spec->getTemplateArgs()[0].getKind() ==
                   TemplateArgument::Pack &&
               Spec->getTemplateArgs()[0].pack_size() ==
                   Construct->getNumArgs()) {
      for (unsigned I = 0; I < Construct->getNumArgs(); ++I) {
        AccessStep Step;
        Step.K = AccessStep::TupleElement;
        Step.Index = I;
        Elements.push_back({Construct->getArg(I), Step});
      }
    } else {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  if (Elements.empty() ||
      llvm::any_of(Elements, [](const auto &El) {
        return isa<CXXDefaultArgExpr>(El.first) ||
               El.first->getType()->isDependentType();
      }))
    return std::nullopt;
  // Evaluated in order, as the braced list / the constructor's arguments.
  Value Whole;
  for (const auto &[Element, Step] : Elements) {
    Value V = visit(Element);
    Whole.join(V);
    const QualType ElementType = Element->getType().getNonReferenceType();
    if (!isTensorType(ElementType))
      continue;
    AccessPath Path;
    Path.Root = &Var;
    Path.Steps.push_back(Step);
    const VarDecl *&Standin = LocalFieldStandins[{&Var, Path.stepsKey()}];
    if (!Standin)
      Standin = VarDecl::Create(Ctx, const_cast<FunctionDecl *>(&Fn),
                                beginLoc(*Element), beginLoc(*Element),
                                &Ctx.Idents.get(Path.key()), ElementType,
                                nullptr, SC_None);
    define(Standin, Element, beginLoc(*Element),
           filterByType(V, ElementType));
  }
  newTensor(Whole);
  return filterByType(Whole, T);
}

void AutogradFlowBuilder::trackFieldWrites(const CallExpr &Call,
                                           const CallOperands &Ops) {
  auto [Object, Method] = objectMethodOf(Call);
  const VarDecl *Var = Method ? namedObjectOf(Object) : nullptr;
  const MemberStateSummary *Summary = Var ? memberStateOf(*Method) : nullptr;
  if (!Summary || Summary->Writes.empty())
    return;
  // The arguments of operator() follow the object.
  const unsigned Offset = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
  const bool NoGrad = underNoGradGuard(Call);
  for (const FieldWrite &W : Summary->Writes) {
    const VarDecl *Standin = fieldStandin(Var, W.Field, beginLoc(Call));
    if (!Standin)
      continue;
    // A member the method computes from its old value keeps what that value
    // carries; one it may not write on every path too.
    Value V;
    const bool Known = S->Tensors.find(Standin) != nullptr;
    if (W.KeepsOld && Known)
      V = valueOfVariable(Standin);
    else if (!W.Params && !W.History && !Known)
      continue; // Nothing from here: what it held is unknown, and stays so.
    if (NoGrad) {
      // Computed without recording: no graph (an in-place update of the old
      // tensor keeps it, which the method's walk does not tell apart).
      V.History = HistoryEvidence::None;
      V.Graph.clear();
      V.Freed = FreedSet();
      V.Savers.clear();
    } else {
      for (unsigned I = 0; I < 32 && I + Offset < Ops.Args.size(); ++I)
        if (W.Params & (1u << I)) {
          Value Arg = filterByType(Ops.Args[I + Offset], W.Field->getType());
          V.join(Arg);
        }
      if (W.History)
        V.History = HistoryEvidence::Evident;
    }
    V.Taint = nullptr;
    newTensor(V);
    define(Standin, &Call, beginLoc(Call), V);
  }
}

void AutogradFlowBuilder::trackObjectState(const CallExpr &Call,
                                           Value &Result) {
  auto [Object, Method] = objectMethodOf(Call);
  // `model->h.detach_()`: a state member detached by hand.
  if (Method && Object && Method->getIdentifier() &&
      Method->getName() == "detach_" && isTensorClass(Method->getParent())) {
    writeStateMember(*Object, Call, Value());
    return;
  }
  const VarDecl *Var = Method ? stateObjectOf(Object) : nullptr;
  if (!Var)
    return;
  const MemberStateSummary *Summary = memberStateOf(*Method);
  if (!Summary)
    return;
  if (Summary->Carried.empty() && Summary->CarriedAside.empty()) {
    // `model->reset_state()`: the object keeps no graph of earlier calls.
    if (S->Tensors.find(Var) && replacesState(*Method))
      define(Var, &Call, beginLoc(Call), Value());
    return;
  }
  // Without history recorded, the method stores values without any: the
  // object no longer holds an earlier call's graph.
  if (underNoGradGuard(Call)) {
    if (S->Tensors.find(Var))
      define(Var, &Call, beginLoc(Call), Value());
    return;
  }
  // The object's state is computed from its previous state, with history.
  Value State = valueOfFacts(Var);
  State.History = HistoryEvidence::Evident;
  State.Taint = nullptr;
  State.FromValues = nullptr;
  State.ValuesRead = nullptr;
  State.AddedFromValues = nullptr;
  State.AddedValuesRead = nullptr;
  newTensor(State);
  define(Var, &Call, beginLoc(Call), State);
  const CarriedMember &Carried = Summary->Carried.empty()
                                     ? Summary->CarriedAside.front()
                                     : Summary->Carried.front();
  Definition &D = Defs[definitionAt(&Call, Var, beginLoc(Call))];
  D.StateMember = Carried.Field;
  D.StateWrite = Carried.Write;
  D.StateWriter = Carried.Method;
  // The result is computed from the state.
  if (!Summary->Carried.empty()) {
    Value Now = valueOfFacts(Var);
    Result.History = std::max(Result.History, HistoryEvidence::Evident);
    Result.Graph.insertAll(Now.Graph);
    Result.Freed.insertAll(Now.Freed);
  }
}

void AutogradFlowBuilder::writeStateMember(const Expr &Target,
                                           const Expr &Site,
                                           const Value &Written) {
  const auto *Member = dyn_cast<MemberExpr>(Target.IgnoreParenImpCasts());
  const auto *Field =
      Member ? dyn_cast<FieldDecl>(Member->getMemberDecl()) : nullptr;
  const VarDecl *Var = Field ? stateObjectOf(Member->getBase()) : nullptr;
  if (!Var || !S->Tensors.find(Var) ||
      Written.History != HistoryEvidence::None ||
      !llvm::is_contained(stateMembersOf(*cast<CXXRecordDecl>(Field->getParent())),
                          Field))
    return;
  define(Var, &Site, beginLoc(Site), Value());
}

} // namespace clang::tidy::torch
