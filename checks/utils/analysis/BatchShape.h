//===--- BatchShape.h - a tensor's batch dimension and rank -----*- C++ -*-===//
//
// What is known of a tensor's leading batch dimension and of its rank: is
// dimension 0 of its value the samples of a batch, and how many dimensions
// does it have (at least; exactly when known)?
//
// The answer is "batched" only on evidence, followed back from the
// expression as written:
//
//   * a data loader's batch: a tensor field of the variable of a range-for
//     over a data loader (`for (auto &batch : *loader) ... batch.data`,
//     DevicePlacement::isLoaderBatchField). `data` stacks examples that are
//     at least vectors: rank >= 2; `target` may stack scalar labels: rank
//     >= 1;
//   * flattening every dimension but the first (`x.flatten(1)`,
//     `torch::flatten(x, 1)`): exactly `[batch, features]`, rank 2, whatever
//     x is: it is how a batch is prepared for a linear layer;
//   * a view or reshape with a braced list of at least two sizes (its rank)
//     whose leading size keeps dimension 0: `x.view({x.size(0), -1})` (the
//     operand's own size(0), on any operand), `y.size(0)` of a batched y or
//     a local integer every definition of which is one, or `-1` when the
//     operand is itself batched (`x.view({-1, 320})`);
//   * what keeps the layout of a batched operand (BatchLayout.def): the
//     elementwise operations and activations, dropout, normalisation,
//     conversions, linear maps (same rank); arithmetic with other tensors
//     (`x * w + bias`) when one operand is batched and none is known to be
//     anything else (a broadcast operand is taken to broadcast onto the
//     batch, as a bias or a scale does; the exact rank is then not kept);
//   * the output of a layer applied to a batched input: LibTorch's layers of
//     BatchLayout.def (Linear, Conv1d/2d/3d, BatchNorm, Dropout, activations:
//     same rank), a torch::nn::Sequential built with its layers in place (the
//     layers folded in order), and a module of the user's: its forward's
//     returns evaluated with its first parameter bound to the input's shape,
//     when every return agrees. The rule for modules: a module's forward
//     keeps the batch dimension in the first position. When the returns say
//     nothing (a Sequential or forward whose layers are not known), the
//     output is batched with its rank unknown (at least 1).
//
// Local variables are followed through every definition the function gives
// them (DevicePlacement::definitionsOf: the initialiser, every assignment,
// in any order, lambda bodies included); every definition must be batched,
// and the minimum and exact ranks are joined. A variable whose shape may
// change in a way not listed (passed on by non-const reference, an in-place
// operation that changes the shape such as `unsqueeze_`/`t_`/`resize_`) is
// unknown. A field or element of a local is followed through every value
// stored there (PathValues.h); local references to a variable are the
// variable. A conditional expression is the join of its branches.
//
// Not evidence (unknown, never "not batched"): factories with explicit sizes
// (`torch::randn({4, 10})`: rank 2, but dimension 0 may be anything),
// parameters and members, indexing and selection (`x[i]`, `select(0, i)`,
// `squeeze`, `narrow`), reductions (`sum(1)`), and layout changes
// (`t()`, `transpose`, `permute`, `unsqueeze`, `matmul`).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_BATCHSHAPE_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_BATCHSHAPE_H

#include "utils/analysis/DevicePlacement.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>

namespace clang::tidy::torch {

/// A tensor whose dimension 0 indexes the samples of a batch.
struct BatchShape {
  /// Where the batch was seen to be one.
  enum class Source {
    LoaderBatch, ///< A data loader batch's field (`batch.data`).
    Flatten,     ///< `x.flatten(1)`: `[batch, features]`.
    View,        ///< `x.view({x.size(0), -1})`, `x.reshape({-1, 320})`.
  };
  /// The rank is at least this.
  unsigned MinRank = 1;
  /// The rank, when it is known exactly.
  std::optional<unsigned> Rank;
  Source Kind = Source::LoaderBatch;
  /// The expression that shows it (the loader batch's field, the flatten or
  /// view call).
  const Expr *Evidence = nullptr;
};

class BatchShapeAnalysis {
public:
  explicit BatchShapeAnalysis(ASTContext &Ctx) : Ctx(Ctx), Places(Ctx) {}

  /// The batch \p E is, on the evidence above; nullopt when nothing shows
  /// that its dimension 0 indexes the samples of a batch.
  std::optional<BatchShape> batchShapeOf(const Expr *E);

  /// Evaluates a function's body at one of its calls: parameter \p P holds
  /// the shape of the caller's argument \p Arg (a helper that takes the
  /// batch). Cleared by clearBindings().
  void bindArgument(const ParmVarDecl *P, const Expr *Arg);
  void clearBindings() { Bound.clear(); }

private:
  /// One step's answer: Pending while a variable is followed through its
  /// own definition (`x = x.relu()`): neutral in a join.
  struct Shape {
    enum Kind { Unknown, Pending, Batched } K = Unknown;
    BatchShape S;
  };
  static Shape join(const Shape &A, const Shape &B);
  static Shape batched(BatchShape S) { return {Shape::Batched, S}; }
  /// The same batch with another rank (exact when \p Rank is set).
  static Shape withRank(const Shape &In, unsigned MinRank,
                        std::optional<unsigned> Rank);

  Shape shape(const Expr *E, unsigned Depth);
  Shape variableShape(const VarDecl &VD, unsigned Depth);
  Shape callShape(const CallExpr &Call, unsigned Depth);
  Shape viewShape(const Expr &View, const Expr *Operand, const Expr *Sizes,
                  unsigned Depth);
  Shape forwardShape(const CallExpr &Forward, unsigned Depth);
  Shape layerShape(const CXXRecordDecl *Impl, const Shape &In);
  /// True if \p E (a size) is dimension 0's size of a batched tensor:
  /// `y.size(0)`, or a local integer every definition of which is.
  bool isBatchSize(const Expr *E, unsigned Depth);
  /// True if the function changes \p VD's shape in place (`x.unsqueeze_(0)`).
  bool reshapedInPlace(const VarDecl &VD);

  ASTContext &Ctx;
  /// Definitions of local variables and data loader batches.
  DevicePlacement Places;
  /// The parameters of a module forward being evaluated, bound to the shape
  /// of the call's argument.
  llvm::DenseMap<const ParmVarDecl *, Shape> Bound;
  llvm::SmallPtrSet<const VarDecl *, 4> Visiting;
  llvm::SmallPtrSet<const FunctionDecl *, 2> Evaluating;
  llvm::DenseMap<const VarDecl *, bool> InPlaceReshapes;
};

} // namespace clang::tidy::torch

#endif
