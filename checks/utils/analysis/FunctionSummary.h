//===--- FunctionSummary.h - what a function of the TU does, for callers --===//
//
// Evidence beyond one function, from what the same translation unit shows: a
// summary per function defined in the user's code, computed once per
// translation unit and shared by every check, and the calls of each function.
//
//  * Trains: the function runs a backward pass or an optimizer step, itself
//    or through the functions it calls (a training loop whose backward()
//    happens in a `train_step(...)` helper still trains).
//  * What it returns, from its autograd dataflow run as a callee
//    (AutogradFlow::Mode::Callee: arguments and members may have history):
//    history it creates itself (a forward or a loss inside it), none (it
//    returns a detached, read-out or fresh tensor), or what it was given; and
//    the tensor it rebuilt from values read out of its arguments.
//  * Its call sites in the user's code, each with the function that holds it:
//    whether every caller holds a gradient-disabling guard around the call,
//    or backpropagates what the call returned.
//
// Cost: each summary is computed at most once per translation unit; a
// function whose summary is being computed (recursion, direct or not) has
// none for its callees, which cuts cycles; call sites are indexed in one walk
// over the user's code, on first use.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_FUNCTIONSUMMARY_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_FUNCTIONSUMMARY_H

#include "utils/analysis/AutogradFlow.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <optional>
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang::tidy::torch {

class BodyParents;

/// The function a call invokes when it is defined in the user's code of this
/// translation unit (not LibTorch's, not a system header's, not a lambda);
/// null otherwise.
const FunctionDecl *userCallee(const CallExpr &Call, const ASTContext &Ctx);

/// The function whose body a call runs, when that body is in the user's
/// code: a user function (userCallee), or a lambda's, called directly
/// (`head(x)` with `auto head = [&](...) {...}`) or through a local variable
/// or member initialised with it (`std::function<...> head = [&](...)
/// {...}`, a member with such a default initialiser). Null otherwise.
const FunctionDecl *calledBody(const CallExpr &Call, const ASTContext &Ctx);

/// A call of a function of the user's code whose definition is in this
/// translation unit (calledBody; not a template's pattern, not in LibTorch's
/// headers), with the argument the call passes for each of its parameters
/// (a functor's or lambda's `f(x)` passes its object first): what a check
/// needs to evaluate the callee's body at this call.
struct CallBinding {
  const FunctionDecl *Body = nullptr;
  llvm::SmallVector<std::pair<const ParmVarDecl *, const Expr *>, 4>
      Arguments;
};
std::optional<CallBinding> userCallBinding(const CallExpr &Call,
                                           const ASTContext &Ctx);

/// Every body a call may run: calledBody's, or for a local std::function
/// assigned lambdas on several paths (`if (kind == "ce") criterion = [](...)
/// {...}; else criterion = [](...) {...};`) each of them. Empty when one of
/// its values is not a lambda of the user's code.
llvm::SmallVector<const FunctionDecl *, 2>
calledBodies(const CallExpr &Call, const ASTContext &Ctx);

/// The values \p F returns: each return statement's value, where a returned
/// local variable or parameter assigned as a whole (`x = softmax(x, 1);`) by
/// the last statement of the same block that mentions it before the return
/// is that assignment's right-hand side. Null entries for `return;`.
llvm::SmallVector<const Expr *, 2> returnedValues(const FunctionDecl &F);

struct FunctionSummary {
  /// Runs a backward pass or an optimizer step (isTrainingCall), itself or
  /// through a function it calls.
  bool Trains = false;
  /// The evidence of history of what it returns, as a callee.
  HistoryEvidence ResultHistory = HistoryEvidence::Possible;
  /// It returns (a tensor computed from) a tensor rebuilt from values read
  /// out of its arguments or members: the construction and the read.
  const CallExpr *ResultFromValues = nullptr;
  const Expr *ResultValuesRead = nullptr;
  /// ... and the values were read out of history the callee created itself
  /// (a module's forward inside it), whatever its arguments carry.
  bool ResultValuesReadOwnHistory = false;
  /// It returns a host value read out of a tensor with history (`return
  /// critic(s).item<float>();`), here; of history it made itself, or of
  /// what it was handed.
  const Expr *ResultReadOut = nullptr;
  bool ResultReadOutOwnHistory = false;
  /// The same, for a function of another translation unit: its summary
  /// (ProjectSummaries) says so, and the rebuilding is out of sight.
  bool ResultFromValuesElsewhere = false;
  /// ResultReadOut for a function of another translation unit
  /// (ResultReadOutOwnHistory says whose history).
  bool ResultReadOutElsewhere = false;
  /// ResultSaver for a function of another translation unit.
  bool ResultSavedElsewhere = false;
  /// Clears gradients, for a function of another translation unit (read by
  /// torch-missing-zero-grad; same-file helpers are followed there).
  bool ClearsGradients = false;
  /// The operation that saved the returned tensor itself for the backward
  /// pass, and the tensor parameters saved by an operation inside
  /// (AutogradFlow::resultSaver, savedParameters): an in-place write into
  /// them before the backward pass makes it throw.
  const CallExpr *ResultSaver = nullptr;
  /// For a result every return builds in place as a pair, tuple or struct:
  /// whether element i is saved (AutogradFlow::resultElementsSaved); empty
  /// when the whole result counts.
  llvm::SmallVector<bool, 2> ResultElementsSaved;
  llvm::SmallVector<AutogradFlow::SavedParameter, 1> SavedParams;
  /// In-place writes in its body into what an operation saved because a
  /// tensor parameter requires grad, needed by the result's backward pass
  /// (AutogradFlow::ConditionalWrite): a call with such an argument whose
  /// result is backpropagated throws. Not written across files.
  llvm::SmallVector<AutogradFlow::ConditionalWrite, 1> ConditionalWrites;
  /// The tensor parameters it backpropagates, on every call, without
  /// retaining the graph (`void optimize(Optimizer &opt, Tensor loss) {
  /// ...; loss.backward(); ... }`): a call is a backward pass on the argument.
  llvm::SmallVector<unsigned, 1> BackpropagatedParams;
  /// Backward passes on every call, without retaining the graph, on values
  /// it computes from its tensor parameters (bit i: the parameter at index
  /// i), in order (`auto pl = -(ret * log_probs).sum(); auto vl =
  /// loss(values); pl.backward(); vl.backward();`): a call makes one pass per
  /// entry through its arguments' graphs, located at the pass in the
  /// function. Not written across files.
  struct PassThroughParams {
    unsigned Params = 0;
    const CallExpr *Pass = nullptr;
  };
  llvm::SmallVector<PassThroughParams, 2> BackpropagatedThrough;
  /// The tensor parameters it writes into in place on every call
  /// (`void normalize_(Tensor &t) { t.div_(t.norm()); }`; a Tensor taken by
  /// value shares the caller's tensor too): a call is an in-place write into
  /// the argument.
  llvm::SmallVector<unsigned, 1> WrittenParams;
  /// The tensor parameter every return hands back as it is (`return t;`):
  /// the call's result is the caller's tensor (same storage, same graph,
  /// what saved it still saves it). Not written across files.
  llvm::SmallVector<unsigned, 1> ReturnedParams;
  /// The summary comes from another translation unit.
  bool External = false;

  /// The summary of \p F (its definition is used); null when \p F has no
  /// definition in the user's code or its summary is being computed.
  static const FunctionSummary *of(const FunctionDecl &F, ASTContext &Ctx);
  /// The summary of the definition \p Def (a function or a lambda's call
  /// operator of the user's code).
  static const FunctionSummary *summarise(const FunctionDecl &Def,
                                          ASTContext &Ctx);
  /// Forgets every summary and the call index; called by
  /// AutogradFlow::forgetTranslationUnit().
  static void forgetTranslationUnit();
};

/// The summary of \p F: its own (FunctionSummary::of) when its body is in the
/// user's code of this translation unit, else the one another translation
/// unit wrote (ProjectSummaries); null otherwise.
const FunctionSummary *summaryOf(const FunctionDecl &F, ASTContext &Ctx);

/// The summary of the function \p Call invokes: its own (FunctionSummary::of)
/// when its body is in the user's code of this translation unit, else the
/// one another translation unit wrote (ProjectSummaries); null otherwise.
const FunctionSummary *summaryAt(const CallExpr &Call, ASTContext &Ctx);

/// For a call of a lambda of the user's code (directly, or through a
/// variable or member holding one) that returns a host value read out of
/// history it made itself (`[&](auto s) { return critic(s).item<float>(); }`):
/// the read; null otherwise.
const Expr *lambdaReadOut(const CallExpr &Call, ASTContext &Ctx);

/// The same for a lambda handed to a library algorithm
/// (`std::transform(..., [&](const torch::Tensor &s) { return
/// head(s).item<float>(); })`): the read its every call returns, or null.
const Expr *lambdaReadOut(const LambdaExpr &Lambda, ASTContext &Ctx);

/// For a host-value member of a class of the user's (a number, a
/// `std::vector<float>`) that a method of the class fills with values read
/// out of a tensor with history (`log_probs_.push_back(lp.item<float>())`):
/// the read; null otherwise. Computed once per class and translation unit
/// (each such method's dataflow, uncached); null while being computed.
/// The lambdas of the user's code an argument hands over: a lambda written
/// there, or every lambda a local variable it names holds (its initialiser
/// and what is assigned to it). Empty when unknown.
llvm::SmallVector<const FunctionDecl *, 2>
lambdasPassedAs(const Expr *Arg, const SourceManager &SM);

const Expr *readOutStoredIn(const FieldDecl &Field, ASTContext &Ctx);

/// For a tensor-valued member of a class of the user's (a tensor, a
/// `std::vector` of transitions) that a method of the class fills with
/// values with evident history (`memory_.emplace_back(state, log_prob,
/// reward, value)` in an agent's act()): the stored value; null otherwise.
/// Computed with readOutStoredIn.
const Expr *historyStoredIn(const FieldDecl &Field, ASTContext &Ctx);

/// A call of a function, and the function whose body holds it (for a call
/// in a lambda, the function around the lambda).
struct CallSite {
  const CallExpr *Call = nullptr;
  const FunctionDecl *Caller = nullptr;
};

/// Every call of \p F (through any of its declarations) in the bodies of
/// the user's functions in this translation unit, templates as written.
llvm::ArrayRef<CallSite> callSitesOf(const FunctionDecl &F, ASTContext &Ctx);

/// Every call site of the user's code, with the function it calls (its
/// canonical declaration), in no particular order.
void forEachCallSite(
    ASTContext &Ctx,
    llvm::function_ref<void(const FunctionDecl &Callee, const CallSite &)> Fn);

/// A training call (isTrainingCall), or a call of a user function that
/// trains (FunctionSummary::Trains).
bool trainsAt(const CallExpr &Call, ASTContext &Ctx);

/// True if \p S contains a call that trains (trainsAt), lambda bodies
/// included.
bool containsTraining(const Stmt &S, ASTContext &Ctx);

/// True if what \p F returns reaches a backward pass at one of its calls in
/// this translation unit: the call is inside what a training call
/// differentiates (`torch::mse_loss(predict(h), y).backward()`), its result
/// is stored in a variable that reaches a backward pass of the caller
/// (AutogradFlow::reachesBackwardPass), or the caller returns it, as it is or
/// computed from it (`return predict(h, 4);`, `auto y = infer(x); return y;`),
/// and what the caller returns reaches one in turn (three functions up at
/// most). \p Parents: the walk up from each call inside its caller's body.
bool resultReachesBackwardPass(const FunctionDecl &F, ASTContext &Ctx,
                               BodyParents &Parents);

} // namespace clang::tidy::torch

#endif
