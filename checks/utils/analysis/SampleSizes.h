//===--- SampleSizes.h - do a data set's sample sizes vary? ----*- C++ -*-===//
//
// Two questions about a torch::data::datasets::Dataset of the user's code:
//
// 1. Which data set does a `map(torch::data::transforms::Stack<...>())` stack
//    (stackedDataset)? The map's object (or the free function
//    `torch::data::datasets::map`'s first argument), through MapDatasets of
//    `torch::data::transforms::Normalize` (sizes kept); any other transform
//    between the two may change sizes and ends the search. The class must
//    derive (directly or through templates) from
//    `torch::data::datasets::Dataset<Self, Example>` and define `get(size_t)`
//    in the translation unit (datasetGetDefinition). BatchDatasets (whole
//    batches from get_batch) are not followed.
//
// 2. Where do the sizes of a tensor that get() returns come from
//    (SampleSizes::sizesOf)? The tensor is followed back through local
//    variables (the definitions that reach the use on some path of clang's
//    CFG: BodyPaths::reaches) and through operations that keep sizes
//    (permute, transpose, contiguous, clone, to, toType, div, mul, add, sub,
//    arithmetic operators, unsqueeze, squeeze, flatten, view/reshape with a
//    -1, pointwise math, detach, cpu) to where its sizes were chosen:
//
//    Varies with the sample (Origin::Image / Origin::Sequence):
//    - a size list (`torch::from_blob(ptr, {m.rows, m.cols, 3})`, the sizes of
//      `zeros/ones/empty/full/rand/randn`) with an element that varies: the
//      `rows`/`cols` of a cv::Mat that `cv::imread`/`cv::imdecode` produced in
//      get() (through copies, `clone()`, `cvtColor`, `convertTo`, `copyTo`,
//      `GaussianBlur`, `blur`, `medianBlur`, `flip`, `normalize`, and
//      `cv::resize` with `cv::Size()` and scale factors), or the `size()` of a
//      sequence that varies; through casts, arithmetic, `std::min/max` and
//      local integers;
//    - `torch::tensor(v)` of a sequence (std::vector, std::deque, std::string)
//      whose length varies: filled by appends (push_back, emplace_back,
//      insert, ...) inside a loop of get() driven by the sample (its condition
//      reads a stream with `>>` or `std::getline`, or tests the size of a
//      varying sequence or the rows/cols of a varying image; a range-for over
//      a varying sequence), read from a stream (`std::getline(s, v)`,
//      `s >> v`), or an element of a member container indexed by an
//      expression that reads get()'s parameter (`sentences_[index]`, `.at()`),
//      directly, copied into a local or bound to a reference.
//    - `channels()` is not a varying size (the imread flags decide it).
//
//    Fixed (Origin::Fixed): every size a constant, a scalar member of the data
//    set (its configuration), a constant variable, or a value normalised on
//    every path: `cv::resize(src, dst, cv::Size(W, H))` with fixed W, H (a
//    definition of dst), `v.resize(N)` / `v.assign(N, x)` / `std::vector<T>
//    v(N)` with fixed N, `torch::tensor` of a std::array, a braced list or a
//    scalar, `F::interpolate(x, F::InterpolateFuncOptions().size(...))` with
//    fixed sizes, `F::pad` / `torch::constant_pad_nd` whose amounts are each 0
//    or `L - <anything>` with L fixed (padding up to L), view/reshape to fixed
//    sizes (they throw otherwise).
//
//    Unknown (not reported): a sequence after a loop that appends to it while
//    its condition tests it (`while (v.size() < L) v.push_back(0);`: padding;
//    the test is a definition whose value is not modelled), and anything
//    else: a parameter, a tensor member, a
//    user function's result, a crop (`narrow`, `slice`, `index`, a cv::Mat
//    region) of a varying value, a variable written through a reference or
//    pointer, or captured by a lambda.
//
//    Definitions that reach a use join: Varying if one of them varies, Fixed
//    if all are fixed, Unknown otherwise. So a resize inside an `if` leaves
//    the path through the other branch, where the image keeps its size.
//
// No check policy in it.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_SAMPLESIZES_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_SAMPLESIZES_H

#include "utils/analysis/Paths.h"
#include "utils/ast/BodyParents.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch {

/// The user's data set class whose examples \p Map (a call of `map` with a
/// `torch::data::transforms::Stack` argument) stacks; null when \p Map is
/// not such a call or the data set is not one of the user's with a get().
const CXXRecordDecl *stackedDataset(const CallExpr &Map);

/// The definition of get(size_t) of \p Dataset (or of a base class of the
/// user's between it and torch::data::datasets::Dataset); null when the
/// translation unit has none.
const FunctionDecl *datasetGetDefinition(const CXXRecordDecl &Dataset);

/// A tensor a get() puts into the example it returns.
struct ExampleTensor {
  const Expr *Value = nullptr;
  bool IsTarget = false;
};

/// The data and target tensors of every example \p Get returns: `return {a,
/// b};`, `return torch::data::Example<>(a, b);`, or a returned local example
/// constructed with them or assigned field by field (`e.data = x;`).
llvm::SmallVector<ExampleTensor, 4> returnedExampleTensors(
    const FunctionDecl &Get);

/// Where a tensor's sizes were chosen.
struct SizeOrigin {
  enum Kind { Unknown, Fixed, Image, Sequence };
  Kind K = Unknown;
  /// For Image and Sequence: the read of the sample (the imread call, the
  /// element of the member, the stream read) or the loop that fills it.
  const Stmt *Source = nullptr;

  bool varies() const { return K == Image || K == Sequence; }
};

/// The sizes analysis of one get() body.
class SampleSizes {
public:
  SampleSizes(const FunctionDecl &Get, ASTContext &Ctx, BodyParents &Parents);

  /// Where the sizes of the tensor \p E (an expression in get()'s body) come
  /// from.
  SizeOrigin sizesOf(const Expr *E) { return tensor(E, 0); }

private:
  struct Definition {
    const Stmt *At = nullptr;     ///< The statement that defines (in the CFG).
    const Expr *Value = nullptr;  ///< Initialiser or assigned value, if any.
    const CallExpr *Call = nullptr; ///< A call that writes the variable.
    bool ThroughObject = false;   ///< The variable is the call's object.
  };
  struct Definitions {
    llvm::SmallVector<Definition, 4> List;
    bool Opaque = false; ///< Written in a way not modelled (alias, lambda).
  };

  SizeOrigin tensor(const Expr *E, unsigned Depth);
  SizeOrigin sizeList(const Expr *E, unsigned Depth);
  SizeOrigin scalar(const Expr *E, unsigned Depth);
  SizeOrigin mat(const Expr *E, unsigned Depth);
  SizeOrigin sequence(const Expr *E, unsigned Depth);
  SizeOrigin tensorFromValues(const Expr *E, unsigned Depth);
  SizeOrigin padded(const Expr *Operand, const Expr *Amounts, unsigned Depth);
  /// An append into \p Appended in a loop of get() driven by the sample;
  /// Unknown with the loop as Source for a loop that tests \p Appended's
  /// own size (padding).
  SizeOrigin drivingLoop(const Stmt &Append, const VarDecl &Appended,
                         unsigned Depth);

  /// Joins what each definition of local \p Var reaching \p Use gives.
  SizeOrigin throughVariable(
      const VarDecl &Var, const Expr &Use, unsigned Depth,
      llvm::function_ref<SizeOrigin(const Definition &)> Each);
  const Definitions &definitionsOf(const VarDecl &Var);
  bool isLocal(const VarDecl &Var) const;

  const FunctionDecl &Get;
  ASTContext &Ctx;
  BodyParents &Parents;
  BodyPaths Paths;
  llvm::DenseMap<const VarDecl *, Definitions> Defs;
  /// Definitions being evaluated (a loop's append reaches itself).
  llvm::DenseSet<const Stmt *> Active;
};

} // namespace clang::tidy::torch

#endif
