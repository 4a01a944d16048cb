//===--- PathGuard.h - does a test on the path exclude a boundary? -*- C++ -*-===//
//
// Path conditions as guards for the boundary analysis: an operation that is
// singular at 0 is safe when the code only reaches it after a test that
// excludes 0 for its argument:
//
//   if (n.item<double>() == 0.0) { ... } else { r = w / n; }   // else branch
//   if (n.item<double>() > 0) r = w / n;                        // then branch
//   if (n.abs().min().item<float>() < eps) return ...;          // early exit
//   r = w / n;                                                  //   (also
//                                                               // continue,
//   TORCH_CHECK(n.item<double>() != 0, "...");                  // break,
//   r = w / n;                                                  // throw)
//
// A structural walk, not a CFG: from the operation up through its enclosing
// statements (BodyParents), an enclosing `if` (or `?:`) whose branch holding
// the operation is taken only when the argument is away from 0, and in every
// enclosing block the statements before it of the form `if (test) exit;`
// whose test holds near 0 (exit: return, continue, break, throw, a call of a
// [[noreturn]] function such as TORCH_CHECK's). The tested value must be the
// argument itself (the same local variable, or the same expression), read
// through item<T>(), toDouble(), casts, abs() and min(), or a local scalar
// initialised from such a read; any() and all() of an elementwise comparison
// count (`(n == 0).any().item<bool>()`). Writes to the argument between the
// test and the operation are not looked at. Generic clang machinery plus the
// names of Tensor/Scalar accessors; no check policy.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_PATHGUARD_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_PATHGUARD_H

#include "utils/ast/BodyParents.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/Support/Regex.h"

namespace clang::tidy::torch {

class PathGuards {
public:
  /// \p EpsilonNames: names that count as a small positive constant in a
  /// test (`n < eps`).
  PathGuards(BodyParents &Parents, ASTContext &Ctx,
             const llvm::Regex &EpsilonNames)
      : Parents(Parents), Ctx(Ctx), EpsilonNames(EpsilonNames) {}

  /// True if \p Use, in the body of \p Fn, is reached only on paths where a
  /// test has excluded 0 for \p Value.
  bool excludesZero(const Stmt &Use, const Expr *Value,
                    const FunctionDecl &Fn);

  /// What a condition says about a value when it holds.
  enum class Test {
    None,
    /// True only when the value is away from 0 (`n > 0`, `n != 0`).
    AwayFromZero,
    /// False only when the value is away from 0 (`n == 0`, `n < eps`).
    NearZero,
  };
  Test classify(const Expr *Cond, const Expr *Value) const;

private:
  Test compare(BinaryOperatorKind Op, const Expr *L, const Expr *R,
               const Expr *Value) const;
  bool testsValue(const Expr *T, const Expr *Value, unsigned Depth) const;
  bool sameValue(const Expr *A, const Expr *B) const;
  /// A positive bound: a constant > 0 or an epsilon-like name.
  bool isSmallPositive(const Expr *E) const;
  /// Statements before \p Child in block \p Parent that exit when \p Value
  /// is near 0.
  bool exitsBefore(const Stmt &Parent, const Stmt &Child, const Expr *Value);

  BodyParents &Parents;
  ASTContext &Ctx;
  const llvm::Regex &EpsilonNames;
};

/// True if \p Cond only tests whether values are finite: each operand of its
/// `!`, `&&` and `||` is a finiteness test (`isnan`, `isinf`, `isfinite`,
/// `isposinf`, `isneginf`: std::, torch:: or a Tensor's method), read
/// through `item()`, `item<T>()`, `toBool()`, `any()` and `all()`:
/// `!loss.isnan().item<bool>()`, `std::isfinite(l)`,
/// `torch::isfinite(loss).all().item<bool>()`. Such a test skips a bad value;
/// it says nothing about which iteration it is.
bool testsFiniteness(const Expr *Cond);

/// What a condition inside a counting loop says about the iteration it is
/// tested in: `for (int e = 1; e <= n; ++e) { ...; if (e != n) ...; }` holds
/// on every iteration but the last. The loop must count up by one from its
/// header (`++v`, `v++`, `v += 1`, `v = v + 1`) to a bound `v < N`, `v <= N`
/// or `v != N`; the condition compares the same variable, offset by
/// constants, with the same bound (`e < n - 1`, `i + 1 != n`, `e == n`).
/// Writes to the variable in the body are not looked at.
struct IterationTest {
  /// The condition holds only on the last iteration.
  bool TrueOnlyOnLast = false;
  /// The condition fails only on the last iteration.
  bool FalseOnlyOnLast = false;
};
IterationTest classifyIteration(const Expr *Cond, const Stmt &Loop,
                                const ASTContext &Ctx);

/// True if \p S, inside \p Loop in the body of \p Fn, runs only on the
/// loop's last iteration: it is in the branch of an `if` (or `?:`) taken only
/// then, or follows `if (cond) continue;` (break, return, throw) whose
/// condition fails only then.
bool onlyOnLastIteration(const Stmt &S, const Stmt &Loop,
                         const FunctionDecl &Fn, BodyParents &Parents);

} // namespace clang::tidy::torch

#endif
