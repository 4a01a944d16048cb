//===--- GradMode.h - is gradient recording off at a point? ----*- C++ -*-===//
//
// The one grad-mode analysis every check and the autograd dataflow use: at a
// statement, is gradient recording (or may it be) off because a guard
// (torch::NoGradGuard, c10::InferenceMode, at::AutoGradMode(false)) is alive
// in an enclosing scope of the same function? Lambdas see the guards of the
// function that contains them: a lambda defined and called under a guard runs
// under it, which is how evaluation helpers are written.
//
// The innermost guard visible at the statement decides (AutoGradMode(true)
// turns recording back on); a guard whose argument is not a constant counts
// as off, so that the checks stay silent.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_GRADMODE_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_GRADMODE_H

#include "utils/ast/BodyParents.h"
#include "llvm/ADT/DenseMap.h"

namespace clang::tidy::torch {

class GradModeAnalysis {
public:
  explicit GradModeAnalysis(BodyParents &Parents) : Parents(Parents) {}

  /// True if gradient recording is (or may be) off at \p S, in the body of
  /// \p Fn.
  bool isOffAt(const Stmt &S, const FunctionDecl &Fn);

  /// True if the definition of \p Fn records nothing: it declares a guard,
  /// and every tensor it computes (every call with a tensor result in its
  /// body, lambdas included) is computed with recording off (`torch::Tensor
  /// forward(x) { torch::NoGradGuard g; return head(x).multinomial(1); }`,
  /// a sampler). Its callers' loops build no graph through it.
  bool recordsNothing(const FunctionDecl &Fn);

  /// Forgets every function (at the end of a translation unit).
  void clear() { DeclaresGuard.clear(); }

private:
  /// True if \p Fn, a lambda in its body, or a declaration in its body is a
  /// grad-mode guard; computed once per function, so that the many functions
  /// that declare none answer every query at once.
  bool declaresGuard(const FunctionDecl &Fn);

  BodyParents &Parents;
  llvm::DenseMap<const FunctionDecl *, bool> DeclaresGuard;
};

} // namespace clang::tidy::torch

#endif
