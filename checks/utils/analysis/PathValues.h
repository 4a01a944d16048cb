//===--- PathValues.h - what a field or element of a local may hold -*- C++ -*-===//
//
// The values a sub-object of a local variable may hold, for the analyses
// that follow a tensor back to where it was made (device placement, the
// boundary analysis of torch-missing-epsilon): a tensor kept in a struct's
// field, a pair or tuple element, an element of a vector, deque, array or map
// (at any depth) is followed like a local tensor variable.
//
// The location is the access path of the expression (AccessPath.h) with a
// local, non-parameter root and at least one step. Its values, collected over
// the whole function (flow-insensitively, lambda bodies included, as the
// device analysis follows variables):
//
//   * the part of the root's initialiser the steps select: an aggregate's
//     braced list, std::pair / std::tuple constructor arguments,
//     std::make_pair / std::make_tuple, a container's braced list (every
//     element; a map entry's value);
//   * the right-hand side of every assignment through a path that may denote
//     the location (a weak element step may be any element), and the
//     selected part of an assignment to an enclosing object;
//   * for a compound assignment through the path itself (`v[0] /= s`), the
//     whole assignment expression (read as `v[0] / s`, like a variable's);
//   * the argument of push_back / emplace_back / push_front / emplace_front /
//     insert / emplace into an enclosing container;
//   * when the caller asks for them, the calls that fill the location through
//     a reference: `torch::load(box.f, path)` (the call itself is the value;
//     without the request such a call makes the location unknown, as any
//     call taking it by non-const reference).
//
// Unknown (no values claimed) when anything else may change the location:
// the root or a part of it handed to a call by non-const reference or
// pointer, its address taken, a non-const reference bound to it by a
// structured binding or a range-for, a non-const method of an enclosing
// object that is neither an element access nor an insertion, an in-place
// tensor operation on it, a compound assignment to an enclosing object or a
// part of it, or an initialiser or
// assigned value that the steps cannot be read out of.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_PATHVALUES_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_PATHVALUES_H

#include "utils/analysis/AccessPath.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace clang::tidy::torch {

struct PathValues {
  /// The location's path (a local root with at least one step).
  AccessPath Path;
  /// Every value it may hold (as written: the analyses strip conversions).
  llvm::SmallVector<const Expr *, 2> Values;
};

/// The values the field or element \p E denotes may hold; nullopt when \p E
/// is not such a location of a local variable, or when something the
/// analysis cannot follow may change it (see above). An empty Values list
/// means nothing was ever stored (a default-constructed element).
/// With \p WithFills, a torch::load call that fills the location is one of
/// its values (the CallExpr); without it, such a call makes it unknown.
std::optional<PathValues> valuesOfPath(const Expr &E, bool WithFills = false);

/// The same for a location given by its path.
std::optional<PathValues> valuesOfLocation(const AccessPath &Path,
                                           bool WithFills = false);

/// The values any element of the local container \p Container may hold
/// (the path `Container[]`): what a range-for over it, or an operation
/// taking it whole (`torch::stack(tensors)`), reads.
std::optional<PathValues> valuesOfElements(const VarDecl &Container,
                                           bool WithFills = false);

} // namespace clang::tidy::torch

#endif
