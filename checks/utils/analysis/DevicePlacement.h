//===--- DevicePlacement.h - where tensors and modules live ----*- C++ -*-===//
//
// Which device a tensor or a module is on, from what its function shows.
//
// A tensor is on the CPU when it was made there and nothing moved it: a
// factory without a device in its options (torch::zeros, torch::randn, ...),
// torch::tensor, torch::from_blob, a data loader's batch (`batch.data`,
// `batch.target`), torch::load without a device, `.cpu()`; and whatever the
// operations that keep their operands' device (views, arithmetic, `.to(dtype)`,
// `*_like` without a device) compute from such tensors only. `.to(device)`,
// `.cuda()`, options with a device, a parameter, a member, a user function's
// result and a variable passed on by non-const reference are not known to be
// on the CPU: the analysis answers "on the CPU" only when it can show it.
//
// A module is on a device that may be a GPU after `module->to(device)` (or
// when torch::jit::load(path, device) made it), unless that device is provably
// the CPU (c10::kCPU, "cpu", a local variable every definition of which is).
//
// Local variables are followed through every value the function assigns to
// them, in any order (a variable assigned `x.to(device)` anywhere is not known
// to be on the CPU): "never moved on any path" is what the analysis proves.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_DEVICEPLACEMENT_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_DEVICEPLACEMENT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <optional>

namespace clang::tidy::torch {

class DevicePlacement {
public:
  explicit DevicePlacement(ASTContext &Ctx) : Ctx(Ctx) {}

  /// The expression that made \p E's value on the CPU (a factory call,
  /// torch::tensor, from_blob, a data loader batch's field, torch::load, a
  /// `.cpu()`), when every value \p E can have was made there and none was
  /// moved; null when it may live elsewhere.
  const Expr *cpuOrigin(const Expr *E);

  /// True if the device expression \p Device is provably the CPU: c10::kCPU,
  /// "cpu", torch::Device(torch::kCPU), or a local variable every definition
  /// of which is.
  bool isCpuDevice(const Expr *Device);

  /// Where a module was put on a device.
  struct Move {
    /// `model->to(device)`, or the torch::jit::load(path, device) that made
    /// it.
    const Expr *Site = nullptr;
    /// The device argument.
    const Expr *Device = nullptr;
  };

  /// The last place before \p Use (in \p Fn) where \p Module was put on a
  /// device that may be a GPU; for a member not moved in \p Fn, a move in
  /// its class's constructors. Nothing when it was not moved, or last moved
  /// to the CPU.
  std::optional<Move> moduleDeviceAt(const ValueDecl &Module, const Stmt &Use,
                                     const FunctionDecl &Fn);

  /// The variable a local reference names, through chains of references
  /// (`auto &x_ref = x;` is x); \p D itself otherwise.
  static const ValueDecl *aliasTarget(const ValueDecl *D);

  /// What the caller knows of one parameter of the function being evaluated
  /// at a call: the tensor argument is on the CPU, made there by Origin (an
  /// expression of the caller).
  struct ParamFact {
    const ParmVarDecl *Param = nullptr;
    const Expr *Origin = nullptr;
  };

  /// cpuOrigin, for an expression of a callee evaluated at one call: its
  /// tensor parameters are on the CPU where \p Facts says so (and unknown
  /// otherwise), as long as the callee does not assign them. \p UsedParam is
  /// set to the parameter whose fact the answer rests on (null when it rests
  /// on the callee's own tensors only).
  const Expr *cpuOriginAtCall(const Expr *E, llvm::ArrayRef<ParamFact> Facts,
                              const ParmVarDecl *&UsedParam);

  /// True if \p Fn (or a lambda in it) puts \p Module on a device
  /// (`m->to(d)`) or replaces it with a loaded module.
  bool movesModule(const ValueDecl &Module, const FunctionDecl &Fn);

  /// The module forward (not a loss) whose output \p E is, through local
  /// variables with one definition and operations that keep their operand's
  /// device; null if none.
  const CallExpr *forwardOrigin(const Expr *E);

  /// Every value a local variable can hold: its initializer, the values
  /// assigned to it, the torch::load calls that fill it, the data loader a
  /// range-for walks with it. Known is false when the function may change it
  /// in a way not listed (its address taken, a non-const reference to it).
  struct Definitions {
    bool Known = false;
    llvm::SmallVector<const Expr *, 2> Values;
    llvm::SmallVector<const CallExpr *, 1> Loads;
    /// The range of the range-for whose loop variable it is.
    const Expr *LoopRange = nullptr;
    /// Fields of it written (`batch.data = ...`) or passed on by non-const
    /// reference.
    llvm::SmallPtrSet<const ValueDecl *, 2> WrittenFields;
    /// A parameter: its value on entry comes from the caller (Values holds
    /// what the function assigns to it).
    bool Param = false;
  };
  const Definitions &definitionsOf(const VarDecl &VD);

  /// True if \p E is a tensor field (`batch.data`, `batch.target`) of the
  /// variable of a range-for over a data loader (torch::data::DataLoaderBase:
  /// what make_data_loader makes), a variable the function neither assigns
  /// nor changes that field of: one batch of stacked examples, whose
  /// dimension 0 indexes the samples.
  bool isLoaderBatchField(const Expr *E);
  /// The range an iterator loop walks, for the variable that reads its
  /// element (`auto &batch = *it;` with `it = range.begin()`); null otherwise.
  const Expr *iteratedRange(const VarDecl &Element);

private:
  /// The result of one step: on the CPU or not; Origin is null while a
  /// variable is being followed through itself (`x = x.view(...)`).
  struct Placement {
    bool Cpu = false;
    const Expr *Origin = nullptr;
  };
  enum class Options { NoDevice, Cpu, Unknown };

  Placement placement(const Expr *E, unsigned Depth);
  Placement variablePlacement(const VarDecl &VD, unsigned Depth);
  Placement callPlacement(const CallExpr &Call, const Expr *E, unsigned Depth);
  /// On the CPU if every operand is; \p SkipUndefined ignores undefined
  /// tensors among values stored in a location (at least one must be known).
  Placement allOnCpu(llvm::ArrayRef<const Expr *> Operands, unsigned Depth,
                     bool SkipUndefined = false);
  Options optionsPlacement(const Expr *E, unsigned Depth);
  bool cpuDevice(const Expr *E, unsigned Depth);
  ASTContext &Ctx;
  // Held by pointer: a definition is read while others are computed.
  llvm::DenseMap<const VarDecl *, std::unique_ptr<Definitions>> Defs;
  llvm::SmallPtrSet<const VarDecl *, 4> Visiting;
  /// Parameters whose definitions are being collected (recursion).
  llvm::SmallPtrSet<const VarDecl *, 4> Collecting;
  /// The caller's facts while cpuOriginAtCall runs.
  llvm::DenseMap<const ParmVarDecl *, const Expr *> Facts;
  const ParmVarDecl *UsedFact = nullptr;
};

} // namespace clang::tidy::torch

#endif
