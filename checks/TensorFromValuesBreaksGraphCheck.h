//===--- TensorFromValuesBreaksGraphCheck.h -------------------------------===//

#ifndef TORCH_TIDY_CHECKS_TENSORFROMVALUESBREAKSGRAPHCHECK_H
#define TORCH_TIDY_CHECKS_TENSORFROMVALUESBREAKSGRAPHCHECK_H

#include "AutogradGraphCheck.h"

namespace clang::tidy::torch {

/// Finds tensors built with torch::tensor or torch::from_blob from values
/// read out of tensors with autograd history (item, data_ptr, accessors) and
/// then used where gradient must flow: returned from a module's forward(),
/// passed as a loss's prediction, or backpropagated. The new tensor has no
/// grad_fn, so backward() throws or the parameters silently get no gradient.
class TensorFromValuesBreaksGraphCheck : public AutogradGraphCheck {
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
