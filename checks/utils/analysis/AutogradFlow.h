//===--- AutogradFlow.h - function-local autograd dataflow ----------------===//
//
// One small dataflow over the tensor variables of a single function, on
// clang's CFG, shared by the checks that must know how autograd graphs are
// built and consumed inside a function:
//
//  * which tensors carry autograd history, and how strong the evidence is
//    (docs/design.md, "Autograd history"): evident when a module's forward or
//    a LibTorch loss produced it (not under a no-grad guard), when LibTorch's
//    differentiable operations or tensor arithmetic computed it from such a
//    tensor, or when backward() runs on it; possible when it only went
//    through a call the analysis cannot see into; .detach()/.item()/.data()
//    and fresh tensors have none;
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
//    loop are not second passes;
//  * which variables and fields reach a backward pass at all (what a loss is
//    built from), flow-insensitively;
//  * which tensors an operation saved for its backward (the op table's
//    SavesOutput / SavesInput / SavesOperands, when the evidence of history
//    says autograd records it), which in-place writes change a saved tensor
//    (through a reference, a copy of the handle, `[]` or detach()), and
//    whether a later backward pass (or the return from a module's forward())
//    needs what was saved.
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
// Implementation: AutogradFlow.cpp (analysis entry, queries, sharing) and the
// dataflow in autograd/, one concern per file (autograd/Builder.h lists them).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_AUTOGRADFLOW_H
#define TORCH_TIDY_CHECKS_UTILS_AUTOGRADFLOW_H

#include "utils/analysis/AccessPath.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

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

/// How strong the evidence is that a value has autograd history. Ordered:
/// a join of paths keeps the strongest.
enum class HistoryEvidence : std::uint8_t {
  None,     ///< No history: a fresh tensor, a detached one, a host value.
  Possible, ///< Computed from a tensor with history by a call the analysis
            ///< cannot see into (a user function, an unknown operation).
  Evident,  ///< Produced by a module's forward or a LibTorch loss, or
            ///< computed from one by differentiable operations.
};

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
    /// Shared is computed in the loop from its own value of the previous
    /// iteration (a recurrent state that is never detached).
    bool CarriedOver = false;
    /// Shared is an object whose method keeps this member from one call into
    /// the next (`h_ = cell(x, h_)` in its forward), at StateWrite.
    const FieldDecl *StateMember = nullptr;
    const Expr *StateWrite = nullptr;
    const FunctionDecl *StateWriter = nullptr;
    /// The analysed method itself keeps StateMember from one of its calls
    /// into the next and backpropagates through it: the pass fails on the
    /// second call (Shared is null).
    bool AcrossCalls = false;
    /// Both passes run in a helper (FunctionSummary::BackpropagatedThrough)
    /// that this call hands arguments sharing Shared's graph.
    const CallExpr *Via = nullptr;
  };

  /// Where a tensor without history is used where gradient must flow.
  enum class GradientUse {
    ReturnedFromForward,
    LossPrediction,
    Backpropagated,
    /// A term of a sum that is backpropagated: with no history of its own
    /// it adds a constant, which changes no gradient.
    AddedToLoss
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

  /// How a function is analysed.
  enum class Mode {
    /// For the checks: parameters, members and globals carry no known
    /// history (nothing local shows any).
    Local,
    /// For a summary of the function as a callee (FunctionSummary.h): tensor
    /// parameters, members and globals may carry history, as a caller's
    /// arguments may.
    Callee
  };

  /// An in-place write into a tensor that an operation saved for its
  /// backward, before a backward pass that needs it ("one of the variables
  /// needed for gradient computation has been modified by an inplace
  /// operation").
  struct InPlaceOnSaved {
    /// The in-place call or operator (`y.mul_(2)`, `y += 1`, `y[0] = 0`).
    const Expr *Write = nullptr;
    /// The operation that saved the tensor.
    const CallExpr *Saver = nullptr;
    /// The tensor is the saver's result (else one of its operands).
    bool SavedOutput = false;
    /// The backward pass that needs it, or the return from a module's
    /// forward() (the caller backpropagates the result).
    const Stmt *Use = nullptr;
    /// When Saver is a call of a user function or module: the operation in
    /// its body that saves the tensor.
    const CallExpr *InnerSaver = nullptr;
    /// When Write and Saver are in the body of a function this one calls
    /// (a ConditionalWrite of its summary): the call, whose tensor argument
    /// requires grad.
    const CallExpr *Through = nullptr;
  };

  /// An in-place write, in the analysed function, into a tensor that an
  /// operation saved only because (a tensor computed from) one of the
  /// function's tensor parameters requires grad, before the function
  /// returns a value whose backward pass needs it (`auto d = pred - target;
  /// auto q = d.pow(2); d.abs_(); return (q + d).mean();`): an error at every
  /// call whose argument for one of those parameters requires grad and whose
  /// result is backpropagated.
  struct ConditionalWrite {
    const Expr *Write = nullptr;
    const CallExpr *Saver = nullptr;
    bool SavedOutput = false;
    /// The parameters (bit i: the tensor parameter at index i) whose
    /// requiring grad makes Saver save.
    unsigned Params = 0;
  };

  /// A tensor parameter of the analysed function that an operation in it
  /// saves for the backward pass, by position.
  struct SavedParameter {
    unsigned Index = 0;
    const CallExpr *Saver = nullptr;
  };

  /// Runs the analysis over the body of \p F. Returns null if the CFG cannot
  /// be built (e.g. for some invalid code).
  static std::unique_ptr<AutogradFlow>
  analyze(const FunctionDecl &F, ASTContext &Ctx, Mode M = Mode::Local);

  /// The analysis of \p F, shared by every check in this translation unit
  /// (see AutogradFunctions for the cache); null if \p F has no CFG.
  static const AutogradFlow *of(const FunctionDecl &F, ASTContext &Ctx);
  /// Forgets every shared analysis: call at the start and at the end of each
  /// translation unit (from onStartOfTranslationUnit and
  /// onEndOfTranslationUnit) in every check that uses of().
  static void forgetTranslationUnit();

  /// Second passes, in source order of the failing call, one per call.
  llvm::ArrayRef<SecondPass> secondPasses() const { return SecondPasses; }
  /// Broken graphs, one per construction call.
  llvm::ArrayRef<BrokenGraph> brokenGraphs() const { return BrokenGraphs; }
  /// In-place writes into saved tensors, in source order, one per write.
  llvm::ArrayRef<InPlaceOnSaved> inPlaceWrites() const {
    return InPlaceWrites;
  }
  /// In-place writes into saved tensors that a function other than a
  /// module's forward returns to its caller (Use: the return statement):
  /// they throw when a caller backpropagates the result
  /// (resultReachesBackwardPass). Writes already reported at a backward pass
  /// of the function itself are not repeated.
  llvm::ArrayRef<InPlaceOnSaved> returnedInPlaceWrites() const {
    return ReturnedInPlaceWrites;
  }
  /// The analysed function.
  const FunctionDecl *function() const { return Function; }

  /// The evidence that \p E, an expression of the analysed function (as
  /// written or with its implicit nodes), has autograd history where it is
  /// evaluated, joined over every path that reaches it.
  HistoryEvidence historyOf(const Expr &E) const;

  /// True if the analysis has local evidence that \p E has history: evident
  /// history, or it is (computed by differentiable operations from) a local
  /// tensor on which backward() runs.
  bool hasHistoryEvidence(const Expr &E) const;

  /// True if the variable or field \p D (a tensor, or a container of
  /// tensors) reaches a backward pass of the function: it is named in what
  /// `.backward()`, torch::autograd::backward or torch::autograd::grad
  /// differentiates, directly or through variables computed from it
  /// (`total = a + b; total.backward()`,
  /// `torch::stack(losses).sum().backward()`). Values passed through
  /// detach() or item() do not count. Flow-insensitive: a pass anywhere in
  /// the function counts.
  bool reachesBackwardPass(const ValueDecl &D) const;
  /// Field-sensitive: whether the location \p Target denotes (its access
  /// path, AccessPath.h) may overlap one a backward pass differentiates
  /// (`total.first` is not reached by `loss.first.backward()`); by its
  /// named entity when it has no access path.
  bool reachesBackwardPass(const Expr &Target) const;

  /// What the function returns, joined over its return statements: the
  /// evidence of history, and the tensor rebuilt from read-out values it may
  /// be (derived from), with the read.
  HistoryEvidence resultHistory() const { return Result.History; }
  const CallExpr *resultFromValues() const { return Result.FromValues; }
  /// The read, when the function returns a host value read out of a tensor
  /// with history (`return critic(s).item<float>();`).
  const Expr *resultReadOut() const { return Result.ReadOut; }
  const Expr *resultValuesRead() const { return Result.ValuesRead; }
  /// The operation that saved the returned tensor itself for the backward
  /// pass (`return torch::sigmoid(fc(x));`), if any: the caller may not
  /// write into the result in place before the backward pass.
  const CallExpr *resultSaver() const { return Result.Saver; }
  /// Per element of an aggregate every return builds in place: whether an
  /// operation saved it (empty when not known per element: the whole
  /// result counts).
  llvm::ArrayRef<bool> resultElementsSaved() const {
    return Result.ElementsUnknown ? llvm::ArrayRef<bool>()
                                  : llvm::ArrayRef<bool>(Result.ElementSaved);
  }
  /// The tensor parameters an operation saved (`return fc(x);` saves x):
  /// the caller may not write into those arguments before the backward pass.
  llvm::ArrayRef<SavedParameter> savedParameters() const {
    return Result.SavedParams;
  }
  /// The in-place writes that break the returned value's backward pass when
  /// a tensor parameter requires grad (ConditionalWrite).
  llvm::ArrayRef<ConditionalWrite> conditionalWrites() const {
    return Result.ConditionalWrites;
  }

private:
  struct ReturnedValue {
    HistoryEvidence History = HistoryEvidence::None;
    const CallExpr *FromValues = nullptr;
    const Expr *ValuesRead = nullptr;
    /// A host value read out of a tensor with history (`.item()`), here.
    const Expr *ReadOut = nullptr;
    const CallExpr *Saver = nullptr;
    /// When every return builds a pair, tuple or struct in place with its
    /// elements (`return {out, alpha};`): whether Saver (or another
    /// operation) saved element i. Empty when not known per element.
    llvm::SmallVector<bool, 2> ElementSaved;
    bool ElementsUnknown = false;
    llvm::SmallVector<SavedParameter, 1> SavedParams;
    llvm::SmallVector<ConditionalWrite, 1> ConditionalWrites;
  };
  ReturnedValue Result;

  struct Evidence {
    HistoryEvidence History = HistoryEvidence::None;
    bool Backpropagated = false;
  };
  const Evidence *evidenceOf(const Expr &E) const;

  const FunctionDecl *Function = nullptr;
  llvm::SmallVector<SecondPass, 2> SecondPasses;
  llvm::SmallVector<BrokenGraph, 2> BrokenGraphs;
  llvm::SmallVector<InPlaceOnSaved, 1> InPlaceWrites;
  llvm::SmallVector<InPlaceOnSaved, 1> ReturnedInPlaceWrites;
  /// Per expression with any evidence, at the fixpoint.
  llvm::DenseMap<const Expr *, Evidence> ExprEvidence;
  /// reachesBackwardPass, computed on first use.
  mutable std::optional<llvm::SmallPtrSet<const ValueDecl *, 16>> Reaching;
  mutable std::optional<std::vector<AccessPath>> ReachingPaths;
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
