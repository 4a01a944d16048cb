//===--- BackwardTwiceWithoutRetainGraphCheck.h ---------------------------===//

#ifndef TORCH_TIDY_CHECKS_BACKWARDTWICEWITHOUTRETAINGRAPHCHECK_H
#define TORCH_TIDY_CHECKS_BACKWARDTWICEWITHOUTRETAINGRAPHCHECK_H

#include "AutogradGraphCheck.h"

namespace clang::tidy::torch {

/// Finds a second backward pass (Tensor::backward, torch::autograd::backward,
/// torch::autograd::grad) through a graph whose buffers an earlier pass
/// without retain_graph=true freed: the same tensor backpropagated twice, a
/// pass in a loop on a tensor computed before the loop, or two losses that
/// share a non-leaf intermediate. At run time the second pass throws "Trying
/// to backward through the graph a second time".
class BackwardTwiceWithoutRetainGraphCheck : public AutogradGraphCheck {
public:
  using AutogradGraphCheck::AutogradGraphCheck;

protected:
  ast_matchers::StatementMatcher functionFilter() const override;
  void
  checkFunction(const AutogradFlow &Flow,
                const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// A closure handed to an optimizer's step() (LBFGS evaluates it several
  /// times per step; any optimizer once per iteration of a loop around the
  /// step) that backpropagates a tensor computed outside it.
  void checkClosure(const LambdaExpr &Closure, ASTContext &Ctx);
};

} // namespace clang::tidy::torch

#endif
