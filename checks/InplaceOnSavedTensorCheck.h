//===--- InplaceOnSavedTensorCheck.h --------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_INPLACEONSAVEDTENSORCHECK_H
#define TORCH_TIDY_CHECKS_INPLACEONSAVEDTENSORCHECK_H

#include "AutogradGraphCheck.h"

namespace clang::tidy::torch {

/// Finds in-place writes (`y.mul_(2)`, `y += 1`, `y[0] = 0`, `y.relu_()`,
/// ...) into a tensor that an earlier differentiable operation saved for its
/// backward (the result of sigmoid, tanh, exp, relu, softmax, ...; an operand
/// of mul, div, mm, matmul, log, ...), before a backward pass that needs it.
/// The write bumps the tensor's version counter and that backward throws
/// "one of the variables needed for gradient computation has been modified by
/// an inplace operation".
class InplaceOnSavedTensorCheck : public AutogradGraphCheck {
public:
  using AutogradGraphCheck::AutogradGraphCheck;

protected:
  ast_matchers::StatementMatcher functionFilter() const override;
  void
  checkFunction(const AutogradFlow &Flow,
                const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch

#endif
