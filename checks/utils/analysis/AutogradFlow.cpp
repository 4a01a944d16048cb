//===--- AutogradFlow.cpp - function-local autograd dataflow --------------===//

#include "utils/analysis/AutogradFlow.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/GradMode.h"
#include "utils/ast/ASTUtils.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/LibTorch.h"
#include "utils/libtorch/OpTable.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PointerUnion.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

namespace clang::tidy::torch {

// --- Retention and argument roles of backward passes
// ---------------------------

namespace {

/// The constant truth value of a retain_graph / create_graph argument:
/// nullopt when it is not a compile-time constant. An empty optional
/// (c10::nullopt, `{}`) is reported through \p IsEmpty.
std::optional<bool> constantFlag(const Expr *Arg, const ASTContext &Ctx,
                                 bool &IsEmpty) {
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

} // namespace

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
    std::optional<bool> Value = constantFlag(Retain, Ctx, Empty);
    if (Value)
      return *Value ? GraphRetention::Retains : GraphRetention::Frees;
    if (!Empty)
      return GraphRetention::Unknown;
  }
  const Expr *Create = writtenArg(Pass, Sig->CreateIndex);
  if (!Create)
    return GraphRetention::Frees;
  std::optional<bool> Value = constantFlag(Create, Ctx, Empty);
  if (!Value)
    return GraphRetention::Unknown;
  return *Value ? GraphRetention::Retains : GraphRetention::Frees;
}

// --- The analysis
// ------------------------------------------------------------------

namespace {

/// A set of definition ids, kept sorted in a small vector: most values reach
/// one to three definitions, and every block of the dataflow copies, joins and
/// compares the sets of all variables in scope (a node-based std::set made the
/// allocator the analysis' main cost).
class DefSet {
public:
  DefSet() = default;
  DefSet(std::initializer_list<unsigned> Init) {
    for (unsigned Id : Init)
      insert(Id);
  }
  auto begin() const { return Ids.begin(); }
  auto end() const { return Ids.end(); }
  auto rbegin() const { return Ids.rbegin(); }
  auto rend() const { return Ids.rend(); }
  bool empty() const { return Ids.empty(); }
  void clear() { Ids.clear(); }
  bool count(unsigned Id) const {
    return std::binary_search(Ids.begin(), Ids.end(), Id);
  }
  void insert(unsigned Id) {
    auto It = std::lower_bound(Ids.begin(), Ids.end(), Id);
    if (It == Ids.end() || *It != Id)
      Ids.insert(It, Id);
  }
  void insertAll(const DefSet &O) {
    if (O.Ids.empty() || O.Ids == Ids)
      return;
    if (Ids.empty()) {
      Ids = O.Ids;
      return;
    }
    llvm::SmallVector<unsigned, 4> Union;
    Union.reserve(Ids.size() + O.Ids.size());
    std::set_union(Ids.begin(), Ids.end(), O.Ids.begin(), O.Ids.end(),
                   std::back_inserter(Union));
    Ids = std::move(Union);
  }
  bool operator==(const DefSet &O) const { return Ids == O.Ids; }

private:
  llvm::SmallVector<unsigned, 4> Ids;
};

/// Definitions whose graph a pass without retain_graph may have freed, each
/// with the (first recorded) pass that freed it; sorted by definition id.
class FreedSet {
public:
  using Mark = std::pair<unsigned, const CallExpr *>;
  auto begin() const { return Marks.begin(); }
  auto end() const { return Marks.end(); }
  bool empty() const { return Marks.empty(); }
  bool count(unsigned Id) const { return lookup(Id) != nullptr; }
  /// The pass that freed \p Id, or null.
  const CallExpr *lookup(unsigned Id) const {
    auto It = find(Id);
    return It != Marks.end() && It->first == Id ? It->second : nullptr;
  }
  /// Records that \p Pass freed \p Id, unless a pass is already recorded.
  void emplace(unsigned Id, const CallExpr *Pass) {
    auto It = find(Id);
    if (It == Marks.end() || It->first != Id)
      Marks.insert(It, {Id, Pass});
  }
  void insertAll(const FreedSet &O) {
    if (O.Marks.empty() || O.Marks == Marks)
      return;
    for (const Mark &M : O.Marks)
      emplace(M.first, M.second);
  }
  void erase(unsigned Id) {
    auto It = find(Id);
    if (It != Marks.end() && It->first == Id)
      Marks.erase(It);
  }
  /// Keeps only the marks of definitions in \p Defs.
  void keepOnly(const DefSet &Defs) {
    llvm::erase_if(Marks, [&](const Mark &M) { return !Defs.count(M.first); });
  }
  bool operator==(const FreedSet &O) const { return Marks == O.Marks; }

private:
  llvm::SmallVector<Mark, 2>::const_iterator find(unsigned Id) const {
    return std::lower_bound(
        Marks.begin(), Marks.end(), Id,
        [](const Mark &M, unsigned Key) { return M.first < Key; });
  }
  llvm::SmallVector<Mark, 2>::iterator find(unsigned Id) {
    return std::lower_bound(
        Marks.begin(), Marks.end(), Id,
        [](const Mark &M, unsigned Key) { return M.first < Key; });
  }
  llvm::SmallVector<Mark, 2> Marks;
};

/// A set of pairs of ids, sorted: which definitions an operation saved for
/// its backward (definition, saver), and which in-place writes changed a
/// saved tensor (write, saver).
class PairSet {
public:
  using Pair = std::pair<unsigned, unsigned>;
  auto begin() const { return Pairs.begin(); }
  auto end() const { return Pairs.end(); }
  void insert(unsigned A, unsigned B) {
    Pair P{A, B};
    auto It = std::lower_bound(Pairs.begin(), Pairs.end(), P);
    if (It == Pairs.end() || *It != P)
      Pairs.insert(It, P);
  }
  void insertAll(const PairSet &O) {
    if (O.Pairs.empty() || O.Pairs == Pairs)
      return;
    for (const Pair &P : O.Pairs)
      insert(P.first, P.second);
  }
  /// The second ids of the pairs whose first id is \p A.
  void secondsOf(unsigned A, DefSet &Out) const {
    for (auto It = std::lower_bound(Pairs.begin(), Pairs.end(), Pair{A, 0});
         It != Pairs.end() && It->first == A; ++It)
      Out.insert(It->second);
  }
  void eraseFirst(unsigned A) {
    llvm::erase_if(Pairs, [&](const Pair &P) { return P.first == A; });
  }
  void eraseSeconds(const DefSet &Bs) {
    llvm::erase_if(Pairs, [&](const Pair &P) { return Bs.count(P.second); });
  }
  bool operator==(const PairSet &O) const { return Pairs == O.Pairs; }

private:
  llvm::SmallVector<Pair, 2> Pairs;
};

/// What the analysis knows about the value of an expression.
struct Value {
  /// How strong the evidence is that the value is a tensor with autograd
  /// history.
  HistoryEvidence History = HistoryEvidence::None;
  /// The value is (computed by a differentiable operation from) a local
  /// tensor on which a backward pass runs: evidence of history for the
  /// checks that ask, kept apart from History so that a tensor built from
  /// values and then backpropagated is still known to have none.
  bool Backpropagated = false;
  /// Local, non-leaf definitions (with history) whose graph the value reaches.
  DefSet Graph;
  /// The value is (derived from) a tensor built from values read out of a
  /// tensor with history, at this construction call ...
  const CallExpr *FromValues = nullptr;
  /// ... whose values were read out here.
  const Expr *ValuesRead = nullptr;
  /// The value is a host value read out of a tensor with history, here.
  const Expr *Taint = nullptr;
  /// The definitions in Graph whose graph, as this value reaches it, may have
  /// been freed.
  FreedSet Freed;
  /// The value is the very tensor (or a view of it, sharing its version
  /// counter) that these definitions produced ...
  DefSet Same;
  /// ... and these savers (an operation that saved a tensor for its
  /// backward) saved it.
  DefSet SavedBy;
  /// The savers whose result the value is computed from (by differentiable
  /// operations): a backward pass from it needs what they saved.
  DefSet Savers;

  void join(const Value &Other) {
    History = std::max(History, Other.History);
    Backpropagated |= Other.Backpropagated;
    Graph.insertAll(Other.Graph);
    Freed.insertAll(Other.Freed);
    Same.insertAll(Other.Same);
    SavedBy.insertAll(Other.SavedBy);
    Savers.insertAll(Other.Savers);
    if (!FromValues) {
      FromValues = Other.FromValues;
      ValuesRead = Other.ValuesRead;
    }
    if (!Taint)
      Taint = Other.Taint;
  }
};

/// A definition site of a local tensor variable; it stands for every value
/// the site produces (once per execution).
struct Definition {
  const VarDecl *Var = nullptr;
  SourceLocation Loc;
  HistoryEvidence History = HistoryEvidence::None;
  /// backward() runs on the variable: evidence that its value is part of a
  /// graph, kept apart from History so that a tensor built from values and
  /// then backpropagated is still known to have no history.
  bool Backpropagated = false;
  const CallExpr *FromValues = nullptr;
  const Expr *ValuesRead = nullptr;
};

/// What the analysis knows about one local tensor variable on a path.
struct TensorFacts {
  /// Definitions that may reach the variable.
  DefSet Reaching;
  /// The definitions (with history) whose graph the variable's value may
  /// reach. Flow-sensitive: a definition that is executed again (in a loop)
  /// may have been computed from different values on each path.
  DefSet Graph;
  /// The definitions among those it reaches whose graph a pass without
  /// retain_graph may have freed. Kept per variable, not per definition: a
  /// site executed again (in a loop) builds a fresh graph for the variable it
  /// assigns, while other variables (a running total) may still hold the
  /// freed graph of its previous execution; and at a join, a freed mark stays
  /// with the values of the path that freed it (`if (c) a = f(x);` does not
  /// pair this iteration's fresh `a` with the previous iteration's freed one).
  FreedSet Freed;
  /// The savers whose result the variable's value is computed from.
  DefSet Savers;

  bool operator==(const TensorFacts &O) const {
    return Reaching == O.Reaching && Graph == O.Graph && Freed == O.Freed &&
           Savers == O.Savers;
  }
  void join(const TensorFacts &O) {
    Reaching.insertAll(O.Reaching);
    Graph.insertAll(O.Graph);
    Freed.insertAll(O.Freed);
    Savers.insertAll(O.Savers);
  }
};

/// The local tensor variables in scope and their facts, sorted by variable:
/// one allocation to copy, a linear merge to join, a linear comparison.
class TensorMap {
public:
  using Item = std::pair<const VarDecl *, TensorFacts>;
  auto begin() const { return Items.begin(); }
  auto end() const { return Items.end(); }
  auto begin() { return Items.begin(); }
  auto end() { return Items.end(); }
  const TensorFacts *find(const VarDecl *Var) const {
    auto It = lowerBound(Var);
    return It != Items.end() && It->first == Var ? &It->second : nullptr;
  }
  TensorFacts &operator[](const VarDecl *Var) {
    auto It = lowerBound(Var);
    if (It == Items.end() || It->first != Var)
      It = Items.insert(It, {Var, TensorFacts()});
    return It->second;
  }
  void erase(const VarDecl *Var) {
    auto It = lowerBound(Var);
    if (It != Items.end() && It->first == Var)
      Items.erase(It);
  }
  bool operator==(const TensorMap &O) const { return Items == O.Items; }
  void join(const TensorMap &O) {
    if (O.Items.empty() || O.Items == Items)
      return;
    std::vector<Item> Merged;
    Merged.reserve(Items.size() + O.Items.size());
    auto A = Items.begin(), AE = Items.end();
    auto B = O.Items.begin(), BE = O.Items.end();
    while (A != AE || B != BE) {
      if (B == BE || (A != AE && A->first < B->first)) {
        Merged.push_back(std::move(*A++));
      } else if (A == AE || B->first < A->first) {
        Merged.push_back(*B++);
      } else {
        Merged.push_back(std::move(*A++));
        Merged.back().second.join((B++)->second);
      }
    }
    Items = std::move(Merged);
  }

private:
  std::vector<Item>::iterator lowerBound(const VarDecl *Var) {
    return std::lower_bound(
        Items.begin(), Items.end(), Var,
        [](const Item &I, const VarDecl *Key) { return I.first < Key; });
  }
  std::vector<Item>::const_iterator lowerBound(const VarDecl *Var) const {
    return std::lower_bound(
        Items.begin(), Items.end(), Var,
        [](const Item &I, const VarDecl *Key) { return I.first < Key; });
  }
  std::vector<Item> Items;
};

struct State {
  /// Local tensor variables.
  TensorMap Tensors;
  /// Host variables that may hold values read out of a tensor with history.
  std::map<const VarDecl *, const Expr *> Taint;
  /// (definition, saver): the saver saved the definition's tensor for its
  /// backward, which has not run yet.
  PairSet Saved;
  /// (write, saver): an in-place write changed a tensor the saver saved.
  PairSet Pending;

  bool operator==(const State &O) const {
    return Tensors == O.Tensors && Taint == O.Taint && Saved == O.Saved &&
           Pending == O.Pending;
  }
  void join(const State &O) {
    Tensors.join(O.Tensors);
    Saved.insertAll(O.Saved);
    Pending.insertAll(O.Pending);
    for (const auto &[Var, Read] : O.Taint)
      Taint.emplace(Var, Read);
  }
};

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
    return isTensorType(Array->getElementType());
  if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
          T->getAsCXXRecordDecl()))
    if (Spec->getQualifiedNameAsString() == "std::initializer_list" &&
        Spec->getTemplateArgs().size() == 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      return isTensorType(Spec->getTemplateArgs()[0].getAsType());
  return false;
}

/// Keeps only what a value of type \p T can carry: tensor facts for tensors,
/// host taint for everything else. Dependent types keep both.
Value filterByType(Value V, QualType T) {
  if (T.isNull() || T->isDependentType())
    return V;
  if (isTensorValued(T)) {
    V.Taint = nullptr;
  } else {
    V.History = HistoryEvidence::None;
    V.Backpropagated = false;
    V.Graph.clear();
    V.Same.clear();
    V.SavedBy.clear();
    V.Savers.clear();
    V.FromValues = nullptr;
    V.ValuesRead = nullptr;
  }
  return V;
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

/// The tensor (or list of tensors) a pass backpropagates from.
const Expr *passRootOf(const CallExpr &Pass) {
  if (const Expr *Object = memberCallObject(Pass))
    return Object;
  return Pass.getNumArgs() > 0 ? Pass.getArg(0) : nullptr;
}

/// Lowers evidence of history to "possible": the value may carry history,
/// but nothing local shows it.
void capEvidence(Value &V) {
  V.History = std::min(V.History, HistoryEvidence::Possible);
  V.Backpropagated = false;
  V.Savers.clear();
}

/// A new tensor: not the tensor of any definition, saved by nobody.
void newTensor(Value &V) {
  V.Same.clear();
  V.SavedBy.clear();
}

/// Evidence that a tensor requires grad where an operation uses it.
bool requiresGrad(const Value &V) {
  return V.History == HistoryEvidence::Evident || V.Backpropagated;
}

/// Nodes that denote the same tensor as their operand: parentheses, implicit
/// casts, temporaries, cleanups, copies and moves of a tensor.
bool isTransparent(const Expr &E) {
  if (isa<ParenExpr, ImplicitCastExpr, ExprWithCleanups,
          MaterializeTemporaryExpr, CXXBindTemporaryExpr,
          CXXFunctionalCastExpr>(E))
    return true;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(&E))
    return Construct->getNumArgs() == 1 &&
           (Construct->getConstructor()->isCopyOrMoveConstructor() ||
            isTensorType(Construct->getArg(0)->getType()));
  return false;
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
    case OO_Subscript:
      return isTensorType(Op->getType());
    default:
      return false;
    }
  }
  if (isDifferentiableCall(Call) || isIValueToTensorCall(Call))
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

bool isModuleForwardMethod(const FunctionDecl &F) {
  const auto *Method = dyn_cast<CXXMethodDecl>(&F);
  return Method && Method->getIdentifier() && Method->getName() == "forward" &&
         isModuleClass(Method->getParent());
}

/// Rounds of the fixpoint iteration before giving up on convergence (sets
/// only grow, so real code converges in loop-depth + 1 rounds).
constexpr unsigned MaxRounds = 12;

} // namespace

class AutogradFlowBuilder {
public:
  AutogradFlowBuilder(const FunctionDecl &Fn, ASTContext &Ctx,
                      AutogradFlow &Out, AutogradFlow::Mode M)
      : Fn(Fn), Ctx(Ctx), Out(Out), IsForward(isModuleForwardMethod(Fn)),
        AsCallee(M == AutogradFlow::Mode::Callee) {}

  bool run();

private:
  const FunctionDecl &Fn;
  ASTContext &Ctx;
  AutogradFlow &Out;
  const bool IsForward;
  /// AutogradFlow::Mode::Callee: what comes from outside may have history.
  const bool AsCallee;

  std::vector<Definition> Defs;
  std::map<std::pair<const void *, const VarDecl *>, unsigned> DefIds;
  bool DefsChanged = false;
  bool Reporting = false;
  State *S = nullptr;
  llvm::SmallPtrSet<const Stmt *, 8> Reported;
  llvm::DenseMap<const CallExpr *, bool> NoGrad;
  /// Savers (an operation that saved its result, or its operands, for its
  /// backward) and in-place writes, by id.
  std::vector<std::pair<const CallExpr *, bool>> Savers;
  std::map<std::pair<const CallExpr *, bool>, unsigned> SaverIds;
  std::vector<const Expr *> Writes;
  llvm::DenseMap<const Expr *, unsigned> WriteIds;
  llvm::SmallPtrSet<const Expr *, 4> ReportedWrites;
  /// Parents inside the body (and, for a lambda, the function around it):
  /// for the grad-mode guards in scope of a call.
  BodyParents Scopes;
  GradModeAnalysis GradMode{Scopes};

  bool isLocal(const VarDecl *VD) const {
    return VD && !VD->hasGlobalStorage() &&
           VD->getDeclContext() == static_cast<const DeclContext *>(&Fn);
  }

  unsigned definitionAt(const void *Site, const VarDecl *Var,
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

  /// Records that \p Var is (re)defined at \p Site with value \p V: the site
  /// builds a fresh graph, so nothing it stands for is freed any more.
  void define(const VarDecl *Var, const void *Site, SourceLocation Loc,
              const Value &V) {
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

  unsigned saverId(const CallExpr &Call, bool Output) {
    auto [It, Inserted] = SaverIds.try_emplace({&Call, Output}, Savers.size());
    if (Inserted)
      Savers.push_back({&Call, Output});
    return It->second;
  }

  /// \p Write writes in place into \p Target: if an operation saved that
  /// tensor for its backward, the backward fails once it needs it.
  void recordWrite(const Expr &Write, const Value &Target) {
    if (Target.SavedBy.empty())
      return;
    auto [It, Inserted] = WriteIds.try_emplace(&Write, Writes.size());
    if (Inserted)
      Writes.push_back(&Write);
    for (unsigned Saver : Target.SavedBy)
      S->Pending.insert(It->second, Saver);
  }

  /// A backward pass (or the return from forward()) at \p Use needs what
  /// \p Needed saved: the in-place writes into those tensors are reported.
  void reportWrites(const DefSet &Needed, const Stmt &Use) {
    if (!Reporting)
      return;
    for (const auto &[WriteId, SaverId] : S->Pending) {
      if (!Needed.count(SaverId) ||
          !ReportedWrites.insert(Writes[WriteId]).second)
        continue;
      AutogradFlow::InPlaceOnSaved R;
      R.Write = Writes[WriteId];
      R.Saver = Savers[SaverId].first;
      R.SavedOutput = Savers[SaverId].second;
      R.Use = &Use;
      Out.InPlaceWrites.push_back(R);
    }
  }

  void recordSaving(const CallExpr &Call, const Value &ObjectValue,
                    llvm::ArrayRef<Value> Args, Value &Result);

  /// The local tensor variable a reference variable is bound to
  /// (`auto &y = x;`), or null.
  const VarDecl *referent(const VarDecl *Var) const {
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

  /// backward() runs on the values definition \p Id produces.
  void markBackpropagated(unsigned Id) {
    if (!Defs[Id].Backpropagated) {
      Defs[Id].Backpropagated = true;
      DefsChanged = true;
    }
  }

  /// \p Var goes out of scope: its value can no longer be backpropagated.
  void endLifetime(const VarDecl *Var) { S->Tensors.erase(Var); }

  /// The value of a tensor the function gets from outside (a member, a
  /// global): possibly with history for a callee's summary, else none known.
  Value outsideValue(QualType T) const {
    Value V;
    if (AsCallee && !T.isNull() && isTensorValued(T))
      V.History = HistoryEvidence::Possible;
    return V;
  }

  Value valueOfVariable(const VarDecl *Var) {
    Value V;
    if (!Var)
      return V;
    if (!isLocal(Var))
      return outsideValue(Var->getType());
    if (isTensorValued(Var->getType())) {
      const TensorFacts *Facts = S->Tensors.find(Var);
      if (!Facts)
        return V;
      V.Graph = Facts->Graph;
      for (unsigned Id : Facts->Reaching) {
        const Definition &D = Defs[Id];
        V.History = std::max(V.History, D.History);
        V.Backpropagated |= D.Backpropagated;
        if (D.History != HistoryEvidence::None || D.Backpropagated)
          V.Graph.insert(Id);
        if (!V.FromValues) {
          V.FromValues = D.FromValues;
          V.ValuesRead = D.ValuesRead;
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
    auto It = S->Taint.find(Var);
    if (It != S->Taint.end())
      V.Taint = It->second;
    return V;
  }

  bool underNoGradGuard(const CallExpr &Call) {
    auto [It, Inserted] = NoGrad.try_emplace(&Call, false);
    if (Inserted)
      It->second = GradMode.isOffAt(Call, Fn);
    return It->second;
  }

  void reportBroken(const Value &V, const Stmt &Use,
                    AutogradFlow::GradientUse Kind) {
    if (!Reporting || !V.FromValues || V.History != HistoryEvidence::None ||
        !Reported.insert(V.FromValues).second)
      return;
    Out.BrokenGraphs.push_back({V.FromValues, V.ValuesRead, &Use, Kind});
  }

  Value visit(const Stmt *St);
  Value visitExpr(const Expr &E);
  std::optional<Value> visitUserCall(const CallExpr &Call,
                                     const Value &Operands);
  Value visitChildren(const Stmt &St);
  Value visitCall(const CallExpr &Call);
  Value assign(const Expr &LHS, const Expr &RHS, const Expr &Site,
               bool Compound);
  void pass(const CallExpr &Call, const Value &Root);
  void visitRoot(const Stmt &Root);
  void initialState(State &Entry);
};

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
  if (Reporting && (V.History != HistoryEvidence::None || V.Backpropagated))
    Out.ExprEvidence[E] = {V.History, V.Backpropagated};
  return V;
}

Value AutogradFlowBuilder::visitExpr(const Expr &Node) {
  const Expr *E = &Node;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return valueOfVariable(dyn_cast<VarDecl>(Ref->getDecl()));
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    if (Binary->isAssignmentOp())
      return assign(*Binary->getLHS(), *Binary->getRHS(), *Binary,
                    Binary->isCompoundAssignmentOp());
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return filterByType(visitCall(*Call), Call->getType());
  Value V = visitChildren(*E);
  // Only nodes that denote the same tensor pass the evidence on as it is.
  if (!isTransparent(*E)) {
    capEvidence(V);
    newTensor(V);
  }
  if (isa<MemberExpr>(E))
    V.join(outsideValue(E->getType()));
  return filterByType(V, E->getType());
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

Value AutogradFlowBuilder::visitCall(const CallExpr &Call) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    if (Op->isAssignmentOp() && Op->getNumArgs() == 2)
      return assign(*Op->getArg(0), *Op->getArg(1), *Op,
                    Op->getOperator() != OO_Equal);
  }

  // Operands first, left to right: their effects happen before the call.
  const Expr *Object = memberCallObject(Call);
  Value ObjectValue;
  if (Object)
    ObjectValue = visit(Object);
  llvm::SmallVector<Value, 4> Args;
  Value AllArgs;
  for (const Expr *Arg : Call.arguments()) {
    Args.push_back(visit(Arg));
    AllArgs.join(Args.back());
  }

  // In a template, `loss.backward()` on a `loss` of dependent type is a pass
  // when the loss evidently has history (a dependent forward's, a loss's).
  const bool DependentPass = isDependentBackwardCall(Call) &&
                             ObjectValue.History == HistoryEvidence::Evident;
  if (isBackwardCall(Call) || isAutogradGradCall(Call) || DependentPass) {
    Value RootValue = Object ? ObjectValue : (Args.empty() ? Value() : Args[0]);
    pass(Call, RootValue);
    if (!isAutogradGradCall(Call))
      return {};
    // grad() returns gradients with history only with create_graph=true.
    bool Empty = false;
    const Expr *Create = writtenArg(Call, 4);
    std::optional<bool> CreateGraph = constantFlag(Create, Ctx, Empty);
    if (!Create || (CreateGraph && !*CreateGraph))
      return {};
    Value V = AllArgs;
    newTensor(V);
    V.Savers.clear();
    return V;
  }

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
    if (!underNoGradGuard(Call))
      V.History = HistoryEvidence::Evident;
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

  // Filling a container: vec.push_back(x), vec.emplace_back(...), ...
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    if (isContainerInsertion(*Member)) {
      const auto *Ref = dyn_cast<DeclRefExpr>(
          Member->getImplicitObjectArgument()->IgnoreParenImpCasts());
      const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      if (isLocal(Var)) {
        if (isTensorValued(Var->getType())) {
          Value V = filterByType(AllArgs, Var->getType());
          V.join(valueOfVariable(Var));
          define(Var, &Call, beginLoc(Call), V);
        } else if (AllArgs.Taint) {
          S->Taint.emplace(Var, AllArgs.Taint);
        }
      }
      return {};
    }
  }

  // Templates: a backward pass through a still-dependent callee marks its
  // object as backpropagated (evidence only: no graph is freed).
  if (dependentCalleeName(Call) == "backward")
    if (const VarDecl *Var = soleVariableOf(callObject(Call)); isLocal(Var))
      if (const TensorFacts *Facts = S->Tensors.find(Var))
        for (unsigned Id : Facts->Reaching)
          markBackpropagated(Id);

  Value Operands = AllArgs;
  Operands.join(ObjectValue);
  if (std::optional<Value> Summarised = visitUserCall(Call, Operands))
    return *Summarised;

  // Anything else computes its result from its operands. The evidence passes
  // on as it is through LibTorch's differentiable operations, arithmetic on
  // tensors and the tensor a TorchScript module returned; any other call
  // (a user function, an operation the table does not know) may or may not
  // keep the history.
  Value V = AllArgs;
  V.join(ObjectValue);
  if (!keepsEvidence(Call))
    capEvidence(V);
  newTensor(V);
  // In-place operations return their object; indexing a tensor is a view.
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
    V.Same = TargetValue.Same;
    V.SavedBy = TargetValue.SavedBy;
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
             Op && Op->getOperator() == OO_Subscript && !Args.empty() &&
             isTensorType(Op->getArg(0)->getType())) {
    V.Same = Args[0].Same;
    V.SavedBy = Args[0].SavedBy;
  }
  if (!underNoGradGuard(Call) && savingRolesOf(Call))
    recordSaving(Call, ObjectValue, Args, V);
  return V;
}

std::optional<Value> AutogradFlowBuilder::visitUserCall(const CallExpr &Call,
                                                        const Value &Operands) {
  const FunctionDecl *Callee = userCallee(Call, Ctx);
  const FunctionSummary *Summary =
      Callee ? FunctionSummary::of(*Callee, Ctx) : nullptr;
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
  }
  return V;
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
  unsigned NeedGrad =
      llvm::count_if(Operands, [](const Value *V) { return requiresGrad(*V); });
  bool Saves = false;
  auto Save = [&](const Value &Operand) {
    unsigned Id = saverId(Call, /*Output=*/false);
    for (unsigned Def : Operand.Same)
      S->Saved.insert(Def, Id);
    Saves = true;
  };
  for (const Value *Operand : Operands) {
    const unsigned Others = NeedGrad - (requiresGrad(*Operand) ? 1 : 0);
    if (((Roles & op::SavesInput) && requiresGrad(*Operand)) ||
        ((Roles & op::SavesOperands) && Others > 0))
      Save(*Operand);
  }
  if (Saves)
    Result.Savers.insert(saverId(Call, /*Output=*/false));
  if ((Roles & op::SavesOutput) && NeedGrad > 0) {
    unsigned Id = saverId(Call, /*Output=*/true);
    Result.Same.clear();
    Result.SavedBy = DefSet{Id};
    Result.Savers.insert(Id);
    Saves = true;
  }
  if (!Saves)
    return;
  // Executed again (in a loop): writes into what its previous execution
  // saved no longer concern the graph it builds now.
  DefSet Again;
  for (bool Output : {false, true})
    if (auto It = SaverIds.find({&Call, Output}); It != SaverIds.end())
      Again.insert(It->second);
  S->Pending.eraseSeconds(Again);
}

void AutogradFlowBuilder::pass(const CallExpr &Call, const Value &Root) {
  // The backpropagated tensor itself is part of the graph even without other
  // evidence: backward() on it is evidence of history.
  DefSet Reach = Root.Graph;
  DefSet RootDefs;
  FreedSet Freed = Root.Freed;
  DefSet Needed = Root.Savers;
  if (const VarDecl *Var = soleVariableOf(passRootOf(Call)); isLocal(Var)) {
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

  // The pass needs what the savers of its graph saved; once it ran without
  // retaining the graph, those tensors are free to change.
  reportWrites(Needed, Call);
  if (graphRetentionOf(Call, Ctx) != GraphRetention::Retains) {
    S->Pending.eraseSeconds(Needed);
    S->Saved.eraseSeconds(Needed);
  }

  if (Reporting && !Reported.count(&Call)) {
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
      P.FailingRoot = soleVariableOf(passRootOf(Call));
      P.FirstRoot = soleVariableOf(passRootOf(*First));
      Out.SecondPasses.push_back(P);
    }
  }

  if (graphRetentionOf(Call, Ctx) != GraphRetention::Frees || Reach.empty())
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

void AutogradFlowBuilder::visitRoot(const Stmt &Root) {
  if (const auto *DS = dyn_cast<DeclStmt>(&Root)) {
    for (const Decl *D : DS->decls()) {
      const auto *Var = dyn_cast<VarDecl>(D);
      if (!Var || isa<DecompositionDecl>(Var))
        continue;
      Value V = visit(Var->getInit());
      if (!isLocal(Var))
        continue;
      if (isTensorValued(Var->getType()))
        define(Var, Var, Var->getLocation(), filterByType(V, Var->getType()));
      else if (V.Taint)
        S->Taint[Var] = V.Taint;
      else
        S->Taint.erase(Var);
    }
    return;
  }
  if (const auto *Return = dyn_cast<ReturnStmt>(&Root)) {
    Value V = visit(Return->getRetValue());
    if (IsForward) {
      reportBroken(V, *Return, AutogradFlow::GradientUse::ReturnedFromForward);
      // The caller backpropagates forward()'s result.
      reportWrites(V.Savers, *Return);
    }
    if (Reporting) {
      Out.Result.History = std::max(Out.Result.History, V.History);
      if (!Out.Result.FromValues) {
        Out.Result.FromValues = V.FromValues;
        Out.Result.ValuesRead = V.ValuesRead;
      }
    }
    return;
  }
  visit(&Root);
}

void AutogradFlowBuilder::initialState(State &Entry) {
  State *Saved = S;
  S = &Entry;
  for (const ParmVarDecl *Param : Fn.parameters())
    if (isTensorValued(Param->getType()))
      define(Param, Param, Param->getLocation(),
             outsideValue(Param->getType()));
  S = Saved;
}

bool AutogradFlowBuilder::run() {
  const Stmt *Body = Fn.getBody();
  if (!Body || Fn.isInvalidDecl())
    return false;
  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  Options.AddImplicitDtors = false;
  Options.AddTemporaryDtors = false;
  Options.AddInitializers = false;
  // Where each variable's lifetime ends: a tensor out of scope can no longer
  // be backpropagated (the loss of the previous loop iteration).
  Options.AddLifetime = true;
  std::unique_ptr<CFG> Graph =
      CFG::buildCFG(&Fn, const_cast<Stmt *>(Body), &Ctx, Options);
  if (!Graph)
    return false;

  // Each full expression (or declaration, or return) is evaluated once, in
  // the first block where one of its parts appears.
  ParentMap BodyParents(const_cast<Stmt *>(Body));
  llvm::DenseMap<const DeclStmt *, const DeclStmt *> Synthetic;
  for (const auto &[SyntheticDS, Original] : Graph->synthetic_stmts())
    Synthetic[SyntheticDS] = Original;
  auto RootOf = [&](const Stmt *St) {
    if (const auto *DS = dyn_cast<DeclStmt>(St))
      if (const DeclStmt *Original = Synthetic.lookup(DS))
        St = Original;
    while (const Stmt *Parent = BodyParents.getParent(St)) {
      if (isa<Expr>(Parent)) {
        St = Parent;
        continue;
      }
      if (isa<DeclStmt>(Parent) || isa<ReturnStmt>(Parent))
        St = Parent;
      break;
    }
    return St;
  };

  PostOrderCFGView Order(Graph.get());
  const unsigned NumBlocks = Graph->getNumBlockIDs();
  // Per block, in order: full expressions to evaluate (Stmt) and variables
  // whose lifetime ends (VarDecl).
  using Step = llvm::PointerUnion<const Stmt *, const VarDecl *>;
  std::vector<llvm::SmallVector<Step, 4>> Steps(NumBlocks);
  llvm::SmallPtrSet<const Stmt *, 32> Seen;
  for (const CFGBlock *Block : Order)
    for (const CFGElement &Element : *Block) {
      if (std::optional<CFGStmt> St = Element.getAs<CFGStmt>()) {
        if (const Stmt *Root = RootOf(St->getStmt()); Seen.insert(Root).second)
          Steps[Block->getBlockID()].push_back(Root);
      } else if (std::optional<CFGLifetimeEnds> End =
                     Element.getAs<CFGLifetimeEnds>()) {
        if (isLocal(End->getVarDecl()) &&
            isTensorValued(End->getVarDecl()->getType()))
          Steps[Block->getBlockID()].push_back(End->getVarDecl());
      }
    }
  auto RunBlock = [&](const CFGBlock &Block) {
    for (Step Item : Steps[Block.getBlockID()]) {
      if (const auto *Root = Item.dyn_cast<const Stmt *>())
        visitRoot(*Root);
      else
        endLifetime(Item.get<const VarDecl *>());
    }
  };

  State Entry;
  initialState(Entry);
  std::vector<std::optional<State>> OutStates(NumBlocks);
  auto InStateOf = [&](const CFGBlock &Block, State &In) {
    bool Reached = &Block == &Graph->getEntry();
    if (Reached)
      In = Entry;
    for (const CFGBlock::AdjacentBlock &Pred : Block.preds()) {
      const CFGBlock *P = Pred.getReachableBlock();
      if (!P || !OutStates[P->getBlockID()])
        continue;
      In.join(*OutStates[P->getBlockID()]);
      Reached = true;
    }
    return Reached;
  };

  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    bool Changed = false;
    DefsChanged = false;
    for (const CFGBlock *Block : Order) {
      State In;
      if (!InStateOf(*Block, In))
        continue;
      S = &In;
      RunBlock(*Block);
      S = nullptr;
      std::optional<State> &BlockOut = OutStates[Block->getBlockID()];
      if (!BlockOut || !(*BlockOut == In)) {
        BlockOut = std::move(In);
        Changed = true;
      }
    }
    if (!Changed && !DefsChanged)
      break;
  }

  // One more round over the fixpoint, now reporting.
  Reporting = true;
  for (const CFGBlock *Block : Order) {
    State In;
    if (!InStateOf(*Block, In))
      continue;
    S = &In;
    RunBlock(*Block);
    S = nullptr;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::sort(Out.SecondPasses, [&](const auto &A, const auto &B) {
    return SM.isBeforeInTranslationUnit(beginLoc(*A.Failing),
                                        beginLoc(*B.Failing));
  });
  llvm::sort(Out.InPlaceWrites, [&](const auto &A, const auto &B) {
    return SM.isBeforeInTranslationUnit(beginLoc(*A.Write), beginLoc(*B.Write));
  });
  llvm::sort(Out.BrokenGraphs, [&](const auto &A, const auto &B) {
    return SM.isBeforeInTranslationUnit(beginLoc(*A.Construction),
                                        beginLoc(*B.Construction));
  });
  return true;
}

std::unique_ptr<AutogradFlow> AutogradFlow::analyze(const FunctionDecl &F,
                                                    ASTContext &Ctx, Mode M) {
  auto Result = std::make_unique<AutogradFlow>();
  Result->Function = &F;
  AutogradFlowBuilder Builder(F, Ctx, *Result, M);
  if (!Builder.run())
    return nullptr;
  return Result;
}

// --- Queries
// ----------------------------------------------------------------------------

const AutogradFlow::Evidence *AutogradFlow::evidenceOf(const Expr &E) const {
  // The expression as the caller holds it, then as written: a check may hold
  // a node the analysis saw under an implicit conversion, or the reverse.
  for (const Expr *Form :
       {&E, E.IgnoreImplicit(), E.IgnoreParenImpCasts(), stripImplicit(&E)}) {
    if (!Form)
      continue;
    auto It = ExprEvidence.find(Form);
    if (It != ExprEvidence.end())
      return &It->second;
  }
  return nullptr;
}

HistoryEvidence AutogradFlow::historyOf(const Expr &E) const {
  const Evidence *Found = evidenceOf(E);
  return Found ? Found->History : HistoryEvidence::None;
}

bool AutogradFlow::hasHistoryEvidence(const Expr &E) const {
  const Evidence *Found = evidenceOf(E);
  return Found &&
         (Found->History == HistoryEvidence::Evident || Found->Backpropagated);
}

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

} // namespace

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

// --- Selection and sharing for the graph checks
// ----------------------------------

namespace {

using FlowKey = std::pair<const ASTContext *, const FunctionDecl *>;

/// The analyses of the current translation unit on this thread; a null value
/// records that the function has no CFG. See AutogradFunctions.
llvm::DenseMap<FlowKey, std::unique_ptr<AutogradFlow>> &flowCache() {
  thread_local llvm::DenseMap<FlowKey, std::unique_ptr<AutogradFlow>> Cache;
  return Cache;
}

} // namespace

void AutogradFunctions::registerMatchers(
    UserCodeMatchFinder &Finder, const ast_matchers::StatementMatcher &Filter) {
  using namespace ast_matchers;
  // Only the user's top-level declarations are searched (UserCodeMatchFinder);
  // then whether the body has a statement of interest at all. Instantiations
  // are skipped in analysisOf(), by declaration context (no parent map).
  Finder.addMatcher(functionDecl(isExpansionInUserCode(), isDefinition(),
                                 hasBody(stmt(hasDescendant(Filter))))
                        .bind("fn"));
  Finder.addMatcher(lambdaExpr(isExpansionInUserCode(), hasDescendant(Filter))
                        .bind("lambda"));
}

const AutogradFlow *AutogradFlow::of(const FunctionDecl &F, ASTContext &Ctx) {
  auto [It, Inserted] = flowCache().try_emplace(FlowKey(&Ctx, &F));
  if (Inserted)
    It->second = AutogradFlow::analyze(F, Ctx);
  return It->second.get();
}

void AutogradFlow::forgetTranslationUnit() {
  flowCache().clear();
  FunctionSummary::forgetTranslationUnit();
}

const AutogradFlow *AutogradFunctions::analysisOf(
    const ast_matchers::MatchFinder::MatchResult &Result) {
  const FunctionDecl *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (const auto *Lambda = Result.Nodes.getNodeAs<LambdaExpr>("lambda"))
    Fn = Lambda->getCallOperator();
  // Templates are analysed once, in their written form.
  if (!Fn || isInTemplateInstantiation(*Fn) || !Handed.insert(Fn).second)
    return nullptr;
  return AutogradFlow::of(*Fn, *Result.Context);
}

void AutogradFunctions::startTranslationUnit() {
  Handed.clear();
  AutogradFlow::forgetTranslationUnit();
}

void AutogradFunctions::endTranslationUnit() {
  Handed.clear();
  AutogradFlow::forgetTranslationUnit();
}

} // namespace clang::tidy::torch
