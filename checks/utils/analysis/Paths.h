//===--- Paths.h - path questions on a function body's CFG ------*- C++ -*-===//
//
// Questions about the paths through one function body, answered on clang's
// CFG of that body rather than on its syntax: a statement reaches another
// within one iteration of a loop (without coming round it, without leaving
// it), a statement lies on an iteration that also runs another.
//
// An iteration of a loop, here, is a path from the loop's body entry (the
// successor its header takes to run the body) back to its header: through
// the end of the body or a `continue`. A path that leaves the loop (break,
// return, goto out, throw, a call that does not return: clang's CFG ends
// the block of a [[noreturn]] call at the exit) is not an iteration that
// comes round. Statements are the CFG's elements (every expression is one:
// the graph is built with all statements added), so a call, a declaration
// or an assignment can be asked about; the body of a lambda is not part of
// the enclosing function's graph, and a statement not found in it is
// unknown to every query (each query says what it answers then).
//
// Feasibility of paths is not looked at (every branch may go either way),
// nor are exceptions beyond what the CFG models. Generic clang machinery; no
// LibTorch names, no check policy.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_PATHS_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_PATHS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>

namespace clang::tidy::torch {

class BodyPaths {
public:
  /// The graph of \p Fn's body, built on the first query.
  BodyPaths(const FunctionDecl &Fn, ASTContext &Ctx);
  ~BodyPaths();
  BodyPaths(const BodyPaths &) = delete;
  BodyPaths &operator=(const BodyPaths &) = delete;

  /// True if the graph could be built and \p S is in it.
  bool knows(const Stmt &S);

  /// True if some path from \p From to \p To stays within one iteration of
  /// \p Loop (it does not pass the loop's header) and meets no statement for
  /// which \p Stops holds strictly between the two. Unknown statements: no.
  bool reachesInIteration(const Stmt &From, const Stmt &To, const Stmt &Loop,
                          llvm::function_ref<bool(const Stmt &)> Stops = {});

  /// True if some path from \p From to \p To (through loops' back edges
  /// too) meets no statement for which \p Stops holds strictly between the
  /// two: reaching definitions, with \p Stops the variable's other
  /// definitions. Unknown statements: no.
  bool reaches(const Stmt &From, const Stmt &To,
               llvm::function_ref<bool(const Stmt &)> Stops = {});

  /// True if some iteration of \p Loop runs both \p S and \p Anchor, in
  /// either order: a path from the body entry through both back to the
  /// header. False for a statement that only paths leaving the loop, or
  /// only iterations that do not run \p Anchor, pass through (a clearing in
  /// `if (bad) { clear(); continue; }` before the step). Unknown statements:
  /// std::nullopt.
  std::optional<bool> sharesIteration(const Stmt &S, const Stmt &Anchor,
                                      const Stmt &Loop);

  /// True if some iteration of \p Loop runs \p Through and no statement for
  /// which \p Avoid holds: whether an event (a backward pass) can happen on
  /// an iteration without another (a step), however the code spells the
  /// branches (`if (c) step(); else step();` runs a step on every iteration).
  /// Unknown statements: std::nullopt.
  std::optional<bool> iterationRunsWithout(
      const Stmt &Through, const Stmt &Loop,
      llvm::function_ref<bool(const Stmt &)> Avoid);

private:
  struct Position {
    const CFGBlock *Block = nullptr;
    unsigned Index = 0;
  };
  bool build();
  std::optional<Position> positionOf(const Stmt &S);
  /// The block whose terminator is \p Loop.
  const CFGBlock *headerOf(const Stmt &Loop);
  /// Blocks reached from \p Start's successors (or from \p Start itself when
  /// \p Inclusive) without entering \p Header nor any block for which
  /// \p Blocked holds; \p ReachedHeader is set when a path arrives at it.
  llvm::DenseSet<const CFGBlock *> forward(const CFGBlock *Start,
                                           bool Inclusive,
                                           const CFGBlock *Header,
                                           bool *ReachedHeader = nullptr,
                                           llvm::function_ref<bool(const CFGBlock *)>
                                               Blocked = {});
  /// reaches / reachesInIteration: paths that do not pass \p Header (null:
  /// any path).
  bool reachesAvoiding(const Stmt &From, const Stmt &To,
                       const CFGBlock *Header,
                       llvm::function_ref<bool(const Stmt &)> Stops);
  /// Can a path from position \p P reach the header (end the iteration)?
  bool endsIteration(Position P, const CFGBlock *Header);

  const FunctionDecl &Fn;
  ASTContext &Ctx;
  bool Tried = false;
  std::unique_ptr<CFG> Graph;
  llvm::DenseMap<const Stmt *, Position> Where;
};

} // namespace clang::tidy::torch

#endif
