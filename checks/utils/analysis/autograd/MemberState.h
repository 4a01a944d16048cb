//===--- MemberState.h - tensors an object keeps between calls -*- C++ -*-===//
//
// Private to AutogradFlow (checks/utils/analysis/autograd/). A module (or
// any class of the user's) may keep a tensor in a member from one call of a
// method into the next: a recurrent state (`h_ = cell(x, h_)` in forward()),
// an LSTM's (h, c) pair, a running buffer. When the method computes the
// member from its own previous value with autograd history, every call
// extends one graph; once a backward pass freed it, the next pass through
// the method's result fails. The caller's dataflow (Calls.cpp) treats the
// object as a variable that holds this state.
//
// Per method, from its body, in source order: for each tensor member, the
// members of the object its value at the exit may be computed from (a write
// replaces the member's dependencies, one under a condition or in a loop adds
// to them; detach(), item() and fresh tensors depend on nothing; a write
// under a no-grad guard records no history), whether that value has history
// the method created (a module's forward or a loss on the path), and what
// the method's result is computed from.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_AUTOGRAD_MEMBERSTATE_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_AUTOGRAD_MEMBERSTATE_H

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch::autograd {

/// A member a method carries from one call into the next.
struct CarriedMember {
  const FieldDecl *Field = nullptr;
  /// The write that computes it from its previous value, and the method
  /// whose body holds it.
  const Expr *Write = nullptr;
  const CXXMethodDecl *Method = nullptr;
};

/// A tensor member a method assigns, and what the value it leaves there on
/// the way out is computed from: the method's parameters (the caller's
/// arguments), history the method created, the member's own value at the
/// entry (a running average `v_ = m * v_ + (1 - m) * x`, or a write on some
/// paths only).
struct FieldWrite {
  const FieldDecl *Field = nullptr;
  /// Bit i: the method's parameter at index i (below 32).
  unsigned Params = 0;
  bool History = false;
  bool KeepsOld = false;
  /// The last write in source order.
  const Expr *Write = nullptr;
};

struct MemberStateSummary {
  /// Members whose value at the exit may be computed, with history the
  /// method created, from their own value at the entry, and which the
  /// method's result is computed from.
  llvm::SmallVector<CarriedMember, 1> Carried;
  /// Members carried (with history) whose value the result does not use.
  llvm::SmallVector<CarriedMember, 1> CarriedAside;
  /// Members that hold, on every path out of the method, a value that does
  /// not depend on their value at the entry (`h_ = torch::zeros(...)`,
  /// `h_ = h_.detach()`).
  llvm::SmallVector<const FieldDecl *, 2> Replaced;
  /// Backward passes of the method itself through a carried member's value
  /// as the previous call left it (`out = lstm(x, hidden_); hidden_ =
  /// std::get<1>(out); loss(out).backward();` in a train_step()).
  llvm::SmallVector<std::pair<const CallExpr *, CarriedMember>, 1>
      PassesThroughState;
  /// Every tensor member the method assigns (or detaches), in declaration
  /// order: the caller's side follows them for an object it names
  /// (`baseline.update(values)`, then `returns - baseline.value`).
  llvm::SmallVector<FieldWrite, 2> Writes;
};

/// The summary of \p M (its definition in the user's code); null when it
/// has none or nothing to say. Cached per translation unit.
const MemberStateSummary *memberStateOf(const CXXMethodDecl &M);

/// The members some method of \p Class (a class of the user's) carries
/// (MemberStateSummary::Carried): the object's state.
llvm::ArrayRef<const FieldDecl *> stateMembersOf(const CXXRecordDecl &Class);

/// True if every state member of \p Class is replaced by \p M: after the
/// call the object holds no graph of an earlier call.
bool replacesState(const CXXMethodDecl &M);

/// True if a method of \p Class other than \p Except and the constructors
/// replaces \p Field (a reset_state() or detach_hidden() the caller may call
/// between calls).
bool replacedElsewhere(const CXXRecordDecl &Class, const FieldDecl &Field,
                       const CXXMethodDecl &Except);

/// Forgets every summary (at the start and end of a translation unit).
void forgetMemberStates();

} // namespace clang::tidy::torch::autograd

#endif
