//===--- AutogradFlow.h - function-local autograd dataflow ----------------===//
//
// One small dataflow over the tensor variables of a single function, on
// clang's CFG, shared by the checks that must know how autograd graphs are
// built and consumed inside a function:
//
//  * which local tensors carry autograd history (the SPEC's local evidence:
//    module forward, LibTorch loss, arithmetic on such a tensor, backward() on
//    it; .detach()/.item()/.data() and no-grad guards remove it);
//  * which local, non-leaf tensor definitions each value was computed from
//    (its "graph"), so that two losses sharing an intermediate are told apart
//    from two losses that share only leaves and parameters;
//  * where values are read out of tensors with history (item, data_ptr,
//    accessors) into host variables and containers, and where such values come
//    back as a tensor (torch::tensor, torch::from_blob) without history;
//  * which backward passes (Tensor::backward, torch::autograd::backward,
//    torch::autograd::grad) free a graph and whether they retain it;
//  * where a variable is (re)defined: a definition executed again builds a
//    fresh graph, so recomputation between passes and reassignment inside a
//    loop are not second passes.
//
// Abstraction: a definition site (a declaration or assignment of a local
// tensor variable) stands for every value it produces. The state at a program
// point maps each tensor variable to the definitions that may reach it and to
// the definitions (with history) its value may have been computed from, each
// host variable to the value read it may hold, and each definition to the
// pass that may have freed its graph. Joins are unions (may-analysis); the
// fixpoint is computed over the CFG in reverse post-order. Transfer functions
// visit each full expression once, so one round is linear in the function's
// size; the number of rounds is bounded by the loop nesting depth plus one
// (all sets only grow), and a hard cap keeps pathological input cheap.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_AUTOGRADFLOW_H
#define TORCH_TIDY_CHECKS_UTILS_AUTOGRADFLOW_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "utils/UserCodeMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>

namespace clang::tidy::torch {

/// Whether a backward pass keeps the graph's buffers for another pass.
enum class GraphRetention {
  Frees,   ///< retain_graph (or, when it is unset, create_graph) is false.
  Retains, ///< retain_graph=true, or create_graph=true with retain_graph unset.
  Unknown  ///< The argument is not a constant (e.g. a bool variable).
};

/// What a backward pass (Tensor::backward, torch::autograd::backward,
/// torch::autograd::grad) does to its graph, from its written arguments.
GraphRetention graphRetentionOf(const CallExpr &Pass, const ASTContext &Ctx);

/// The argument of \p Pass that holds retain_graph, if it was written in the
/// source (not a default argument); null otherwise.
const Expr *writtenRetainGraphArg(const CallExpr &Pass);

/// The argument of a loss call that holds the prediction (input): the first
/// tensor argument of a loss function or of a loss module's forward.
const Expr *lossPredictionArg(const CallExpr &Loss);

/// True if \p D is, or is inside, an instantiation of a function or class
/// template. Walks declaration contexts only (no parent map), so it is cheap
/// enough to ask of every function of a translation unit.
bool isInTemplateInstantiation(const Decl &D);

class AutogradFlow {
public:
  /// A backward pass through a graph that an earlier pass freed.
  struct SecondPass {
    /// The pass that fails ("Trying to backward through the graph a second
    /// time").
    const CallExpr *Failing = nullptr;
    /// The earlier pass that freed the graph; equal to Failing when the same
    /// call runs again in a loop.
    const CallExpr *First = nullptr;
    /// The local tensor variable whose graph both passes reach: the
    /// backpropagated tensor itself, or the shared intermediate.
    const VarDecl *Shared = nullptr;
    /// Where Shared got the value whose graph both passes reach.
    SourceLocation SharedDefinitionLoc;
    /// The tensors the two passes backpropagate, when each is a plain local
    /// variable (for a suggestion such as `(l1 + l2).backward()`).
    const VarDecl *FirstRoot = nullptr;
    const VarDecl *FailingRoot = nullptr;
  };

  /// Where a tensor without history is used where gradient must flow.
  enum class GradientUse {
    ReturnedFromForward,
    LossPrediction,
    Backpropagated
  };

  /// A tensor built from values read out of a tensor with history.
  struct BrokenGraph {
    /// The torch::tensor / torch::from_blob call.
    const CallExpr *Construction = nullptr;
    /// The read (item, data_ptr, accessor) the values came from.
    const Expr *ValueRead = nullptr;
    /// Where the new tensor needs gradient: the return statement, the loss
    /// call, or the backward pass.
    const Stmt *Use = nullptr;
    GradientUse Kind = GradientUse::Backpropagated;
  };

  /// Runs the analysis over the body of \p F. Returns null if the CFG cannot
  /// be built (e.g. for some invalid code).
  static std::unique_ptr<AutogradFlow> analyze(const FunctionDecl &F,
                                               ASTContext &Ctx);

  /// Second passes, in source order of the failing call, one per call.
  llvm::ArrayRef<SecondPass> secondPasses() const { return SecondPasses; }
  /// Broken graphs, one per construction call.
  llvm::ArrayRef<BrokenGraph> brokenGraphs() const { return BrokenGraphs; }

private:
  llvm::SmallVector<SecondPass, 2> SecondPasses;
  llvm::SmallVector<BrokenGraph, 2> BrokenGraphs;
  friend class AutogradFlowBuilder;
};

/// The one way a graph check gets at the analysis: which functions it
/// analyses, and their analyses, shared by all graph checks. Each check owns
/// one and calls it from registerMatchers(), check() and
/// onStartOfTranslationUnit()/onEndOfTranslationUnit().
///
/// Selection: function and lambda definitions expanded in user code whose
/// body contains a statement matching the check's filter (cheap filters
/// first: location, then the body). Instantiations of templates are skipped:
/// a template is analysed once, in its written form. A function is handed to
/// a check at most once per translation unit.
///
/// Sharing: the analysis depends on the function and nothing else (no check
/// options), so a function that several checks select is analysed once per
/// translation unit and every check reads the same result, whichever asked
/// first. The results live in a thread_local cache keyed by (ASTContext,
/// FunctionDecl): clangd builds and matches several files at once on
/// different threads, and one translation unit is matched from start to end
/// on one thread, inside one MatchFinder::matchAST call shared by all checks
/// (each check's UserCodeMatchFinder runs inside it, when clang-tidy's finder
/// reaches the translation unit, and does not start or end the unit again).
/// The cache is emptied when a translation unit starts and when it ends, so
/// no entry outlives the AST it points into (the next translation unit may
/// get an ASTContext or FunctionDecl at the same address).
class AutogradFunctions {
public:
  /// Adds the function and lambda matchers to the check's user-code finder:
  /// definitions whose body contains a statement matching \p Filter.
  void registerMatchers(UserCodeMatchFinder &Finder,
                        const ast_matchers::StatementMatcher &Filter);

  /// The analysis of the function that \p Result (a match of the matchers
  /// above) selected; null if the function is in a template instantiation,
  /// was already handed to this check, or has no CFG.
  const AutogradFlow *
  analysisOf(const ast_matchers::MatchFinder::MatchResult &Result);

  void startTranslationUnit();
  void endTranslationUnit();

private:
  llvm::SmallPtrSet<const FunctionDecl *, 8> Handed;
};

} // namespace clang::tidy::torch

#endif
