//===--- LoopEscape.h - does a tensor outlive its loop iteration? -*- C++ -*-===//
//
// tensorStaysInIteration(Value, Loop): true if no tensor computed from
// \p Value (an expression in the body of \p Loop) outlives the iteration or
// leaves the code the function shows, so nothing can ever backpropagate
// through it: the evidence, independent of names, that a loop's forward
// records an autograd graph for nothing (torch-eval-loop-without-no-grad).
//
// The tensors computed from the value are followed through the loop body,
// flow-insensitively: a variable declared in the loop body whose initialiser
// or assigned value mentions one is computed from it (a tensor, a container
// or an aggregate of tensors alike); a host value read out of one (`.item()`,
// an `int` or `double` result, a comparison's bool) is not followed; an
// in-place write of one into a tensor of the loop body makes that tensor
// one too. The
// value escapes when a tensor computed from it is
//   * assigned to, inserted into (push_back, emplace_back, insert, ...), or
//     written in place into (`acc.mul_(gate)`, `preds.index_put_({i}, p)`:
//     a method whose name ends in `_`) anything not declared in the loop body (a variable of the function, a
//     member, a reference parameter, a global);
//   * returned;
//   * handed to a function that is not LibTorch's own (a function or lambda
//     of the user's code, an unresolved call); LibTorch's operations and
//     module forwards only compute new tensors, followed as part of the
//     expression they are in;
//   * captured by a lambda written in the loop;
//   * given to backward() or torch::autograd::grad().
// Anything the analysis cannot read counts as an escape.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_LOOPESCAPE_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_LOOPESCAPE_H

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

namespace clang::tidy::torch {

bool tensorStaysInIteration(const Expr &Value, const Stmt &Loop);

} // namespace clang::tidy::torch

#endif
