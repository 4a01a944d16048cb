//===--- ValueRange.h - an abstract value range for tensors -----*- C++ -*-===//
//
// The domain of the boundary analysis (BoundaryGuard.h): what is known about
// the values of a tensor expression near the boundaries of sqrt, log, pow,
// division (0) and acos, asin (-1 and 1), and the transfer functions of the
// operations that move a value towards or away from them. Nothing here looks
// at the AST or decides what a check reports: BoundaryAnalysis walks an
// expression, asks the operation table (Ops.def) what each operation is, and
// combines the operands' ranges with these functions.
//
// The facts, per expression:
//   * Zero: kept away from 0 (Guarded: `+ eps`, exp, a positive clamp), can
//     reach 0 by its form (Reaches: a norm, a sum of squares, relu), or
//     nothing is visible (Unknown: a parameter, a user function's result);
//   * sign: NonNegative (a norm, a square, a softmax, relu);
//   * Magnitude: a square, |x|, an even power, or a sum or product of such:
//     exactly 0 where its operands are 0 (a sum of squares is a squared norm);
//   * ReachesOne: bounded by 1 and saturating at 1 (sigmoid, softmax, the
//     square of a cosine), so `1 - v` reaches 0;
//   * Softmax, Detached, FromClamp: what the messages and fix-its need.
// Float32 (LibTorch's default dtype) is the arithmetic the ranges describe:
// `1 - 1e-8` is 1 there (see clampBoundReachesOne).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_VALUERANGE_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_VALUERANGE_H

namespace clang {
class VarDecl;
namespace tidy::torch {

/// How close a value can come to a boundary.
enum class Reach {
  /// Something visibly keeps it away (eps, clamp, exp, ...).
  Guarded,
  /// Its form lets it reach the boundary (norm, reduction, square, ...).
  Reaches,
  /// Nothing is visible about it (parameter, member, user function).
  Unknown,
};

/// The abstract value of one tensor expression (see the file comment).
struct ValueRange {
  Reach State = Reach::Unknown;
  /// The first local variable whose definition was followed.
  const VarDecl *Through = nullptr;
  /// The value is (a view of) a softmax output.
  bool Softmax = false;
  /// The value is a sigmoid's output: > 0 for every input a network
  /// produces in practice, but its log has a stable form of its own
  /// (log_sigmoid), and float32 rounds it to 0 below about -88.
  bool Sigmoid = false;
  /// The value is detached from the autograd graph, or never had history
  /// (BoundaryAnalysis::withoutHistory: fresh tensors, ranges, constants), so
  /// only the value (not the gradient) of an operation on it matters.
  bool Detached = false;
  /// The value is >= 0 by its form (norm, square, abs, sqrt, ...): adding an
  /// epsilon is the unambiguous fix.
  bool NonNegative = false;
  /// A square, |x|, an even power, or a sum or product of those: 0 where
  /// its operands are.
  bool Magnitude = false;
  /// In [0, 1] and saturating at 1 (sigmoid, softmax, c * c of a cosine).
  bool ReachesOne = false;
  /// It reaches the boundary because it is clamped onto it (clamp(-1, 1)).
  bool FromClamp = false;

  static ValueRange of(Reach State, bool NonNegative = false);
  /// A constant: positive constants guard, 0 reaches.
  static ValueRange constant(double V);

  // --- transfer functions ---------------------------------------------------
  /// Both branches of a conditional, or every definition of a variable.
  static ValueRange join(const ValueRange &A, const ValueRange &B);
  /// |x|, x * x, x^2k of \p Base; \p Difference: x is a difference a - b
  /// (0 where a == b); \p BaseReachesUnit: x reaches -1 or 1 (a cosine).
  static ValueRange magnitudeOf(const ValueRange &Base, bool Difference,
                                bool BaseReachesUnit);
  /// a + b.
  static ValueRange add(const ValueRange &A, const ValueRange &B);
  /// a * b, elementwise.
  static ValueRange multiply(const ValueRange &A, const ValueRange &B);
  /// A sum, mean, prod, cumsum, amax of \p X.
  static ValueRange reduce(const ValueRange &X);
  /// A sum of products (mm, matmul, bmm, dot, outer): a row of zeros of a
  /// magnitude gives an exact 0, positive factors a positive result.
  static ValueRange product(const ValueRange &A, const ValueRange &B);
  /// relu(x), clamp_min(x, 0): exactly 0 for every negative input.
  static ValueRange relu(const ValueRange &X);
  /// 1 - x.
  static ValueRange oneMinus(const ValueRange &X);
  /// sqrt(x), x^p with 0 < p < 1: >= 0, 0 where x is.
  static ValueRange root(const ValueRange &X);
};

/// The name the boundary analysis used before the domain had a name.
using ReachResult = ValueRange;

/// True if a clamp bound \p Bound keeps no float32 value away from -1 or 1:
/// |Bound| >= 1, or 1 - |Bound| below float32's resolution at 1 (1 - 1e-8
/// rounds to 1).
bool clampBoundReachesOne(double Bound);

} // namespace tidy::torch
} // namespace clang

#endif
