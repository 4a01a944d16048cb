//===--- LibTorch.h - what torch-tidy knows about LibTorch -----*- C++ -*-===//
//
// Every LibTorch entity the checks recognise, recognised in one place: where
// LibTorch's own headers are, which types are tensors, devices, modules and
// optimizers, which calls are module forwards, losses, backward passes and
// optimizer steps, and which calls are LibTorch's tensor operations (whose
// facts are in the operation table, OpTable.h / Ops.def).
//
// Every predicate matches by qualified name (at::Tensor, c10::Device,
// torch::nn::Module, ...), so a user type or function that merely shares a
// spelling is never taken for LibTorch's. Calls inside templates whose callee
// is still an unresolved lookup or a dependent member are recognised where
// the lookup can only find LibTorch's declarations (asLibTorchCall).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_LIBTORCH_LIBTORCH_H
#define TORCH_TIDY_CHECKS_UTILS_LIBTORCH_LIBTORCH_H

#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/OpTable.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <type_traits>

namespace clang::tidy::torch {

// --- Where code lives
// ----------------------------------------------------------

/// True if \p Loc (its expansion location) is inside a LibTorch header: a file
/// under an ATen/, c10/, caffe2/ or torch/ directory of an include root that
/// holds LibTorch (torch/torch.h, torch/script.h or ATen/ATen.h). This holds
/// whether the headers were included with -isystem or with -I.
bool isInLibTorchHeader(SourceLocation Loc, const SourceManager &SM);

/// True if \p Loc is in code the user wrote: not in a system header and not in
/// a LibTorch header.
bool isInUserCode(SourceLocation Loc, const SourceManager &SM);

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

// --- Types
// -----------------------------------------------------------------------

/// True if \p T (through typedefs, references and cv-qualifiers) is at::Tensor
/// (also spelled torch::Tensor and torch::autograd::Variable) or
/// at::TensorBase.
bool isTensorType(QualType T);

/// True if \p T is c10::IValue (torch::jit::IValue): what a TorchScript
/// module's forward returns, a tensor until proven otherwise.
bool isIValueType(QualType T);

/// True if \p RD is at::Tensor or at::TensorBase.
bool isTensorClass(const CXXRecordDecl *RD);

/// True if \p T (through references, typedefs and cv-qualifiers) is a
/// container of tensors: std::vector<at::Tensor> (torch::autograd::
/// variable_list), c10::ArrayRef<at::Tensor> (at::TensorList) or
/// c10::List<at::Tensor>.
bool isTensorListType(QualType T);

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

/// True if \p RD is, or derives from, torch::nn::Module, a
/// torch::nn::ModuleHolder<...> specialisation, or is torch::jit::Module.
bool isModuleClass(const CXXRecordDecl *RD);

/// True if \p RD is a specialization of torch::nn::ModuleHolder (what
/// TORCH_MODULE(Name) derives `Name` from).
bool isModuleHolder(const CXXRecordDecl &RD);

/// True if \p RD is a LibTorch loss module: torch::nn::<Name>LossImpl or a
/// ModuleHolder of one (torch::nn::CrossEntropyLoss, MSELoss, NLLLoss, ...).
bool isLossModuleClass(const CXXRecordDecl *RD);

// --- LibTorch's tensor operations
// ---------------------------------------------

/// True if \p D (a function, a function template, or a using-declaration of
/// one) is a free function of LibTorch: declared in namespace at or torch, or
/// in a namespace nested in them (torch::nn::functional, torch::linalg).
bool isLibTorchFunction(const NamedDecl *D);

/// A call to a LibTorch function or Tensor method, as written: `at::sqrt(x)`
/// (Object null, Args {x}), `x.sqrt()` (Object x, Args {}), also when the
/// callee is still an unresolved lookup or a dependent member inside a
/// template.
struct LibTorchCall {
  StringRef Name;
  const Expr *Object = nullptr;
  llvm::SmallVector<const Expr *, 3> Args;
  const CallExpr *Call = nullptr;
  /// For a method call: the member expression (for its location).
  const Expr *Member = nullptr;
  /// The callee lives in torch::nn::functional (F::softmax, F::normalize).
  bool Functional = false;

  /// True if the operation table gives this spelling any of \p Roles.
  bool is(std::uint64_t Roles) const { return opHas(Name, Roles); }
};

/// Recognises \p E (parentheses and implicit nodes stripped) as a call to a
/// function in namespace at or torch (at::sqrt,
/// torch::nn::functional::softplus, torch::linalg::norm) or to a method of
/// at::Tensor. A method call on an operand of dependent type is recognised by
/// its name only: use it to classify operands, never to decide that a call is
/// LibTorch's.
std::optional<LibTorchCall> asLibTorchCall(const Expr *E);

/// The tensor a LibTorch call operates on: the object of a method call, the
/// first argument of a function.
const Expr *operandOf(const LibTorchCall &C);

/// The \p I-th argument after the operand (`x.clamp(lo, hi)`: 0 is lo;
/// `at::clamp(x, lo, hi)`: 0 is lo too), or null.
const Expr *argumentAfterOperand(const LibTorchCall &C, unsigned I);

/// The operation-table line of a call to an at::Tensor method or to a
/// LibTorch function (isLibTorchFunction); null for any other call and for
/// operations the table does not know.
const OpInfo *tensorOpOf(const CallExpr &Call);

/// tensorOpOf's line, or for a LibTorch operation the table does not know the
/// conservative default (unknownOpDefault: differentiable, saves its input):
/// an at::Tensor method or a function in at::, torch:: or
/// torch::nn::functional that returns an at::Tensor and is not spelled in
/// place (no trailing '_'). Null for any other call. The analyses that track
/// autograd history and saved tensors ask this, so that an operation missing
/// from the table (gelu, leaky_relu, silu) keeps its operands' history
/// instead of dropping it.
const OpInfo *tensorOpOrDefaultOf(const CallExpr &Call);

/// A LibTorch operation through which no gradient flows and whose result has
/// no history (op::NotDifferentiable: argmax, eq, isnan, new_zeros, ...).
bool isNonDifferentiableCall(const CallExpr &Call);

/// `x.requires_grad_()`, `x.requires_grad_(true)`, `x.set_requires_grad(true)`
/// on an at::Tensor.
bool setsRequiresGrad(const CallExpr &Call);

/// A call whose arguments ask for a tensor that requires grad:
/// `torch::randn({3}, torch::requires_grad())`,
/// `torch::zeros({3}, torch::TensorOptions().requires_grad(true))`.
bool requestsGrad(const CallExpr &Call);

/// True if the LibTorch call \p C returns tensors (an at::Tensor, or a tuple
/// or list of them); for a call still unresolved in a template, when every
/// candidate does.
bool returnsTensors(const LibTorchCall &C);

/// True if LibTorch declares \p Spelling where \p C's callee lives: as a
/// method of the same tensor class for a method call, as a function of the
/// callee's namespace for a function call (`at::relu_` exists, `at::add_`
/// does not).
bool declaresSibling(const LibTorchCall &C, StringRef Spelling);

/// The location of the name of the function a LibTorch call invokes (`clamp`
/// in `x.clamp(0, 1)`, `relu` in `torch::relu(x)`).
SourceLocation calleeNameLoc(const LibTorchCall &C);

/// The roles of a tensor operation that saves tensors for its backward
/// (op::SavesOutput, op::SavesInput, op::SavesOperands): tensorOpOf's, and
/// those of mul and div for `a * b` and `a / b` on tensors; 0 otherwise.
std::uint64_t savingRolesOf(const CallExpr &Call);

/// The tensor an in-place write changes, or null if \p Call is none: an
/// in-place operation that changes values (op::InPlace without
/// op::KeepsValues: `x.mul_(2)`, `torch::relu_(x)`, `x.copy_(y)`), a compound
/// assignment on a tensor (`x += y`), or an assignment into a tensor
/// temporary (`x[0] = v`: Tensor::operator= on an rvalue writes in place).
const Expr *inPlaceWriteTarget(const CallExpr &Call);

/// A call on an at::Tensor that returns a value without autograd history
/// (op::RemovesHistory: detach(), item(), data(), data_ptr()).
bool isHistoryRemovingCall(const CallExpr &Call);

/// `t.grad()` or `t.mutable_grad()` on an at::Tensor: the gradient a backward
/// pass accumulated into a leaf, a tensor without autograd history of its own
/// (not in the operation table: a discarded `p.grad()` changes nothing).
bool isGradientCall(const CallExpr &Call);

/// A call on an at::Tensor that copies or exposes its values to host code
/// (op::ReadsValues: item(), data_ptr(), accessor<T, N>(), ...).
bool isTensorValueReadCall(const CallExpr &Call);

/// A factory that builds a tensor from host values (op::FromValues:
/// torch::tensor, torch::from_blob, in at:: or torch::). Its result never has
/// autograd history.
bool isTensorFromValuesCall(const CallExpr &Call);

/// A factory that makes a fresh tensor from shapes and fill values, never with
/// autograd history, even when its arguments have some (op::Fresh:
/// torch::zeros, ones, full, arange, zeros_like, ..., in at:: or torch::).
bool isTensorFactoryCall(const CallExpr &Call);

/// A tensor operation that keeps its operands' autograd history
/// (op::Differentiable): a Tensor method, or a function in at::, torch:: or
/// torch::nn::functional.
bool isDifferentiableCall(const CallExpr &Call);

// --- Memory a tensor wraps, dtypes and devices
// -----------------------------------

/// A call that wraps memory without copying or owning it (op::WrapsMemory:
/// torch::from_blob, at::from_blob), also unresolved inside a template;
/// Args[0] is the pointer to the memory.
std::optional<LibTorchCall> asMemoryWrappingCall(const Expr *E);

/// True if the memory-wrapping call \p Wrap passes a deleter (a
/// std::function, a lambda or a function pointer): the caller hands the
/// memory's lifetime to the tensor.
bool passesDeleter(const LibTorchCall &Wrap);

/// The c10::ScalarType enumerator (`Float`, `Byte`, ...) a constant
/// expression of type c10::ScalarType names: `torch::kFloat32`,
/// `at::ScalarType::Byte`; nullopt if \p E is not one or not constant.
std::optional<std::string> scalarTypeConstant(const Expr *E,
                                              const ASTContext &Ctx);

/// The dtype the memory-wrapping call \p Wrap gives its tensor, from its
/// written options (`torch::kByte`, `torch::TensorOptions().dtype(...)`,
/// `torch::dtype(...)`): "Float" when none is written, nullopt when the
/// options come from elsewhere (a variable).
std::optional<std::string> wrappedScalarType(const LibTorchCall &Wrap,
                                             const ASTContext &Ctx);

/// True if \p E is provably the CPU device: `torch::kCPU`,
/// `torch::Device(torch::kCPU)`, `torch::Device("cpu")`.
bool isCpuDeviceExpr(const Expr *E, const ASTContext &Ctx);

// --- Modules, losses, backward passes, optimizers
// ------------------------------

/// A module's forward: `model->forward(x)`, `model(x)` on a module holder,
/// `module.forward({...})` / `module({...})` on a torch::jit::Module, and
/// `impl.forward(x)` on a torch::nn::Module subclass. Loss modules count too;
/// use isLossCall to tell them apart.
bool isModuleForwardCall(const CallExpr &Call);

/// The `forward` method of a module class (isModuleClass).
bool isModuleForwardMethod(const FunctionDecl &F);

/// A LibTorch loss: a function of at::, torch:: or torch::nn::functional::
/// with op::Loss in the operation table (mse_loss, cross_entropy, nll_loss,
/// binary_cross_entropy_with_logits, kl_div, ...), or a loss module's forward.
bool isLossCall(const CallExpr &Call);

/// The argument of a loss call that holds the prediction (input): the first
/// tensor argument of a loss function or of a loss module's forward.
const Expr *lossPredictionArg(const CallExpr &Loss);

/// `t.backward(...)` on an at::Tensor, or `torch::autograd::backward(...)`.
bool isBackwardCall(const CallExpr &Call);

/// `t.backward(...)` on an object of dependent type, in a template as written
/// (by name only: callers decide from what they know of the object).
bool isDependentBackwardCall(const CallExpr &Call);

/// `torch::autograd::grad(...)`.
bool isAutogradGradCall(const CallExpr &Call);

/// Where a backward pass takes retain_graph and create_graph.
struct PassFlagPositions {
  unsigned RetainIndex;
  unsigned CreateIndex;
};

/// The argument positions of retain_graph and create_graph in a backward pass
/// (Tensor::backward, torch::autograd::backward, torch::autograd::grad);
/// nullopt for other calls.
std::optional<PassFlagPositions> passFlagPositions(const CallExpr &Pass);

/// `opt.step(...)` on a torch::optim::Optimizer (or a subclass).
bool isOptimizerStepCall(const CallExpr &Call);

/// True if \p RD is, or derives from, torch::optim::Optimizer (SGD, Adam,
/// AdamW, RMSprop, Adagrad, LBFGS, a user's optimizer).
bool isOptimizerClass(const CXXRecordDecl *RD);

/// A statement that clears gradients: zero_grad(...) on an optimizer or a
/// module (or, inside a template, a still-dependent call named zero_grad), and
/// zero_(), reset() or fill_(...) on a parameter's gradient (`p.grad()`,
/// `p.mutable_grad()`, also through `.data()` / `.detach()`), or an
/// assignment to `p.mutable_grad()`.
bool isGradientClearing(const Stmt &S);

/// A call that trains: a backward pass (isBackwardCall),
/// torch::autograd::grad, or an optimizer's step(). Inside a template a call
/// whose callee is still dependent and is named backward, grad or step counts
/// too: once instantiated it may be one (checks use this to stay silent).
bool isTrainingCall(const CallExpr &Call);

/// True if \p S contains a training call (lambda bodies included).
bool containsTrainingCall(const Stmt &S);

/// `m.eval()`, `m->eval()` or `m.train(false)` on a module (isModuleClass).
bool isModuleEvalCall(const CallExpr &Call, const ASTContext &Ctx);

/// `m.train()` or `m.train(true)` on a module (isModuleClass).
bool isModuleTrainCall(const CallExpr &Call, const ASTContext &Ctx);

/// The flag of `m.train(flag)` on a module when it is not a constant (a
/// parameter of a `set_mode(model, training)` helper); null otherwise.
const Expr *moduleTrainFlag(const CallExpr &Call, const ASTContext &Ctx);

/// The module object a module call is made on, as a variable or field:
/// `model` in `model->eval()`, `model.eval()`, `(*model).eval()`,
/// `model(x)`, `this->model->train()`; null when it is not a named entity.
const ValueDecl *moduleObjectEntity(const Expr *Object);

/// The module class whose forward \p Forward (isModuleForwardCall) runs: the
/// contained Impl for a holder (`net(x)`, `net->forward(x)`), the object's
/// class otherwise.
const CXXRecordDecl *forwardModuleClass(const CallExpr &Forward);

/// The `forward` method of forwardModuleClass(\p Forward) that \p Forward
/// runs: the method a member call names, or for `net(x)` on a holder the
/// Impl's `forward` taking the call's arguments; null when not found.
const CXXMethodDecl *forwardMethodOf(const CallExpr &Forward);

/// What a tensor member of a module is to autograd.
enum class ModuleTensorMember {
  NotOne,    ///< Not an at::Tensor member of a torch::nn::Module subclass.
  Parameter, ///< A parameter: a leaf that requires grad.
  Buffer,    ///< A buffer (register_buffer), or a parameter registered with
             ///< requires_grad=false: no gradient.
  Unknown    ///< A member of a user's module registered as neither, or with
             ///< a requires_grad that is not a constant.
};

/// What the at::Tensor member \p F of a torch::nn::Module subclass holds, by
/// how the class registers it, not by its name: a member its class assigns
/// from register_parameter(...) (in a method body or a constructor's member
/// initialiser; for a member of a class template's instantiation, in the
/// template's own code, `weight = this->register_parameter(...)` of
/// NormImplBase) is a Parameter unless requires_grad is false; one assigned
/// from register_buffer(...) only is a Buffer. A member of one of LibTorch's
/// modules whose registration is out of sight (in the library:
/// torch::nn::LinearImpl::weight, EmbeddingImpl::weight, RNNCellImplBase's
/// weight_ih, ...) is a Parameter, except the tensors of loss modules (their
/// class weights are buffers) and FractionalMaxPool's samples (a buffer). A
/// member of a user's module registered as neither is Unknown.
ModuleTensorMember moduleTensorMemberOf(const FieldDecl &F);

/// True if \p RD is LibTorch's torch::nn::LinearImpl (or BilinearImpl): its
/// forward returns raw scores.
bool isAffineModuleClass(const CXXRecordDecl *RD);
/// LibTorch's layers whose output is unbounded scores: the affine ones, and
/// convolutions (a segmentation head's per-pixel or per-point class scores,
/// `Conv2d(64, num_classes, 1)`).
bool isScoreLayerClass(const CXXRecordDecl *RD);

/// True if \p RD is one of LibTorch's layers with learnable weights whose
/// forward saves its input for the backward (torch::nn::LinearImpl,
/// Conv2dImpl, LSTMImpl, BatchNorm2dImpl, ...).
bool moduleSavesInput(const CXXRecordDecl *RD);

/// The Impl class of a module type: `torch::nn::Softmax` (a holder, or a
/// class derived from one) gives torch::nn::SoftmaxImpl; any other class is
/// its own.
const CXXRecordDecl *moduleImplOf(QualType T);

/// The layer \p E, a Sequential's constructor argument, names: the layer
/// itself, the first (or with \p Last the last) of a list of named layers
/// (`{{"fc", Linear(4, 3)}, {"softmax", Softmax(1)}}`: an initializer_list
/// of NamedAnyModule), or the layer a NamedAnyModule / AnyModule wraps.
const Expr *sequentialLayerOf(const Expr *E, bool Last);

/// The first layer's Impl class of the torch::nn::Sequential whose forward
/// \p Forward runs, when that Sequential is built with its layers in place:
/// a variable or member constructed with them (`torch::nn::Sequential
/// net(torch::nn::Linear(4, 3), ...)`, `{{"fc", Linear(4, 3)}, ...}`), or a
/// member its class's constructors assign once (`net =
/// register_module("net", torch::nn::Sequential(...))`). Null otherwise.
const CXXRecordDecl *sequentialFirstLayer(const CallExpr &Forward);

/// The construction of that Sequential, with its layers (see
/// sequentialFirstLayer); null otherwise.
const CXXConstructExpr *sequentialConstructionOf(const CallExpr &Forward);

/// The construction, with its arguments, of the module whose forward
/// \p Forward runs, found where sequentialConstructionOf finds a Sequential's:
/// the variable's initialiser (`torch::nn::Softmax probs(1);`), the member's
/// default initialiser, or the one construction its class's constructors give
/// it (a member initialiser or `m = register_module("m",
/// torch::nn::Softmax(1));`). Not a copy of another holder, `{nullptr}` or a
/// holder made from a pointer. Null when there is none, or when constructors
/// disagree.
const CXXConstructExpr *moduleConstructionOf(const CallExpr &Forward);

/// The operation-table spelling of the loss \p Loss computes: the function's
/// name (cross_entropy, nll_loss, also for an unresolved call in a template),
/// or for a loss module's forward the function the module applies
/// (torch::nn::CrossEntropyLoss: cross_entropy, NLLLoss: nll_loss); empty
/// when it is neither.
StringRef lossOpName(const CallExpr &Loss);

/// `c10::IValue::toTensor()`: the tensor a TorchScript module's forward
/// returned.
bool isIValueToTensorCall(const CallExpr &Call);

// --- Devices, tensor options, data loaders
// --------------------------------------------------

/// True if \p T (through references and cv-qualifiers) is c10::TensorOptions
/// (at::TensorOptions, torch::TensorOptions).
bool isTensorOptionsType(QualType T);

/// What a device constant names.
enum class DeviceConstant { NotConstant, Cpu, Other };

/// The device a constant names, as written: c10::kCPU, c10::DeviceType::CPU
/// and "cpu" are Cpu; kCUDA, DeviceType::CUDA, "cuda:1", ... are Other;
/// through implicit conversions and a c10::Device constructed from one.
/// NotConstant for anything else (a variable, a call).
DeviceConstant deviceConstantOf(const Expr *E);

/// The device argument of a call that moves a module's parameters:
/// `model->to(device)`, `model.to(torch::kCUDA, torch::kHalf)`
/// (torch::nn::Module::to, torch::jit::Module::to), or, in a template, a
/// still-dependent `model->to(d)` whose first argument is a device. Null for
/// any other call (`model->to(torch::kFloat)` converts the dtype only).
const Expr *moduleMoveDevice(const CallExpr &Call);

/// For torch::load(value, path, ...) and torch::jit::load(path, ...): the
/// device argument as written, or null when the call passes none (or an empty
/// optional). Nullopt for any other call.
std::optional<const Expr *> loadCallDevice(const CallExpr &Call);

/// True if \p RD is, or derives from, torch::data::DataLoaderBase (what
/// torch::data::make_data_loader makes).
bool isDataLoaderClass(const CXXRecordDecl *RD);

/// True if \p RD is torch::data::Example (a data set's example or, stacked, a
/// batch: `.data`, `.target`).
bool isDataExampleClass(const CXXRecordDecl *RD);

// --- Grad mode
// -------------------------------------------------------------------

/// The grad mode a guard variable sets for its scope.
enum class GradModeEffect { None, Disables, Enables, Unknown };

/// What \p VD does to grad mode: torch::NoGradGuard and c10::InferenceMode
/// (no argument or `true`) disable it; AutoGradMode(false) disables it,
/// AutoGradMode(true) enables it; a non-constant argument is Unknown.
GradModeEffect gradModeEffectOf(const VarDecl &VD);

/// `c10::GradMode::set_enabled(...)`: grad mode managed by hand.
bool isGradModeSetCall(const CallExpr &Call);

// --- Matchers
// --------------------------------------------------------------------

AST_MATCHER(CallExpr, isModuleForward) { return isModuleForwardCall(Node); }
AST_MATCHER(CallExpr, isLoss) { return isLossCall(Node); }
AST_MATCHER(CallExpr, isBackward) { return isBackwardCall(Node); }
AST_MATCHER(CallExpr, isAutogradGrad) { return isAutogradGradCall(Node); }
AST_MATCHER(CallExpr, isDependentBackward) {
  return isDependentBackwardCall(Node);
}
AST_MATCHER(CallExpr, isOptimizerStep) { return isOptimizerStepCall(Node); }
AST_MATCHER(CallExpr, isHistoryRemoving) { return isHistoryRemovingCall(Node); }
AST_MATCHER(CallExpr, isInPlaceTensorWrite) {
  return inPlaceWriteTarget(Node) != nullptr;
}
AST_MATCHER(CallExpr, isTensorFromValues) {
  return isTensorFromValuesCall(Node);
}
/// Matches factory calls (torch::full, torch::zeros, ...): `torch::full({},
/// x)` builds a tensor from a host value.
AST_MATCHER(CallExpr, isTensorFactory) { return isTensorFactoryCall(Node); }
/// Matches expressions whose type is at::Tensor (through references/typedefs).
AST_MATCHER(Expr, isTensorExpr) { return isTensorType(Node.getType()); }

} // namespace clang::tidy::torch

#endif
