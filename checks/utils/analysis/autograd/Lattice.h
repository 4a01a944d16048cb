//===--- Lattice.h - the abstract values of AutogradFlow -------*- C++ -*-===//
//
// Private to AutogradFlow (checks/utils/analysis/autograd/). The facts the
// dataflow tracks and how they join: sets of definition ids, freed-graph
// marks, saved-tensor pairs, the value of an expression (Value), a definition
// site (Definition), the facts of a local tensor variable on a path
// (TensorFacts, TensorMap) and the state at a program point (State). Joins
// are unions: the analysis is a may-analysis.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_AUTOGRAD_LATTICE_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_AUTOGRAD_LATTICE_H

#include "utils/analysis/AutogradFlow.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

namespace clang::tidy::torch::autograd {

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
  void erase(unsigned Id) {
    auto It = std::lower_bound(Ids.begin(), Ids.end(), Id);
    if (It != Ids.end() && *It == Id)
      Ids.erase(It);
  }
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
  /// The value is a leaf that requires grad (a parameter, a tensor made
  /// with requires_grad): values read out of it cut the graph, operations on
  /// it have history, but it has no graph of its own to free.
  bool RequiresGrad = false;
  /// Local, non-leaf definitions (with history) whose graph the value reaches.
  DefSet Graph;
  /// The value is (derived from) a tensor built from values read out of a
  /// tensor with history, at this construction call ...
  const CallExpr *FromValues = nullptr;
  /// ... whose values were read out here.
  const Expr *ValuesRead = nullptr;
  /// The value is a sum (`loss + reg`, `loss += 0.01 * reg`) one of whose
  /// terms is such a rebuilt tensor and another has history; kept through
  /// operations that keep a sum a sum (sum, mean, scaling by a constant).
  const CallExpr *AddedFromValues = nullptr;
  const Expr *AddedValuesRead = nullptr;
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
  /// The analysed function's tensor parameters (bit i: the parameter at
  /// index i, below 32) the value is computed from: it requires grad when
  /// one of them does (AutogradFlow::ConditionalWrite).
  unsigned Params = 0;

  void join(const Value &Other) {
    History = std::max(History, Other.History);
    Params |= Other.Params;
    Backpropagated |= Other.Backpropagated;
    RequiresGrad |= Other.RequiresGrad;
    Graph.insertAll(Other.Graph);
    Freed.insertAll(Other.Freed);
    Same.insertAll(Other.Same);
    SavedBy.insertAll(Other.SavedBy);
    Savers.insertAll(Other.Savers);
    if (!FromValues) {
      FromValues = Other.FromValues;
      ValuesRead = Other.ValuesRead;
    }
    if (!AddedFromValues) {
      AddedFromValues = Other.AddedFromValues;
      AddedValuesRead = Other.AddedValuesRead;
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
  /// The site computes the variable from the value it gave it in an earlier
  /// execution (`h = cell(x, h)` round a loop): the graph is carried over.
  bool CarriedOver = false;
  /// The site's value is a leaf that requires grad (Value::RequiresGrad).
  bool RequiresGrad = false;
  /// Value::Params of the site's value.
  unsigned Params = 0;
  /// Value::AddedFromValues of the site's value.
  const CallExpr *AddedFromValues = nullptr;
  const Expr *AddedValuesRead = nullptr;
  /// The site is a call of a method that keeps a tensor in a member of the
  /// object (Var) from one call into the next (MemberState.h): the member
  /// and the write in the method that carries it.
  const FieldDecl *StateMember = nullptr;
  const Expr *StateWrite = nullptr;
  const FunctionDecl *StateWriter = nullptr;
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

} // namespace clang::tidy::torch::autograd

#endif
