//===--- Expressions.cpp - AutogradFlow over expressions and variables ----===//
//
// What a value carries (tensor facts or host taint, by type), the transfer of
// an expression that is neither a call nor an assignment (nodes that denote
// the same tensor pass its facts on; any other node computes a new tensor),
// and reads of variables: locals from the state, references through the
// variable they are bound to, members and globals from outside.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/autograd/Builder.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include <algorithm>

namespace clang::tidy::torch {

namespace autograd {

/// Tensors, containers of tensors, the braced lists that build them, and a
/// TorchScript module's output (c10::IValue, unwrapped by toTensor()).
bool isTensorValued(QualType T) {
  if (T.isNull())
    return false;
  if (isTensorType(T) || isTensorListType(T) || isIValueType(T))
    return true;
  // In a template as written: `auto out = model->forward(x);`, `T loss`.
  if (T->isDependentType())
    return true;
  T = T.getNonReferenceType().getCanonicalType();
  if (const auto *Array = dyn_cast<ArrayType>(T.getTypePtr()))
    return isTensorType(Array->getElementType()) ||
           (Array->getElementType()->getAsCXXRecordDecl() &&
            isTensorValued(Array->getElementType()));
  const CXXRecordDecl *Record = T->getAsCXXRecordDecl();
  // An entry of named_parameters(): torch::OrderedDict<Key, Tensor>::Item.
  if (Record && Record->getIdentifier() && Record->getName() == "Item")
    if (const auto *Dict =
            dyn_cast<ClassTemplateSpecializationDecl>(Record->getParent()))
      Record = Dict;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(Record);
  if (!Spec)
    return false;
  const std::string Name = Spec->getQualifiedNameAsString();
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Name == "std::initializer_list" && Args.size() == 1 &&
      Args[0].getKind() == TemplateArgument::Type)
    return isTensorType(Args[0].getAsType()) ||
           (Args[0].getAsType()->getAsCXXRecordDecl() &&
            isTensorValued(Args[0].getAsType()));
  // Sequences of anything that holds tensors, at any depth: a vector of
  // vectors (per-layer lists of activations), a deque of transitions held as
  // pairs, an array of tensor lists. One weak location, like a vector of
  // tensors (isTensorListType): what any element carries, the whole carries.
  if ((Name == "std::vector" || Name == "std::__1::vector" ||
       Name == "std::deque" || Name == "std::__1::deque" ||
       Name == "std::list" || Name == "std::__1::list" ||
       Name == "std::array" || Name == "std::__1::array") &&
      Args.size() >= 1 && Args[0].getKind() == TemplateArgument::Type &&
      !Args[0].getAsType()->isDependentType())
    return isTensorValued(Args[0].getAsType());
  // What recurrent modules return and take: std::tuple<Tensor,
  // std::tuple<Tensor, Tensor>> (LSTM), std::pair of tensors. The tuple is
  // one value: what any element carries, the whole carries.
  auto AllTensorValued = [](ArrayRef<TemplateArgument> Elements) {
    return !Elements.empty() &&
           llvm::all_of(Elements, [](const TemplateArgument &A) {
             return A.getKind() == TemplateArgument::Type &&
                    isTensorValued(A.getAsType());
           });
  };
  // An optional state (LSTM's forward takes c10::optional<std::tuple<...>>).
  if ((Name == "c10::optional" || Name == "std::optional") &&
      Args.size() == 1 && Args[0].getKind() == TemplateArgument::Type)
    return isTensorValued(Args[0].getAsType());
  if ((Name == "std::tuple" || Name == "std::__1::tuple") && Args.size() == 1 &&
      Args[0].getKind() == TemplateArgument::Pack) {
    return AllTensorValued(Args[0].pack_elements());
  }
  if (Name == "torch::OrderedDict" && Args.size() == 2 &&
      Args[1].getKind() == TemplateArgument::Type)
    return isTensorType(Args[1].getAsType());
  if ((Name == "std::pair" || Name == "std::__1::pair") && Args.size() == 2) {
    if (AllTensorValued(Args.asArray()))
      return true;
    // An entry of a map of named tensors: std::pair<const std::string,
    // Tensor>, the key a host value.
    return Args[0].getKind() == TemplateArgument::Type &&
           Args[1].getKind() == TemplateArgument::Type &&
           !isTensorValued(Args[0].getAsType()) &&
           !Args[0].getAsType()->isDependentType() &&
           isTensorValued(Args[1].getAsType());
  }
  // Named tensors: std::map<std::string, Tensor> (a dict of losses).
  if ((Name == "std::map" || Name == "std::unordered_map" ||
       Name == "std::__1::map" || Name == "std::__1::unordered_map") &&
      Args.size() >= 2 && Args[1].getKind() == TemplateArgument::Type)
    return isTensorValued(Args[1].getAsType());
  return false;
}

/// Keeps only what a value of type \p T can carry: tensor facts for tensors,
/// host taint for everything else. Dependent types keep both.
Value filterByType(Value V, QualType T) {
  if (T.isNull() || T->isDependentType())
    return V;
  // `it->` on an iterator, `&t`: a pointer to the tensor stands for it.
  if (T->isPointerType() && isTensorValued(T->getPointeeType()))
    T = T->getPointeeType();
  if (isTensorValued(T)) {
    V.Taint = nullptr;
  } else {
    V.History = HistoryEvidence::None;
    V.Backpropagated = false;
    V.RequiresGrad = false;
    V.Params = 0;
    V.Graph.clear();
    V.Same.clear();
    V.SavedBy.clear();
    V.Savers.clear();
    V.FromValues = nullptr;
    V.ValuesRead = nullptr;
    V.AddedFromValues = nullptr;
    V.AddedValuesRead = nullptr;
  }
  return V;
}

/// A value with history of its own (not only a rebuilt term inside it).
static bool hasOwnHistory(const Value &V) {
  return V.History != HistoryEvidence::None || V.Backpropagated ||
         V.RequiresGrad;
}

void markAddedTerm(Value &Sum, std::initializer_list<const Value *> Terms) {
  const Value *Rebuilt = nullptr;
  bool Other = false;
  for (const Value *T : Terms) {
    if (T->FromValues && !hasOwnHistory(*T))
      Rebuilt = T;
    else if (hasOwnHistory(*T))
      Other = true;
  }
  if (Rebuilt && Other) {
    Sum.AddedFromValues = Rebuilt->FromValues;
    Sum.AddedValuesRead = Rebuilt->ValuesRead;
  }
}

bool keepsAddedTerm(const Value &Scaled, const Value &Factor) {
  // (loss + c) * k keeps c a constant term when k has no history.
  return !Scaled.AddedFromValues || !hasOwnHistory(Factor);
}

/// The local variable an expression names, through implicit conversions and
/// single-element braced lists (`{loss}`).
const VarDecl *soleVariableOf(const Expr *E) {
  for (int Depth = 0; E && Depth < 8; ++Depth) {
    E = stripArgumentConversions(E);
    if (!E)
      return nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(Ref->getDecl());
    if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E)) {
      E = List->getSubExpr();
      continue;
    }
    if (const auto *Init = dyn_cast<InitListExpr>(E)) {
      if (Init->getNumInits() != 1)
        return nullptr;
      E = Init->getInit(0);
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

/// The object of a member call: `t.f()`, and in a template `t.f(dependent)`
/// or `dependent.f()`; null for other calls (operator() included).
const Expr *memberCallObject(const CallExpr &Call) {
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    return Member->getImplicitObjectArgument();
  if (isa<CXXOperatorCallExpr>(Call))
    return nullptr;
  return callObject(Call);
}

/// Lowers evidence of history to "possible": the value may carry history,
/// but nothing local shows it.
void capEvidence(Value &V) {
  if (V.RequiresGrad)
    V.History = std::max(V.History, HistoryEvidence::Possible);
  V.RequiresGrad = false;
  V.History = std::min(V.History, HistoryEvidence::Possible);
  V.Backpropagated = false;
  V.Savers.clear();
}

/// A new tensor: not the tensor of any definition, saved by nobody.
void newTensor(Value &V) {
  V.Same.clear();
  V.SavedBy.clear();
}

} // namespace autograd

using namespace autograd;

namespace {

/// Nodes that denote the same tensor as their operand: parentheses, implicit
/// casts, temporaries, cleanups, copies and moves of a tensor.
bool isTransparent(const Expr &E) {
  if (isa<ParenExpr, ImplicitCastExpr, ExprWithCleanups,
          MaterializeTemporaryExpr, CXXBindTemporaryExpr,
          CXXFunctionalCastExpr>(E))
    return true;
  // `kv.second`, `entry.first` of a value that holds tensors (a map entry, a
  // pair, a tuple), read as a whole: an element of that value.
  if (const auto *Member = dyn_cast<MemberExpr>(&E))
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
        Field && !Member->isArrow() && isTensorValued(Field->getType()) &&
        !Field->getType()->isDependentType()) {
      const QualType Base = Member->getBase()->getType();
      return !Base->isDependentType() && !isTensorType(Base) &&
             isTensorValued(Base);
    }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(&E)) {
    // A list of the same tensors: `torch::stack(values)` takes an ArrayRef
    // made from the vector, `torch::cat({a, b})` one (or a vector, with its
    // default allocator) made from a braced list.
    if (Construct->getNumArgs() >= 1 &&
        isTensorListType(Construct->getType()) &&
        isTensorValued(Construct->getArg(0)->getType()) &&
        llvm::all_of(llvm::drop_begin(Construct->arguments()),
                     [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); }))
      return true;
    return Construct->getNumArgs() == 1 &&
           (Construct->getConstructor()->isCopyOrMoveConstructor() ||
            isTensorType(Construct->getArg(0)->getType()));
  }
  // `{a, b}` as a list of tensors.
  if (isa<CXXStdInitializerListExpr>(E))
    return true;
  if (const auto *List = dyn_cast<InitListExpr>(&E))
    return List->getNumInits() > 0 &&
           llvm::all_of(List->inits(), [](const Expr *Init) {
             return isTensorType(Init->getType());
           });
  return false;
}

/// A pair or tuple built from tensors (`return {logits, h};`, `std::pair<
/// Tensor, Tensor>(a, b)`): the whole carries what its elements carry, with
/// its evidence as it is (it is not one tensor, so not Same as any).
bool isTensorAggregate(const Expr &E) {
  QualType T = E.getType();
  // A record, or the array a braced list of records is (`{{"loss", l}}`
  // building a map's entries).
  if (!isTensorValued(T) || T->isDependentType() || isTensorType(T) ||
      isTensorListType(T) || (!T->getAsCXXRecordDecl() && !T->isArrayType()))
    return false;
  // Its elements: tensors, and host values beside them (the key of a named
  // loss, `{"box", box_loss}`).
  auto Elements = [](auto Range) {
    bool AnyTensor = false;
    for (const Expr *A : Range) {
      if (isa<CXXDefaultArgExpr>(A))
        continue;
      if (isTensorValued(A->getType()))
        AnyTensor = true;
      else if (A->getType()->isDependentType())
        return false;
    }
    return AnyTensor;
  };
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(&E))
    return Elements(Construct->arguments());
  if (const auto *List = dyn_cast<InitListExpr>(&E))
    return Elements(List->inits());
  return false;
}

} // namespace

const VarDecl *AutogradFlowBuilder::referent(const VarDecl *Var) const {
  if (!isLocal(Var) || !Var->getType()->isReferenceType() || !Var->getInit())
    return nullptr;
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Var->getInit()->IgnoreParenImpCasts());
  const auto *To = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return isLocal(To) && !To->getType()->isReferenceType() &&
                 isTensorType(To->getType())
             ? To
             : nullptr;
}

Value AutogradFlowBuilder::outsideValue(QualType T) const {
  Value V;
  if (AsCallee && !T.isNull() && isTensorValued(T))
    V.History = HistoryEvidence::Possible;
  return V;
}

Value AutogradFlowBuilder::valueOfFacts(const VarDecl *Var) {
  Value V;
  const TensorFacts *Facts = S->Tensors.find(Var);
  if (!Facts)
    return V;
  V.Graph = Facts->Graph;
  for (unsigned Id : Facts->Reaching) {
    const Definition &D = Defs[Id];
    V.History = std::max(V.History, D.History);
    V.Backpropagated |= D.Backpropagated;
    V.RequiresGrad |= D.RequiresGrad;
    V.Params |= D.Params;
    if (D.History != HistoryEvidence::None || D.Backpropagated)
      V.Graph.insert(Id);
    if (!V.FromValues) {
      V.FromValues = D.FromValues;
      V.ValuesRead = D.ValuesRead;
    }
    if (!V.AddedFromValues) {
      V.AddedFromValues = D.AddedFromValues;
      V.AddedValuesRead = D.AddedValuesRead;
    }
  }
  V.Freed = Facts->Freed;
  V.Savers = Facts->Savers;
  // The tensor itself: a reference denotes the variable it is bound to.
  const TensorFacts *Own = Facts;
  if (const VarDecl *To = referent(Var))
    Own = S->Tensors.find(To);
  if (Own)
    for (unsigned Id : Own->Reaching) {
      V.Same.insert(Id);
      S->Saved.secondsOf(Id, V.SavedBy);
    }
  return V;
}

Value AutogradFlowBuilder::valueOfVariable(const VarDecl *Var) {
  Value V;
  if (!Var)
    return V;
  if (!isLocal(Var))
    return outsideValue(Var->getType());
  if (isTensorValued(Var->getType()))
    return valueOfFacts(Var);
  auto It = S->Taint.find(Var);
  if (It != S->Taint.end())
    V.Taint = It->second;
  return V;
}

bool AutogradFlowBuilder::isParameterMember(const FieldDecl &Field) {
  auto [It, Inserted] = ParameterMembers.try_emplace(&Field, false);
  if (Inserted)
    It->second =
        moduleTensorMemberOf(Field) == ModuleTensorMember::Parameter;
  return It->second;
}

Value AutogradFlowBuilder::visitChildren(const Stmt &St) {
  Value V;
  for (const Stmt *Child : St.children())
    V.join(visit(Child));
  return V;
}

Value AutogradFlowBuilder::visit(const Stmt *St) {
  const auto *E = dyn_cast_or_null<Expr>(St);
  if (!E || isa<LambdaExpr>(E) || isa<BlockExpr>(E))
    return {};
  Value V = visitExpr(*E);
  if (Reporting && (V.History != HistoryEvidence::None || V.Backpropagated)) {
    Out.ExprEvidence[E] = {V.History, V.Backpropagated};
    // A field or element read through an implicit conversion (`total +=
    // box.first` binds `box.first` to a const reference): the stand-in's value
    // is taken at the conversion and the member below it is never visited on
    // its own, yet a check asks about the member as written. Same object,
    // same evidence.
    const Expr *Inner = E->IgnoreParenImpCasts();
    if (Inner && Inner != E && !Inner->containsErrors() &&
        !Inner->getType().isNull() &&
        isTensorType(Inner->getType().getNonReferenceType()))
      Out.ExprEvidence.try_emplace(Inner, AutogradFlow::Evidence{
                                              V.History, V.Backpropagated});
  }
  return V;
}

Value AutogradFlowBuilder::visitExpr(const Expr &Node) {
  const Expr *E = &Node;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    // `auto [out, h] = gru->forward(x, h0);`: a binding is an element of
    // the decomposed tuple.
    if (const auto *Binding = dyn_cast<BindingDecl>(Ref->getDecl()))
      return filterByType(valueOfVariable(dyn_cast_or_null<VarDecl>(
                              Binding->getDecomposedDecl())),
                          Ref->getType());
    return valueOfVariable(dyn_cast<VarDecl>(Ref->getDecl()));
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    if (Binary->isAssignmentOp())
      return assign(*Binary->getLHS(), *Binary->getRHS(), *Binary,
                    Binary->isCompoundAssignmentOp());
  }
  // `*it`, `it->norm()` on an iterator over a local container of tensors:
  // an element (a pointer to one for `->`, kept as the element itself).
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getNumArgs() == 1 &&
      (Op->getOperator() == OO_Star || Op->getOperator() == OO_Arrow))
    if (const auto *Ref =
            dyn_cast<DeclRefExpr>(Op->getArg(0)->IgnoreParenImpCasts()))
      if (const auto *It = dyn_cast<VarDecl>(Ref->getDecl()))
        if (const VarDecl *Container = IteratorOf.lookup(It))
          return elementOf(nullptr, Container, It->getLocation());
  // `out.probs` of a local struct, once a tensor was assigned to it here.
  if (const VarDecl *Field = localFieldStandin(E); Field && S->Tensors.find(Field))
    return filterByType(valueOfVariable(Field), E->getType());
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return filterByType(visitCall(*Call), Call->getType());
  Value V = visitChildren(*E);
  // Only nodes that denote the same tensor pass the evidence on as it is.
  // A pair, tuple, struct or map entry built from tensors holds those very
  // tensors (handles share storage and what saved them).
  if (!isTransparent(*E) && !isTensorAggregate(*E)) {
    capEvidence(V);
    newTensor(V);
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    V.join(outsideValue(E->getType()));
    // A module's parameter (`model->fc->weight`, `conv1->bias`, `fc.weight`,
    // `this->weight` registered with register_parameter): a leaf that
    // requires grad, like the tensors of its parameters(). Buffers and
    // members the module does not register are not.
    if (const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
        Field && isParameterMember(*Field))
      V.RequiresGrad = true;
    // A member that a method of the class fills with values read out of a
    // tensor with history (`log_probs_` of an agent's act()).
    if (const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
        Field && !V.Taint &&
        isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
      if (const Expr *Read = readOutStoredIn(*Field, Ctx))
        V.Taint = Read;
    // A tensor member that a method of the class fills with values with
    // history (an agent's memory of transitions): it has history here too.
    if (const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
        Field && V.History != HistoryEvidence::Evident &&
        isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()) &&
        historyStoredIn(*Field, Ctx))
      V.History = HistoryEvidence::Evident;
  }
  return filterByType(V, E->getType());
}

} // namespace clang::tidy::torch
