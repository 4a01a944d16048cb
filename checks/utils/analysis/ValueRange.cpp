//===--- ValueRange.cpp - an abstract value range for tensors -------------===//

#include "utils/analysis/ValueRange.h"
#include <cmath>

namespace clang::tidy::torch {

ValueRange ValueRange::of(Reach State, bool NonNegative) {
  ValueRange R;
  R.State = State;
  R.NonNegative = NonNegative;
  return R;
}

ValueRange ValueRange::constant(double V) {
  return of(V > 0 ? Reach::Guarded : V == 0 ? Reach::Reaches : Reach::Unknown,
            V >= 0);
}

ValueRange ValueRange::join(const ValueRange &A, const ValueRange &B) {
  ValueRange R = A;
  if (A.State != B.State)
    R.State = Reach::Unknown;
  R.Softmax = A.Softmax && B.Softmax;
  R.Sigmoid = A.Sigmoid && B.Sigmoid;
  R.NonNegative = A.NonNegative && B.NonNegative;
  R.Magnitude = A.Magnitude && B.Magnitude;
  R.ReachesOne = A.ReachesOne && B.ReachesOne;
  R.Detached = A.Detached && B.Detached;
  R.FromClamp = A.FromClamp || B.FromClamp;
  if (!R.Through)
    R.Through = B.Through;
  return R;
}

ValueRange ValueRange::magnitudeOf(const ValueRange &Base, bool Difference,
                                   bool BaseReachesUnit) {
  if (Base.State == Reach::Guarded)
    return Base;
  // |x| and x^2 reach 0 where x does; a difference a - b does when a == b.
  ValueRange R = of(Base.State == Reach::Reaches || Difference ? Reach::Reaches
                                                               : Reach::Unknown,
                    /*NonNegative=*/true);
  R.Magnitude = true;
  R.ReachesOne = BaseReachesUnit; // cos^2 at parallel vectors is 1.
  R.Detached = Base.Detached;
  R.Through = Base.Through;
  return R;
}

/// Reaches 0 and >= 0: a norm, a sum of squares, relu.
static bool reachesFromAbove(const ValueRange &R) {
  return R.NonNegative && (R.State == Reach::Reaches || R.Magnitude);
}

ValueRange ValueRange::add(const ValueRange &A, const ValueRange &B) {
  if (A.State == Reach::Guarded || B.State == Reach::Guarded)
    return of(Reach::Guarded);
  // A sum of squares (gx * gx + gy * gy) is a squared norm: 0 where every
  // term is, which a flat image or equal inputs give.
  if (reachesFromAbove(A) && reachesFromAbove(B)) {
    ValueRange Sum = of(Reach::Reaches, /*NonNegative=*/true);
    Sum.Magnitude = A.Magnitude && B.Magnitude;
    Sum.Through = A.Through ? A.Through : B.Through;
    return Sum;
  }
  return of(Reach::Unknown);
}

ValueRange ValueRange::multiply(const ValueRange &A, const ValueRange &B) {
  if (A.State == Reach::Reaches || B.State == Reach::Reaches) {
    ValueRange P = A.State == Reach::Reaches ? A : B;
    P.NonNegative = A.NonNegative && B.NonNegative;
    P.Magnitude = A.Magnitude && B.Magnitude;
    P.ReachesOne = false;
    P.Softmax = false;
    return P;
  }
  if (A.State == Reach::Guarded && B.State == Reach::Guarded)
    return of(Reach::Guarded);
  return of(Reach::Unknown);
}

ValueRange ValueRange::reduce(const ValueRange &X) {
  // A sum of magnitudes (squares, abs) is a norm: 0 at 0. A sum of values
  // nothing is known about says nothing.
  ValueRange R = X;
  if (R.State == Reach::Guarded)
    return R;
  if (R.State == Reach::Reaches || R.NonNegative)
    R.State = Reach::Reaches;
  R.Softmax = false;
  R.ReachesOne = false;
  return R;
}

ValueRange ValueRange::product(const ValueRange &A, const ValueRange &B) {
  if (A.State == Reach::Guarded && B.State == Reach::Guarded)
    return of(Reach::Guarded);
  // A zero row of squared magnitudes (a silent frame) or of relu outputs
  // gives an exact 0, whatever it is multiplied with; a softmax row never is
  // all 0 (it sums to 1).
  auto ZeroRow = [](const ValueRange &R) {
    return R.Magnitude || (reachesFromAbove(R) && !R.Softmax);
  };
  if (ZeroRow(A) || ZeroRow(B)) {
    ValueRange P = of(Reach::Reaches, A.NonNegative && B.NonNegative);
    P.Detached = A.Detached && B.Detached;
    P.Through = A.Through ? A.Through : B.Through;
    return P;
  }
  return of(Reach::Unknown);
}

ValueRange ValueRange::relu(const ValueRange &X) {
  if (X.State == Reach::Guarded)
    return X;
  ValueRange R = of(Reach::Reaches, /*NonNegative=*/true);
  R.Detached = X.Detached;
  return R;
}

ValueRange ValueRange::oneMinus(const ValueRange &X) {
  if (!X.ReachesOne)
    return of(Reach::Unknown);
  ValueRange R = of(Reach::Reaches, /*NonNegative=*/true);
  R.Detached = X.Detached;
  R.Through = X.Through;
  return R;
}

ValueRange ValueRange::root(const ValueRange &X) {
  ValueRange R = X;
  R.Softmax = false;
  R.ReachesOne = false;
  R.NonNegative = true;
  return R;
}

bool clampBoundReachesOne(double Bound) {
  return std::abs(Bound) >= 1 ||
         static_cast<float>(std::abs(Bound)) >= 1.0f;
}

} // namespace clang::tidy::torch
