//===--- IntegerValues.h - the integer values a tensor may hold -*- C++ -*-===//
//
// Which integer values the elements of a tensor (or an integer scalar) may
// take, as a union of closed intervals, each with the expression that put it
// there: what a class-index target, an embedding index or a one_hot input
// can contain. Only what the program visibly makes is known:
//
//   * integer constants (literals, constexpr and const locals with constant
//     initialisers, local variables never written after their constant
//     initialiser);
//   * torch::randint(high, ...) -> [0, high - 1], randint(low, high, ...) ->
//     [low, high - 1] (randint_like likewise); torch::arange(end) ->
//     [0, end - 1], arange(start, end[, step > 0]) -> [start, end - 1];
//     torch::full(sizes, v) / full_like(t, v) -> {v}; zeros -> {0}; ones ->
//     {1}; torch::tensor({1, 2, 3}) -> its values;
//   * `t + k`, `t - k`, `t * k` (k a constant; add/sub/mul, `+=`, add_,
//     ...), clamp / clamp_min / clamp_max with constants, masked_fill(mask,
//     v) and `t.index_put_({mask}, v)` / `t[mask] = v` (joined with {v}; a
//     mask that compares t itself with a constant, `t == 0`, `t > 9`,
//     replaces exactly the values it selects), torch::where(cond, a, b) (both
//     branches; a branch that is the compared tensor keeps only the values
//     the condition selects), `c ? a : b`;
//   * operations that keep the values (views, dtype and device conversions,
//     clone, detach, selections: op::ValuePreserving);
//   * local variables: the join of every value assigned to them, then each
//     in-place update in source order (flow-insensitively: a shift in a
//     branch is a value on some path); a field or element of a local through
//     PathValues.h; a call of the user's code: the join of what it returns.
//
// Anything else is unknown (a parameter, a member, a data set's target, an
// operation whose values the rules do not give, a variable passed on by
// non-const reference or changed in place in another way). A check reports
// only values a known set proves: every interval comes from an operation
// that produces each of its values (randint draws every value of its range;
// arange enumerates it).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_INTEGERVALUES_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_INTEGERVALUES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <optional>

namespace clang::tidy::torch {

/// A union of closed integer intervals; Known is false when nothing is.
struct IntegerSet {
  struct Range {
    int64_t Lo = 0;
    int64_t Hi = 0;
    /// The expression that produced these values.
    const Expr *Source = nullptr;
  };
  bool Known = false;
  llvm::SmallVector<Range, 4> Ranges;

  static IntegerSet unknown() { return {}; }
  static IntegerSet of(int64_t Lo, int64_t Hi, const Expr *Source);
  /// Both sets' values (unknown if either is).
  IntegerSet join(const IntegerSet &O) const;
  /// Every value plus \p K, or times \p K.
  IntegerSet shifted(int64_t K) const;
  IntegerSet scaled(int64_t K) const;
  /// The values kept inside [Lo, Hi] (values outside are moved onto the
  /// bound, as clamp does).
  IntegerSet clamped(std::optional<int64_t> Lo, std::optional<int64_t> Hi,
                     const Expr *Source) const;
  /// The values for which \p Keep(v) is false are removed (interval ends
  /// only: the predicates used are comparisons with a constant).
  IntegerSet restrictedTo(int64_t Lo, int64_t Hi) const;

  /// The first value outside [Lo, Hi) other than \p Except, with the range
  /// it comes from.
  std::optional<std::pair<int64_t, const Range *>>
  firstOutside(int64_t Lo, int64_t HiExclusive,
               std::optional<int64_t> Except) const;
};

class IntegerValues {
public:
  explicit IntegerValues(ASTContext &Ctx) : Ctx(Ctx) {}

  /// The values the elements of tensor \p E (or integer scalar \p E) may
  /// take.
  IntegerSet valuesOf(const Expr *E) { return values(E, 0); }

  /// The value of integer expression \p E when it is a constant (see the
  /// file comment: literals, constexpr, locals with one constant value).
  std::optional<int64_t> constantOf(const Expr *E);

  ASTContext &context() const { return Ctx; }

  /// Evaluates a function's body at one of its calls: parameter \p P holds
  /// the caller's argument \p Arg (an expression of the caller, evaluated
  /// there). Used by the checks to follow a helper's loss to its call sites.
  void bind(const ParmVarDecl *P, const Expr *Arg) { Bindings[P] = Arg; }
  void clearBindings() { Bindings.clear(); }
  /// The argument bound to \p D when it is a bound parameter; null otherwise.
  const Expr *boundArgument(const ValueDecl *D) const {
    auto It = Bindings.find(D);
    return It == Bindings.end() ? nullptr : It->second;
  }

private:
  IntegerSet values(const Expr *E, unsigned Depth);
  IntegerSet variableValues(const VarDecl &VD, unsigned Depth);
  IntegerSet callValues(const CallExpr &Call, const Expr *E, unsigned Depth);
  /// \p Set after `mask`-selected elements of \p Target were set to \p Fill.
  IntegerSet filled(const IntegerSet &Set, const Expr *Target,
                    const Expr *Mask, const Expr *Fill, const Expr *Source,
                    unsigned Depth);

  ASTContext &Ctx;
  llvm::SmallPtrSet<const VarDecl *, 4> Visiting;
  llvm::DenseMap<const ValueDecl *, const Expr *> Bindings;
};

} // namespace clang::tidy::torch

#endif
