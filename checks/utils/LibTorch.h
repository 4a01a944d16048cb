//===--- LibTorch.h - what torch-tidy knows about LibTorch ----------------===//
//
// Shared knowledge about LibTorch entities, reused by every torch-* check:
// where LibTorch's own headers are, which types are tensors and devices, and
// which local variables are visible at a point. A check file holds only what
// is specific to its pitfall; anything that names a LibTorch entity lives here.
//
// Every predicate matches by qualified name (at::Tensor, c10::Device, ...), so
// a user type that merely shares a spelling is never taken for LibTorch's.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_LIBTORCH_H
#define TORCH_TIDY_CHECKS_UTILS_LIBTORCH_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <type_traits>

namespace clang::tidy::torch {

// --- Where code lives ----------------------------------------------------------

/// True if \p Loc (its expansion location) is inside a LibTorch header: a file
/// under an ATen/, c10/, caffe2/ or torch/ directory of an include root that
/// holds LibTorch (torch/torch.h, torch/script.h or ATen/ATen.h). This holds
/// whether the headers were included with -isystem or with -I.
bool isInLibTorchHeader(SourceLocation Loc, const SourceManager &SM);

/// True if \p Loc is in code the user wrote: not in a system header and not in
/// a LibTorch header.
bool isInUserCode(SourceLocation Loc, const SourceManager &SM);

/// Where \p S begins (ends) as written. Asks through Stmt, which dispatches to
/// the node's own class: from LLVM 21 on, CallExpr::getBeginLoc() called on an
/// overloaded-operator call (`model(x)`, `a + b`) through a CallExpr pointer
/// returns the callee's location (the operator), and CallExpr::getEndLoc() the
/// location of the closing parenthesis only. Use these for every statement or
/// expression whose static type may be CallExpr.
inline SourceLocation beginLoc(const Stmt &S) { return S.getBeginLoc(); }
inline SourceLocation endLoc(const Stmt &S) { return S.getEndLoc(); }

/// Matches nodes whose expansion location is user code (see isInUserCode).
AST_POLYMORPHIC_MATCHER(isExpansionInUserCode,
                        AST_POLYMORPHIC_SUPPORTED_TYPES(Decl, Stmt, TypeLoc)) {
  SourceLocation Begin;
  if constexpr (std::is_base_of_v<Stmt, NodeType>)
    Begin = beginLoc(Node);
  else
    Begin = Node.getBeginLoc();
  return isInUserCode(Begin, Finder->getASTContext().getSourceManager());
}

// --- Types -----------------------------------------------------------------------

/// True if \p T (through typedefs, references and cv-qualifiers) is at::Tensor
/// (also spelled torch::Tensor and torch::autograd::Variable).
bool isTensorType(QualType T);

/// True if \p T is c10::Device, c10::DeviceType, or an optional of c10::Device
/// (c10::optional or std::optional), through references and cv-qualifiers.
bool isDeviceType(QualType T);

/// True if \p T is exactly c10::Device (torch::Device), through references,
/// typedefs and cv-qualifiers.
bool isDeviceClassType(QualType T);

/// True if \p T is c10::nullopt_t or std::nullopt_t.
bool isNullOptType(QualType T);

/// True if \p E, as written, is an empty optional: c10::nullopt, std::nullopt,
/// `{}` or a default-constructed optional.
bool isEmptyOptional(const Expr *E);

// --- Scopes ----------------------------------------------------------------------

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

// --- Parents inside function bodies ---------------------------------------------

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

  /// What LibTorch.cpp's autograd evidence (hasAutogradHistory,
  /// isBackpropagatedIn) computes once per body and shares between queries:
  /// without it, each query would scan the whole function again (quadratic
  /// in a long training loop).
  struct Facts;
  Facts &factsOf(const FunctionDecl &Fn);

private:
  struct Body;
  Body &bodyOf(const FunctionDecl &Fn);
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<Body>> Bodies;
};

/// visibleLocalVariables for a statement in the body of \p Fn, walking with
/// \p Parents instead of the translation unit's parent map.
llvm::SmallVector<const VarDecl *, 4>
visibleLocalVariables(const Stmt &S, const FunctionDecl &Fn,
                      BodyParents &Parents,
                      llvm::function_ref<bool(const VarDecl &)> Pred,
                      bool CrossLambdas = false);


// --- Autograd: what creates, consumes and removes graph history ----------------
//
// The SPEC's "local, explainable evidence" that a tensor has autograd history:
// produced by a module's forward, by a LibTorch loss, by arithmetic on such a
// tensor, or backward() is called on it; .detach(), .item<T>(), .data() and
// gradient-disabling guards remove it. These predicates name each piece.

/// True if \p RD is, or derives from, torch::nn::Module, a
/// torch::nn::ModuleHolder<...> specialisation, or is torch::jit::Module.
bool isModuleClass(const CXXRecordDecl *RD);

/// True if \p RD is a LibTorch loss module: torch::nn::<Name>LossImpl or a
/// ModuleHolder of one (torch::nn::CrossEntropyLoss, MSELoss, NLLLoss, ...).
bool isLossModuleClass(const CXXRecordDecl *RD);

/// A module's forward: `model->forward(x)`, `model(x)` on a module holder,
/// `module.forward({...})` / `module({...})` on a torch::jit::Module, and
/// `impl.forward(x)` on a torch::nn::Module subclass. Loss modules count too;
/// use isLossCall to tell them apart.
bool isModuleForwardCall(const CallExpr &Call);

/// A LibTorch loss: a function in at::, torch:: or torch::nn::functional::
/// whose name says loss/entropy (mse_loss, cross_entropy, nll_loss,
/// binary_cross_entropy_with_logits, kl_div, ...), or a loss module's forward.
bool isLossCall(const CallExpr &Call);

/// `t.backward(...)` on an at::Tensor, or `torch::autograd::backward(...)`.
bool isBackwardCall(const CallExpr &Call);

/// `torch::autograd::grad(...)`.
bool isAutogradGradCall(const CallExpr &Call);

/// `opt.step(...)` on a torch::optim::Optimizer (or a subclass).
bool isOptimizerStepCall(const CallExpr &Call);

/// A call on an at::Tensor that returns a value without autograd history:
/// detach(), detach_(), item(), item<T>(), data(), data_ptr<T>().
bool isHistoryRemovingCall(const CallExpr &Call);

/// The grad mode a guard variable sets for its scope.
enum class GradModeEffect { None, Disables, Enables, Unknown };

/// What \p VD does to grad mode: torch::NoGradGuard and c10::InferenceMode
/// (no argument or `true`) disable it; AutoGradMode(false) disables it,
/// AutoGradMode(true) enables it; a non-constant argument is Unknown.
GradModeEffect gradModeEffectOf(const VarDecl &VD);

/// True if gradient recording is (or may be) off at \p S, in the body of
/// \p Fn: the innermost grad-mode guard visible at \p S in any enclosing
/// scope of the same function (lambdas included) disables it, or has an
/// argument that is not a constant.
bool hasNoGradGuardInScope(const Stmt &S, const FunctionDecl &Fn,
                           BodyParents &Parents);

AST_MATCHER(CallExpr, isModuleForward) { return isModuleForwardCall(Node); }
AST_MATCHER(CallExpr, isLoss) { return isLossCall(Node); }
AST_MATCHER(CallExpr, isBackward) { return isBackwardCall(Node); }
AST_MATCHER(CallExpr, isAutogradGrad) { return isAutogradGradCall(Node); }
AST_MATCHER(CallExpr, isOptimizerStep) { return isOptimizerStepCall(Node); }
AST_MATCHER(CallExpr, isHistoryRemoving) {
  return isHistoryRemovingCall(Node);
}
/// Matches statements under a gradient-disabling guard (see
/// hasNoGradGuardInScope).
/// Matches expressions whose type is at::Tensor (through references/typedefs).
AST_MATCHER(Expr, isTensorExpr) { return isTensorType(Node.getType()); }


// --- Values read out of tensors, and tensors built from host values ------------
//
// Used where a check follows numbers out of a tensor (item, data_ptr,
// accessors) into host variables and back into a new tensor (torch::tensor,
// torch::from_blob), which then has no autograd history.

/// A call on an at::Tensor that copies or exposes its values to host code:
/// item(), item<T>(), data_ptr(), data_ptr<T>(), const_data_ptr<T>(),
/// mutable_data_ptr<T>(), accessor<T, N>(), packed_accessor32/64<T, N>() and
/// generic_packed_accessor<T, N>().
bool isTensorValueReadCall(const CallExpr &Call);

/// A factory that builds a tensor from host values: torch::tensor / at::tensor
/// (from a scalar, a braced list or a std::vector) and torch::from_blob /
/// at::from_blob (from a pointer). Its result never has autograd history.
bool isTensorFromValuesCall(const CallExpr &Call);

/// A factory that makes a fresh tensor from shapes and fill values, never with
/// autograd history, even when its arguments have some: torch::zeros, ones,
/// full, empty, rand, randn, randint, randperm, arange, linspace, logspace,
/// eye, and every *_like (zeros_like(x), full_like(x, v), ...), in at:: or
/// torch::. (torch::tensor/from_blob are isTensorFromValuesCall.)
bool isTensorFactoryCall(const CallExpr &Call);

/// True if \p T (through references, typedefs and cv-qualifiers) is a
/// container of tensors: std::vector<at::Tensor> (torch::autograd::
/// variable_list), c10::ArrayRef<at::Tensor> (at::TensorList) or
/// c10::List<at::Tensor>.
bool isTensorListType(QualType T);

AST_MATCHER(CallExpr, isTensorFromValues) {
  return isTensorFromValuesCall(Node);
}

// --- Training loops, evaluation mode and autograd history ----------------------
//
// Used by the checks that reason about loops (torch-loss-accumulated-without-item,
// torch-eval-loop-without-no-grad): what a training loop is, which loops enclose
// a statement, whether a module was put into evaluation mode, and the SPEC's
// local evidence that a tensor has autograd history.

/// True for for, range-based for, while and do loops.
bool isLoopStmt(const Stmt &S);

/// A call that trains: a backward pass (isBackwardCall),
/// torch::autograd::grad, or an optimizer's step(). Inside a template a call
/// whose callee is still dependent and is named backward, grad or step counts
/// too: once instantiated it may be one (checks use this to stay silent).
bool isTrainingCall(const CallExpr &Call);

/// True if \p S contains a training call (lambda bodies included).
bool containsTrainingCall(const Stmt &S);

/// The loops whose body (or condition, or increment) contains \p S, in the
/// body of \p Fn, innermost first. The walk stops at the function that
/// contains \p S; a lambda's body is a function of its own unless
/// \p CrossLambdas is set.
llvm::SmallVector<const Stmt *, 4> enclosingLoops(const Stmt &S,
                                                  const FunctionDecl &Fn,
                                                  BodyParents &Parents,
                                                  bool CrossLambdas = false);

/// The first function around \p S (in the body of \p Fn) that is not a
/// lambda.
const FunctionDecl *outermostFunction(const Stmt &S, const FunctionDecl &Fn,
                                      BodyParents &Parents);

/// `m.eval()`, `m->eval()` or `m.train(false)` on a module (isModuleClass).
bool isModuleEvalCall(const CallExpr &Call, const ASTContext &Ctx);

/// `m.train()` or `m.train(true)` on a module (isModuleClass).
bool isModuleTrainCall(const CallExpr &Call, const ASTContext &Ctx);

/// `c10::GradMode::set_enabled(...)`: grad mode managed by hand.
bool isGradModeSetCall(const CallExpr &Call);

/// The variable or field an expression names: `acc`, `this->acc`, `obj.acc`
/// (through parentheses and implicit casts); null otherwise.
const ValueDecl *namedEntity(const Expr &E);

/// The SPEC's local evidence that \p E has autograd history: it is produced by
/// a module's forward or a LibTorch loss (not under a no-grad guard), by
/// arithmetic or a differentiable tensor operation on such a tensor
/// (`a + b`, `l * 0.5`, `l.mean()`, `torch::stack(v)`, ...), or it reads a
/// local variable that some definition in its function (initializer,
/// assignment, compound assignment, add_, push_back) gives history, or on
/// which backward() is called. detach(), item(), data() remove history.
bool hasAutogradHistory(const Expr &E, const FunctionDecl &Fn,
                        BodyParents &Parents);

/// True if the tensor (or container of tensors) \p D reaches a backward pass
/// in \p Fn: it is named in what `.backward()`, torch::autograd::backward or
/// torch::autograd::grad differentiates, directly or through variables
/// computed from it (`total = a + b; total.backward()`,
/// `torch::stack(losses).sum().backward()`). Values passed through detach()
/// or item() do not count. The variables that reach a pass are computed once
/// per function (\p Parents keeps them).
bool isBackpropagatedIn(const ValueDecl &D, const FunctionDecl &Fn,
                        BodyParents &Parents);

} // namespace clang::tidy::torch

#endif
