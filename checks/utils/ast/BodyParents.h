//===--- BodyParents.h - parents, scopes and loops in function bodies -*- C++
//-*-===//
//
// Walking up from a statement to its function, one body at a time: the
// statement's parents, the loops around it, the local variables visible at it.
// Generic clang machinery, no LibTorch knowledge.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_AST_BODYPARENTS_H
#define TORCH_TIDY_CHECKS_UTILS_AST_BODYPARENTS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>

namespace clang::tidy::torch {

/// Collects the local variables and parameters of the function enclosing \p S
/// that are visible at \p S (declared before it in an enclosing block, in an
/// enclosing for/if/while header, or as a parameter) and satisfy \p Pred.
/// The result is innermost first (within a block, the latest declaration
/// first). A lambda's body sees its own parameters, and, only when
/// \p CrossLambdas is set, the enclosing function's variables too.
llvm::SmallVector<const VarDecl *, 4>
visibleLocalVariables(const Stmt &S, ASTContext &Ctx,
                      llvm::function_ref<bool(const VarDecl &)> Pred,
                      bool CrossLambdas = false);

/// The parents of statements inside function bodies, one body at a time, each
/// built on first use and kept until clear().
///
/// ASTContext::getParents maps the whole translation unit the first time
/// anything asks, LibTorch's headers included: about 2 s for a file that
/// includes <torch/torch.h>, paid even when the walk is three statements long.
/// Checks that only ever walk up from a statement to its function use this
/// instead. A check owns one and clears it at the end of each translation
/// unit (function pointers are only unique within one AST).
///
/// A lambda's body is walked inside the function that contains the lambda; a
/// generic lambda's instantiated body (which that function does not contain)
/// continues at the lambda expression in the enclosing function.
class BodyParents {
public:
  BodyParents();
  ~BodyParents();
  BodyParents(const BodyParents &) = delete;
  BodyParents &operator=(const BodyParents &) = delete;

  /// One level of a walk up from a statement.
  struct Step {
    /// The statement that contains Child: a LambdaExpr when the walk leaves
    /// a lambda's body; null when Child is the body of Function.
    const Stmt *Parent;
    const Stmt *Child;
    /// The function whose body is being walked (never a lambda's call
    /// operator when Parent is null, unless its lambda expression could not
    /// be found).
    const FunctionDecl *Function;
  };

  /// Calls \p Visit on each level from \p S, which is in the body of \p Fn,
  /// up to the body of the first function that is not a lambda; a step whose
  /// Parent is a LambdaExpr is the last one unless \p CrossLambdas is set.
  /// Stops early when \p Visit returns false. Returns the function reached.
  const FunctionDecl *walkUp(const Stmt &S, const FunctionDecl &Fn,
                             bool CrossLambdas,
                             llvm::function_ref<bool(const Step &)> Visit);

  /// The statement that directly contains \p S in the body of \p Fn; null
  /// for the body itself and for statements that are not in it.
  const Stmt *parentOf(const Stmt &S, const FunctionDecl &Fn);

  /// True if \p S is part of \p Fn's own code: in its body and not inside a
  /// lambda's body there (which is the lambda's call operator's own code).
  bool isOwnCode(const Stmt &S, const FunctionDecl &Fn);

  /// Forgets every body (at the end of a translation unit).
  void clear();

private:
  struct Body;
  Body &bodyOf(const FunctionDecl &Fn);
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<Body>> Bodies;
};

/// visibleLocalVariables for a statement in the body of \p Fn, walking with
/// \p Parents instead of the translation unit's parent map.
llvm::SmallVector<const VarDecl *, 4> visibleLocalVariables(
    const Stmt &S, const FunctionDecl &Fn, BodyParents &Parents,
    llvm::function_ref<bool(const VarDecl &)> Pred, bool CrossLambdas = false);

/// The loops whose body (or condition, or increment) contains \p S, in the
/// body of \p Fn, innermost first. The walk stops at the function that
/// contains \p S; a lambda's body is a function of its own unless
/// \p CrossLambdas is set.
llvm::SmallVector<const Stmt *, 4> enclosingLoops(const Stmt &S,
                                                  const FunctionDecl &Fn,
                                                  BodyParents &Parents,
                                                  bool CrossLambdas = false);

/// True if every iteration of \p Loop empties the container \p Container
/// names (a local variable, or a member of `this`): `buf.clear()` is a
/// statement of the loop body itself, under no branch, and no `continue` of
/// this loop comes before it. What one iteration puts into the container is
/// gone before the next iteration ends, so values do not pile up across
/// iterations (at most one iteration's stay after the loop).
bool clearedEachIteration(const Expr &Container, const Stmt &Loop);

/// The innermost lambda whose body holds \p S (in the body of \p Fn), or
/// null when \p S is \p Fn's own code.
const LambdaExpr *enclosingLambda(const Stmt &S, const FunctionDecl &Fn,
                                  BodyParents &Parents);

/// The first function around \p S (in the body of \p Fn) that is not a
/// lambda.
const FunctionDecl *outermostFunction(const Stmt &S, const FunctionDecl &Fn,
                                      BodyParents &Parents);

} // namespace clang::tidy::torch

#endif
