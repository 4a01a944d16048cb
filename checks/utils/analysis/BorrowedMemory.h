//===--- BorrowedMemory.h - tensors over memory a function owns -*- C++ -*-===//
//
// A memory-wrapping call (torch::from_blob) neither copies nor owns the
// memory it is given: the tensor is valid only while that memory lives. This
// analysis answers, for one function, which memory a wrapping call was given
// and whether the function itself ends that memory's lifetime (a local
// std::vector, std::array, std::string, array or scalar, a local cv::Mat that
// owns its pixels, a by-value container parameter, a temporary), and where a
// tensor value that may still share that memory escapes its lifetime:
//
//  * Returned: the value (or an object or lambda holding it) is returned;
//  * StoredOutside: it is stored where the function's locals cannot follow it:
//    a member, a global or static variable, a reference or pointer parameter's
//    target, a container that is not a local of the function;
//  * ReadAfterEnd: a local variable (a tensor, a container, a lambda) that
//    holds it is read after the memory's lifetime ended (an outer variable
//    filled inside a loop body, a tensor over a temporary).
//
// Which values may share the memory: the wrapping call's result, and what
// LibTorch's operations make of it as the operation table says: in-place
// operations return their operand, views share it (op::SharesStorage),
// conversions share it unless they change the dtype or the device or are
// asked to copy (op::Converts), contiguous()/reshape() share it unless the
// operand is a strided view (op::CopiesIfStrided, op::StridedView). Every
// other operation, arithmetic and unknown call makes a new tensor: unknown
// stays silent.
//
// Abstraction: one forward may-dataflow on clang's CFG over the function's
// own locals (a lambda's body is a function of its own). The state maps each
// local to the wrapping calls whose memory its value may share, and holds the
// wrapping calls whose memory has ended on some path (a lifetime end of the
// owner in the CFG; the end of the full expression for a temporary). Joins are
// unions; the number of rounds is bounded by the loop depth, capped.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_BORROWEDMEMORY_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_BORROWEDMEMORY_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include <optional>
#include <vector>

namespace clang::tidy::torch {

/// Memory whose lifetime a function decides.
struct ShortLivedMemory {
  /// The local variable or by-value parameter that owns the memory; null for a
  /// temporary (the memory ends with the full expression).
  const VarDecl *Owner = nullptr;
  /// Heap memory the function allocates into Owner (a local pointer) and
  /// releases itself (`delete[]`, `free`): it ends at the release only, not
  /// with the pointer's scope or the function.
  bool Released = false;
};

/// What \p Pointer points into, if that memory lives no longer than a call of
/// \p Fn: `v.data()`, `&v[0]`, `v.data() + k` of a local std::vector,
/// std::array or std::string (or a by-value parameter of one), a local array,
/// `&x` of a local scalar, `p.get()` of a local std::unique_ptr, `m.data` /
/// `m.ptr<T>()` of a local cv::Mat that owns its pixels (not a shallow copy of
/// another Mat or a region of one), a temporary of any of these, or a local
/// pointer initialised with one. Members, statics, globals, reference
/// parameters and heap memory are not short-lived: nullopt.
std::optional<ShortLivedMemory> shortLivedMemoryOf(const Expr *Pointer,
                                                   const FunctionDecl &Fn);

/// How a tensor leaves the lifetime of the memory it wraps.
enum class MemoryEscapeKind { Returned, StoredOutside, ReadAfterEnd };

struct MemoryEscape {
  /// The memory-wrapping call (torch::from_blob).
  const CallExpr *Wrap = nullptr;
  ShortLivedMemory Memory;
  MemoryEscapeKind Kind = MemoryEscapeKind::Returned;
  /// Returned: the returned expression; StoredOutside: the assignment,
  /// insertion or declaration; ReadAfterEnd: the read of the holder.
  const Stmt *At = nullptr;
  /// StoredOutside: where it is stored (null when not a named entity);
  /// ReadAfterEnd: the local that holds the tensor.
  const ValueDecl *Target = nullptr;
  /// The escaping value may share the memory of this wrapping call only.
  bool OnlyWrap = true;
  /// Wrap is a call of a helper of the user's that wraps the memory of its
  /// argument (argumentWraps): the helper and its wrapping call.
  const FunctionDecl *Helper = nullptr;
  const CallExpr *Inner = nullptr;
};

/// What a function does with the memory its callers hand it (its transfer
/// function, applied at each call): the tensor a wrapping call makes over the
/// memory of the reference or pointer parameter FromParam (`const
/// std::vector<float> &v` with `v.data()`, `const cv::Mat &m` with `m.data`,
/// `float *p`) is returned (Into = -1) or stored into the non-const
/// reference parameter Into (an out-parameter). At a call, the argument's
/// memory is what the tensor wraps, as if the call were the wrapping call.
struct ArgumentWrap {
  unsigned FromParam = 0;
  int Into = -1;
  /// The wrapping call in the function (or in a helper it calls).
  const CallExpr *Wrap = nullptr;
};
std::vector<ArgumentWrap> argumentWraps(const FunctionDecl &Fn,
                                        ASTContext &Ctx);

/// Every escape in \p Fn's own body (nested lambdas are functions of their
/// own), in source order of the escape. A call of a function of the user's
/// that wraps its argument's memory (argumentWraps) counts as a wrapping call
/// over that argument's memory.
std::vector<MemoryEscape> findMemoryEscapes(const FunctionDecl &Fn,
                                            ASTContext &Ctx);

} // namespace clang::tidy::torch

#endif
