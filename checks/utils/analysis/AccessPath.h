//===--- AccessPath.h - which object an expression denotes -----*- C++ -*-===//
//
// An access path names a storage location the way the code reaches it: a
// root (a variable, or the analysed method's object `this`) and a sequence of
// steps into it:
//
//   * a field (`s.f`, `p.first`, `this->h_`): one location per instance, so
//     `a.first` and `b.first` are different locations (a FieldDecl alone is
//     shared by every pair);
//   * a tuple element (`std::get<1>(t)`, structured bindings are variables of
//     their own);
//   * a container element (`v[i]`, `v.at(i)`, `v.front()`, `m["k"]`,
//     `m.at("k")`, `*it`) of std::vector / deque / array / map /
//     unordered_map (and a built-in array): one *weak* step, "some element",
//     which remembers the index or key when it is a literal.
//
// Through parentheses, implicit casts and local references that alias (`auto
// &r = s.f;` initialised from an access path and never rebound: a C++
// reference cannot be), so `r` and `s.f` have the same path.
//
// Two paths may alias when they have the same root and, step by step as far
// as the shorter goes, compatible steps: the same field or tuple element;
// element steps with different literal indices/keys are distinct, any other
// pair of element steps may be the same element. A path is a prefix of the
// other when it denotes an enclosing object (`s` encloses `s.f`).
//
// A write through a *strong* path (no element step) replaces the location's
// value: facts about it are killed. A write through a weak path may hit any
// element: it must join with what the location held (weak update).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_ACCESSPATH_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_ACCESSPATH_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace clang::tidy::torch {

struct AccessStep {
  enum Kind : unsigned char {
    Field,        ///< A field of a struct or class (std::pair first/second).
    TupleElement, ///< std::get<Index>(tuple).
    Element       ///< Some element of a container (weak).
  };
  Kind K = Field;
  const FieldDecl *Member = nullptr; ///< Field: the field (canonical).
  unsigned Index = 0;                ///< TupleElement: its index.
  /// Element: the literal index or key (`v[0]`, `m.at("loss")`), if written.
  std::optional<std::string> Key;

  bool operator==(const AccessStep &O) const {
    return K == O.K && Member == O.Member && Index == O.Index && Key == O.Key;
  }
  bool operator!=(const AccessStep &O) const { return !(*this == O); }
};

struct AccessPath {
  /// The root variable; null when the root is the analysed method's object.
  const VarDecl *Root = nullptr;
  bool RootIsThis = false;
  llvm::SmallVector<AccessStep, 2> Steps;

  /// No element step: the path denotes one location.
  bool isStrong() const;
  /// Every element step names its element by a literal index or key
  /// (`v[0]`, `m.at("loss")`); a strong path is keyed too.
  bool isKeyed() const;
  /// The root itself (no step).
  bool isRoot() const { return Steps.empty(); }
  /// A printable key, unique per path within a function: `v`, `b.first`,
  /// `t.<1>`, `v[]`, `v["k"]`, `this.h_`.
  std::string key() const;
  /// The path of the steps after the root only (`.first`, `[0][]`).
  std::string stepsKey() const;

  bool operator==(const AccessPath &O) const {
    return Root == O.Root && RootIsThis == O.RootIsThis && Steps == O.Steps;
  }
  bool operator!=(const AccessPath &O) const { return !(*this == O); }
};

/// The methods of a standard container that return one of its elements:
/// `at`, `front`, `back` (operator[] is the other element access).
bool isElementAccessName(llvm::StringRef Name);

/// The access path \p E denotes, or none (a temporary, a call result, a
/// pointer dereference other than an iterator's, ...).
std::optional<AccessPath> accessPathOf(const Expr &E);

/// Two steps may denote the same sub-object.
bool mayAliasStep(const AccessStep &A, const AccessStep &B);

/// \p A and \p B may denote overlapping storage: the same root and
/// compatible steps as far as the shorter path goes (one may enclose the
/// other).
bool mayAlias(const AccessPath &A, const AccessPath &B);

/// \p A and \p B certainly denote the same location: equal and strong, or
/// equal with every element step keyed by the same literal.
bool mustAlias(const AccessPath &A, const AccessPath &B);

/// A write through \p Written kills what was known of \p Known (a strong
/// update): \p Written is strong and encloses (or is) \p Known.
bool killsFactsOf(const AccessPath &Written, const AccessPath &Known);

/// True if every element access of the local container \p Container in
/// \p Fn names its element by a literal index or key (`v[0]`,
/// `m.at("loss")`, `front()`), and nothing else may change it: no non-const
/// method but at/front/back/operator[]/operator=, no non-const reference or
/// range-for binding, its address not taken, not handed to a call that may
/// write it. Each keyed element is then a location of its own (a strong
/// path, like a field).
bool accessedByLiteralKeysOnly(const VarDecl &Container, const FunctionDecl &Fn);

} // namespace clang::tidy::torch

#endif
