//===--- PureTensorFunction.h - helpers that only compute -----*- C++ -*-===//
//
// Does a function of the translation unit do anything besides computing the
// tensor it returns? A helper such as
//
//   torch::Tensor normalize(const torch::Tensor &x) {
//     auto centred = x - x.mean();
//     return centred / (centred.std() + 1e-6);
//   }
//
// reads its arguments and builds a new tensor out of place: a call of it whose
// result is dropped does nothing, like a dropped `x.clamp(0, 1)`. The answer
// is structural and strict: anything the analysis does not recognise makes
// the function impure (a user function, a write, a loop, a branch).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_PURETENSORFUNCTION_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_PURETENSORFUNCTION_H

#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"

namespace clang::tidy::torch {

/// Decides, once per function, whether a function only computes the tensor
/// it returns.
class PureTensorFunctions {
public:
  /// True if \p Fn is defined in the user's code, returns an at::Tensor by
  /// value, and its body is only declarations of local variables and a final
  /// return, whose expressions are literals, its parameters and locals,
  /// constants, tensor arithmetic, and LibTorch tensor operations the
  /// operation table lists as out of place (OpTable.h: isOutOfPlace) or as
  /// factories. A lambda's call operator counts like a function.
  bool isPure(const FunctionDecl &Fn);

  /// Forgets every answer (at the end of a translation unit).
  void clear() { Cache.clear(); }

private:
  llvm::DenseMap<const FunctionDecl *, bool> Cache;
};

} // namespace clang::tidy::torch

#endif
