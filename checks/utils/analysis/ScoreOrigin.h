//===--- ScoreOrigin.h - what kind of scores a tensor holds ----*- C++ -*-===//
//
// What a tensor a loss is given visibly is, from how it was made: the output
// of softmax (probabilities), of log_softmax (log-probabilities), of a layer
// that computes raw scores (torch::nn::Linear, a convolution, Bilinear: any
// real value), of sigmoid (in [0, 1]), or a value of either sign (tanh, a
// difference of tensors, a draw from a normal distribution).
//
// The expression is followed through
//   * local variables, to the definition that reaches the use
//     (BoundaryAnalysis::definitionAt);
//   * operations that keep their operand's values (views, dtype conversions,
//     `.to(device)`; not detach);
//   * a field or element of a struct or tuple built and returned by a call of
//     the user's code (`out.probs`, `std::get<1>(model(x))`);
//   * a call of the user's code, and a user module's forward: what every
//     returned value is, when they agree;
//   * LibTorch's layer modules (Linear, Softmax, LogSoftmax, Sigmoid, Tanh)
//     and a torch::nn::Sequential whose last layer is visible (declared with
//     its layers, appended unconditionally, or built by a factory of the
//     translation unit whose returns agree).
// Anything else is Unknown: a parameter, a member, an operation whose output
// range the table does not give.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_SCOREORIGIN_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_SCOREORIGIN_H

#include "utils/analysis/BoundaryGuard.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::torch {

/// What kind of scores a tensor holds.
enum class Scores {
  Unknown,
  /// softmax output: in [0, 1], summing to 1.
  Probabilities,
  /// log_softmax output.
  LogProbabilities,
  /// Raw scores of a layer (Linear, a convolution): any real value.
  Logits,
  /// In [0, 1] without summing to 1: sigmoid.
  UnitInterval,
  /// Of either sign, bounded or not: tanh, a difference, randn.
  Signed,
};

struct ScoreOrigin {
  Scores Kind = Scores::Unknown;
  /// The softmax, log_softmax, sigmoid, layer, difference or forward call
  /// that made it.
  const Expr *Producer = nullptr;
  /// The producer is the expression as written (no variable, no view, no
  /// module forward in between): a fix-it can rewrite it in place.
  bool Inline = true;
};

/// What \p E is (see the file comment); \p Locals answers which definition
/// of a local variable reaches a use.
ScoreOrigin scoreOriginOf(const Expr *E, BoundaryAnalysis &Locals);

/// The definition of the forward a call of a user module runs
/// (`criterion(pred, label)` on a holder, `criterion->forward(...)`); null for
/// LibTorch's own modules and forwards without a body.
const FunctionDecl *userForwardOf(const CallExpr &Forward);

} // namespace clang::tidy::torch

#endif
