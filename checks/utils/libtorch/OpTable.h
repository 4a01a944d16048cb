//===--- OpTable.h - facts about LibTorch tensor operations ----*- C++ -*-===//
//
// The LibTorch tensor operations the checks know, as data (Ops.def): for each
// spelling, what it does to autograd history, whether it reads values out of a
// tensor or builds one from host values, how it moves a value towards or away
// from a numeric boundary, and at which input it is itself singular.
//
// Every check and analysis asks this table instead of keeping a list of names
// of its own. The table is only consulted for a call already recognised as
// LibTorch's by its qualified name (LibTorch.h: asLibTorchCall,
// isLibTorchFunction), never for a user function that shares a spelling.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_LIBTORCH_OPTABLE_H
#define TORCH_TIDY_CHECKS_UTILS_LIBTORCH_OPTABLE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace clang::tidy::torch {

namespace op {

/// What an operation is, one bit each. Names are what the operation means to
/// a LibTorch user; Ops.def combines them.
enum Role : std::uint64_t {
  // --- Autograd -------------------------------------------------------------
  /// The result keeps its tensor operands' autograd history (evidence that
  /// the result has history when an operand has).
  Differentiable = 1ull << 0,
  /// The result never has history: detach(), item(), data().
  RemovesHistory = 1ull << 1,
  /// Copies or exposes the tensor's values to host code (item, data_ptr,
  /// accessors).
  ReadsValues = 1ull << 2,
  /// Builds a tensor from host values (torch::tensor, torch::from_blob): the
  /// result has no history.
  FromValues = 1ull << 3,
  /// A factory that makes a fresh tensor from shapes and fill values (zeros,
  /// ones_like, ...): no history, whatever its arguments have.
  Fresh = 1ull << 4,
  /// A loss function (at::, torch::, torch::nn::functional::).
  Loss = 1ull << 5,
  /// An in-place spelling (`exp_`): writes into its object.
  InPlace = 1ull << 6,
  /// In place, but every value stays as it was (unsqueeze_, detach_).
  KeepsValues = 1ull << 7,
  /// No gradient flows through it and its result never has history: integer
  /// and boolean results (argmax, eq, isnan, nonzero) and fresh tensors made
  /// by a method of another (new_zeros). Marks an operation as known, so the
  /// default for operations missing from the table (unknownOpDefault) does
  /// not apply to it.
  NotDifferentiable = 1ull << 8,

  // --- What the backward pass needs (derivatives.yaml, measured on LibTorch
  // 1.13 by test/runtime/torch-inplace-on-saved-tensor_test.cpp) -----------
  /// Saves its result for its backward (sigmoid, tanh, exp, relu, softmax,
  /// log_softmax, sqrt, rsqrt, norm): writing into the result in place before
  /// the backward makes it throw.
  SavesOutput = 1ull << 40,
  /// Saves its own input for its own gradient (log, sin, cos, abs, square,
  /// norm, pow with a scalar exponent): the input is saved when it requires
  /// grad.
  SavesInput = 1ull << 41,
  /// Saves each tensor operand for the gradient of the other one (mul, div,
  /// mm, bmm, matmul, linear): an operand is saved when another tensor
  /// operand requires grad; a scalar operand saves nothing.
  SavesOperands = 1ull << 42,

  // --- Storage (torch-from-blob-outlives-buffer) ------------------------------
  /// Wraps memory it is given without copying or owning it (from_blob): the
  /// tensor is only valid while that memory lives.
  WrapsMemory = 1ull << 56,
  /// The result may share its operand's storage: a view (view, permute,
  /// select, squeeze, ...) or the operand itself (cpu() on a CPU tensor).
  SharesStorage = 1ull << 57,
  /// A view whose strides are permuted or broadcast (permute, transpose, t,
  /// expand): never contiguous, so contiguous() or reshape() of it copies.
  StridedView = 1ull << 58,
  /// Shares storage with a contiguous operand and copies a strided one
  /// (contiguous, reshape, flatten).
  CopiesIfStrided = 1ull << 59,
  /// A conversion that returns its operand itself unless the dtype or the
  /// device changes or a copy is asked for (to, toType).
  Converts = 1ull << 60,

  // --- Values and boundaries ------------------------------------------------
  /// A view or copy of the operand's values (shape, dtype, device,
  /// selection): how close to a boundary the values are is unchanged.
  ValuePreserving = 1ull << 10,
  /// detach()/detach_(): only the value, not the gradient, matters after it.
  Detach = 1ull << 11,
  /// A norm or distance: >= 0, and 0 at a zero vector or equal inputs.
  Norm = 1ull << 12,
  /// A loss that is 0 when prediction equals target.
  DistanceLoss = 1ull << 13,
  /// std / var: >= 0, 0 for constant input.
  Spread = 1ull << 14,
  /// A reduction that is 0 where its operand is 0 everywhere (sum, mean,
  /// prod, cumsum, amax, ...).
  SumLike = 1ull << 15,
  /// sum / mean / prod (and their nan-ignoring forms): a denominator that can
  /// be 0 unless every term is strictly positive.
  Sum = 1ull << 16,
  /// > 0 for every finite input (exp, softplus, sigmoid, cosh).
  Positive = 1ull << 17,
  /// clamp(x, lo, hi) / clip: bounded on both sides.
  Clamp = 1ull << 18,
  /// clamp_min(x, lo): bounded below.
  ClampMin = 1ull << 19,
  /// clamp_max(x, hi): bounded above.
  ClampMax = 1ull << 9,
  /// max/maximum/fmax: elementwise with a second tensor, or a reduction.
  Max = 1ull << 20,
  /// relu: exactly 0 for every negative input.
  Relu = 1ull << 21,
  /// |x| or x^2: 0 where x is.
  Magnitude = 1ull << 22,
  /// x^p: pow, float_power.
  Pow = 1ull << 23,
  /// sqrt: >= 0, 0 where its operand is.
  Sqrt = 1ull << 24,
  /// A probability vector (softmax): entries reach 0 and 1.
  Probability = 1ull << 25,
  /// softmax itself, which has a log_softmax twin.
  Softmax = 1ull << 26,
  /// masked_fill(mask, value): the fill value appears in the result.
  MaskedFill = 1ull << 27,
  /// A sum of products (mm, matmul, dot, conv2d, ...): positive for positive
  /// factors, 0 over a zero patch of squared magnitudes.
  Product = 1ull << 28,
  /// Can saturate at 1 (sigmoid, softmax, cosine similarity).
  SaturatesAtOne = 1ull << 29,
  /// Its value lies in [-1, 1] and reaches the ends (cosine similarity,
  /// sin, cos, tanh, a normalised vector's entries).
  BoundedUnit = 1ull << 30,
  /// A sum of products or a reduction (mm, matmul, linear, sum): reaches +-1
  /// where a factor does (the rows of normalised vectors give cosines).
  UnitSum = 1ull << 31,
  /// Arithmetic in function or method spelling: a.add(b), at::mul(a, b).
  Add = 1ull << 32,
  Sub = 1ull << 33,
  Mul = 1ull << 34,
  Div = 1ull << 35,

  // --- Probabilities and losses ----------------------------------------------
  /// log_softmax: log-probabilities.
  LogSoftmax = 1ull << 36,
  /// A loss that applies log_softmax to its input itself (cross_entropy): it
  /// takes raw scores (logits).
  TakesLogits = 1ull << 37,
  /// A loss that takes log-probabilities (nll_loss): its input must come from
  /// log_softmax.
  TakesLogProbabilities = 1ull << 38,
  /// An affine map (linear): its output is raw scores, not probabilities.
  Affine = 1ull << 39,
  /// Returns a tuple; the other roles describe its first element
  /// (var_mean, std_mean: the variance or standard deviation, then the mean).
  TupleFirst = 1ull << 43,

  // --- Devices ---------------------------------------------------------------
  /// Converts to the device its arguments name (to, cuda): the result lives
  /// there; `to` with only a dtype keeps its operand's device.
  ToDevice = 1ull << 50,
  /// Copies to the CPU (cpu).
  ToCpu = 1ull << 51,
  /// A factory whose result takes its operand's device (and shape and dtype)
  /// unless its options name another (zeros_like, ones_like, ...).
  SameDeviceAsOperand = 1ull << 52,
};

/// The input at which an operation's value or gradient is infinite.
enum Boundary : std::uint8_t {
  NoBoundary,
  SqrtBoundary,     ///< sqrt: infinite gradient at 0.
  RsqrtBoundary,    ///< rsqrt: infinite at 0.
  LogBoundary,      ///< log, log2, log10: -inf at 0.
  PowBoundary,      ///< pow: at 0 for exponents in (0, 1) or below 0.
  UnitBoundary,     ///< acos, asin: infinite gradient at -1 and 1.
  DivisionBoundary, ///< division: infinite where the denominator is 0.
};

} // namespace op

/// One line of Ops.def.
struct OpInfo {
  llvm::StringRef Name;
  std::uint64_t Roles = 0;
  op::Boundary Boundary = op::NoBoundary;
};

/// The table's line for \p Name, or null if the operation is not known.
const OpInfo *lookupOp(llvm::StringRef Name);

/// What an out-of-place LibTorch operation that returns a tensor and is
/// missing from the table is taken to be (root 6: an unknown operation is not
/// opaque): differentiable, its result computed from its tensor operands
/// (keeping their history), and saving its input for its backward, as
/// elementwise activations (gelu, leaky_relu, silu, elu, mish) do. Nothing
/// about values or boundaries: the range analysis knows nothing of it.
/// Callers apply it through tensorOpOrDefaultOf (LibTorch.h), which decides
/// when a call is such an operation; its Name is empty.
const OpInfo &unknownOpDefault();

/// What an out-of-place operation missing from Ops.def is taken to be: the
/// facts PyTorch's derivatives.yaml states for it (AutogradOps.def: whether it
/// is differentiable, which tensors its backward saves) when it has an entry
/// there, else unknownOpDefault(). Its Name is the operation's.
const OpInfo &generatedOrDefaultOp(llvm::StringRef Name);

/// True if the operation spelled \p Name has any of \p Roles.
inline bool opHas(llvm::StringRef Name, std::uint64_t Roles) {
  const OpInfo *Info = lookupOp(Name);
  return Info && (Info->Roles & Roles) != 0;
}

/// The boundary of the operation spelled \p Name (op::NoBoundary if none or
/// unknown).
inline op::Boundary boundaryOf(llvm::StringRef Name) {
  const OpInfo *Info = lookupOp(Name);
  return Info ? Info->Boundary : op::NoBoundary;
}

/// True if the operation returns its result and writes into none of its
/// operands (no op::InPlace, op::KeepsValues or op::ReadsValues): a call whose
/// result is dropped does nothing.
inline bool isOutOfPlace(const OpInfo &Info) {
  return (Info.Roles & (op::InPlace | op::KeepsValues | op::ReadsValues)) == 0;
}

/// The in-place spelling of the out-of-place operation \p Name (`clamp` ->
/// `clamp_`): the table's line `Name_` when it is op::InPlace; null if there
/// is none.
const OpInfo *inPlaceTwinOf(llvm::StringRef Name);

/// Calls \p Fn on every line of the table, in the table's order.
void forEachOp(llvm::function_ref<void(const OpInfo &)> Fn);

} // namespace clang::tidy::torch

#endif
