//===--- ASTUtils.h - generic helpers over clang's AST ---------*- C++ -*-===//
//
// Small questions about clang's AST that have nothing to do with LibTorch:
// where a statement begins, what an expression is once the compiler's
// implicit nodes are stripped, which variable it names, whether a declaration
// is part of a template instantiation. Domain knowledge lives in
// utils/libtorch/, analyses in utils/analysis/.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_AST_ASTUTILS_H
#define TORCH_TIDY_CHECKS_UTILS_AST_ASTUTILS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace clang::tidy::torch {

// --- Locations
// ----------------------------------------------------------------

/// Where \p S begins (ends) as written. Asks through Stmt, which dispatches to
/// the node's own class: from LLVM 21 on, CallExpr::getBeginLoc() called on an
/// overloaded-operator call (`model(x)`, `a + b`) through a CallExpr pointer
/// returns the callee's location (the operator), and CallExpr::getEndLoc() the
/// location of the closing parenthesis only. Use these for every statement or
/// expression whose static type may be CallExpr.
inline SourceLocation beginLoc(const Stmt &S) { return S.getBeginLoc(); }
inline SourceLocation endLoc(const Stmt &S) { return S.getEndLoc(); }

// --- Implicit nodes
// -------------------------------------------------------------
//
// Three strengths, for three questions. Each strips what the one before it
// strips, and more.

/// What the user wrote: strips parentheses, implicit casts and conversions,
/// temporaries, elidable copies and moves, and functional casts to a class
/// (`c10::Scalar(1e-8)` is `1e-8`). For reading values (constants, names).
const Expr *stripImplicit(const Expr *E);

/// True if \p A and \p B are the same variable, or (neither naming a
/// variable) the same expression written twice: structurally identical,
/// through implicit nodes.
bool sameExpression(const Expr *A, const Expr *B, const ASTContext &Ctx);

/// An argument as written: implicit casts, temporaries, parentheses, and a
/// converting construction with one written argument (an optional built from
/// a bool, a vector from a braced list). For reading a call's flags.
const Expr *stripArgumentConversions(const Expr *E);

/// \p E if it is \p Target through the implicit nodes that store a value in
/// a variable (copies, temporaries, cleanups, implicit casts).
bool isStoredValue(const Expr *E, const Expr &Target);

// --- Names
// ---------------------------------------------------------------------

/// The variable or field an expression names: `acc`, `this->acc`, `obj.acc`
/// (through parentheses and implicit casts); null otherwise.
const ValueDecl *namedEntity(const Expr &E);

/// The identifier of \p Name, or "" for operators, constructors, ...
StringRef identifierOf(DeclarationName Name);

/// The name a still-dependent callee will be looked up by (`f` in `f(x)` or
/// `obj.f(x)` inside a template), if any.
StringRef dependentCalleeName(const CallExpr &Call);

/// The object a member call is made on (`x` in `x.f()`, `x->f()`, `x(...)`),
/// through parentheses and implicit casts, also for a dependent member call;
/// null for other calls.
const Expr *callObject(const CallExpr &Call);

/// The argument at \p Index as written, or null when it is absent or a
/// default argument.
const Expr *writtenArg(const CallExpr &Call, unsigned Index);

// --- Statements and declarations
// -------------------------------------------------

/// True for for, range-based for, while and do loops.
bool isLoopStmt(const Stmt &S);

/// Calls \p Fn on every statement under \p S (\p S included), lambda bodies
/// included.
void forEachStmt(const Stmt *S, llvm::function_ref<void(const Stmt &)> Fn);

/// Calls \p Fn on each expression whose value \p Parent discards: an
/// expression statement of a block, a label or a case; the body of an if, a
/// loop or a switch when it is an expression; a for loop's increment; the left
/// operand of a comma. The operands of a discarded comma are visited too.
void forEachDiscardedValue(const Stmt &Parent,
                           llvm::function_ref<void(const Expr &)> Fn);

/// True if \p D is, or is inside, an instantiation of a function or class
/// template. Walks declaration contexts only (no parent map), so it is cheap
/// enough to ask of every function of a translation unit.
bool isInTemplateInstantiation(const Decl &D);

/// A standard container's insertion: push_back, emplace_back, insert, ...
/// on a class of the standard library or of a system header (a class of the
/// user's own with such a member does what its body says).
bool isContainerInsertion(const CXXMemberCallExpr &Call);

/// The variable whose storage a store through \p LHS writes into: `v` in
/// `v[i]`, `v[i][j]`, `*v`, `v.at(i)`, and a field of it: `s.value`,
/// `steps[t].value`, `p->value` (not `this->value`).
const VarDecl *storedVariableOf(const Expr *LHS);

/// The container an iterator-making call starts at: `v.begin()`, `v.cbegin()`,
/// `v.rbegin()`, `v.crbegin()`, `std::begin(v)` (and those spellings), and
/// with \p Inserters also `std::back_inserter(v)` / `std::front_inserter(v)`.
/// Null for anything else.
const Expr *iteratorBase(const Expr *E, bool Inserters);

/// A call of the standard library's function \p Name (`std::get`, `std::tie`).
bool isStdCall(const CallExpr &Call, StringRef Name);

/// An element of a tuple-like value, as the code reads it.
struct TupleElement {
  const Expr *Tuple = nullptr; ///< The whole value: `torch::var_mean(x)`.
  unsigned Index = 0;
};

/// \p E read as an element of a tuple: a structured binding
/// (`auto [var, mean] = torch::var_mean(x);` makes `var` element 0 of the
/// initialiser) or `std::get<I>(tuple)`. Not for std::get by type.
std::optional<TupleElement> tupleElementOf(const Expr *E);

} // namespace clang::tidy::torch

#endif
