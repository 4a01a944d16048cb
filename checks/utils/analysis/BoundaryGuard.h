//===--- BoundaryGuard.h - is a value kept away from a boundary? ----------===//
//
// The analysis behind torch-missing-epsilon: it computes the abstract value
// (ValueRange.h) of an expression. Given the argument of an
// operation that is singular at a boundary (sqrt, log, a negative power at 0;
// acos, asin at -1 and 1), decide from the expression as written, and through
// local variables from the writes that reach the use, whether
//   * something keeps it away from the boundary (`+ eps`, `+ 1`, clamp,
//     clamp_min, max(x, eps), exp, softplus, sigmoid, an epsilon-like name),
//   * its form lets it reach the boundary (a norm, a reduction, a sum of
//     squares, abs, relu, a softmax; a cosine similarity, a clamp to [-1, 1]),
//   * or nothing is visible about it (a parameter, a member, the result of a
//     user function).
// Every LibTorch function and Tensor method is recognised by its qualified
// name (asLibTorchCall), also when a call inside a template is still an
// unresolved lookup; what each operation does to a value near a boundary is
// read from the operation table (Ops.def).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_BOUNDARYGUARD_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_BOUNDARYGUARD_H

#include "utils/analysis/ValueRange.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Regex.h"
#include <optional>

namespace clang::tidy::torch {

/// What a denominator is, when it is one of the forms that can be 0: a norm,
/// a reduction (sum, mean, std, var), a square root, or a product of those.
struct DenominatorInfo {
  /// Empty when the denominator is not of such a form.
  StringRef What;
  /// Something keeps it away from 0 (`+ eps`, a reduction of exp, ...).
  bool Guarded = false;
  /// >= 0 by its form: `+ eps` is the unambiguous fix.
  bool NonNegative = false;
  const VarDecl *Through = nullptr;
  /// A square root of a value nothing is known about (a parameter, a
  /// member): reported only in StrictMode.
  bool OperandUnknown = false;
  /// For a sum or mean of values nothing is known about: its operand (the
  /// check tells a masked average, `(v * m).sum() / m.sum()`, from others).
  const Expr *SumTerms = nullptr;
};

class BoundaryAnalysis {
public:
  /// \p EpsilonNames matches the names of epsilon-like variables, members and
  /// accessors (eps, kEps, options.eps()).
  /// With \p Parents, a variable's value at a use is what its last write on
  /// the path gives it (a later `x = x + eps` guards, `x = x.sum(1)` replaces
  /// the declaration); without, it is the join of all its definitions.
  BoundaryAnalysis(ASTContext &Ctx, const llvm::Regex &EpsilonNames,
                   BodyParents *Parents = nullptr)
      : Ctx(Ctx), EpsilonNames(EpsilonNames), Parents(Parents) {}

  const ASTContext &context() const { return Ctx; }

  /// Can \p E reach 0 (from above)? For sqrt, rsqrt, log, pow bases.
  ReachResult nearZero(const Expr *E);

  /// Can \p E reach -1 or 1? For acos and asin.
  ReachResult nearUnit(const Expr *E);

  /// Classifies the denominator \p E of a division.
  DenominatorInfo denominator(const Expr *E);

  /// The value of \p E if it is a constant of arithmetic type.
  std::optional<double> constantValue(const Expr *E) const;

  /// The definition of local variable \p VD, if it has exactly one.
  const Expr *definitionOf(const VarDecl *VD);

  /// The definition of local variable \p VD that reaches \p Use, if exactly
  /// one does.
  const Expr *definitionAt(const VarDecl *VD, const Expr *Use);

  /// True if at \p Use the parameter \p P still holds the caller's argument:
  /// its writes are all known and none reaches the use (`pred =
  /// pred.view(...)` reads the caller's value on its right).
  bool holdsArgumentAt(const ParmVarDecl *P, const Expr *Use);

  /// True if \p E names an epsilon-like variable, member or accessor, or is
  /// built from one (`-1 + eps`, `1 - kEps`).
  bool mentionsEpsilon(const Expr *E) const;

  /// True if \p E has no autograd history, so that no gradient flows
  /// through an operation on it: it is made only of constants, host scalars,
  /// fresh tensors (arange, linspace, rand, zeros, torch::tensor) that no
  /// factory option or requires_grad_() makes leaves requiring grad, detached
  /// values and results of operations without a gradient (argmax, eq), and of
  /// LibTorch operations on such values (meshgrid of aranges), through local
  /// variables whose every write is visible. A parameter, a member, a global
  /// or a user function's result may have history.
  bool withoutHistory(const Expr *E);

  /// True if \p E is computed in the function by tensor arithmetic or
  /// LibTorch operations (through local variables, on every definition):
  /// not a parameter, a member, a global or a user function's result as it
  /// is. For acos/asin: such a value is meant to be a cosine, and nothing
  /// keeps it inside (-1, 1).
  bool computedHere(const Expr *E, unsigned Depth = 0);

private:
  /// True if \p E is computed from data: a parameter, a member, a global, a
  /// forward or a user function's result (through local variables), not
  /// only from fresh tensors (rand, zeros, torch::tensor) and constants.
  bool fromData(const Expr *E, unsigned Depth);

public:

private:
  ReachResult zero(const Expr *E, unsigned Depth);
  /// zero() of `a + b`, `a - b`, `a * b`, `a / b` in any spelling.
  ReachResult zeroArithmetic(BinaryOperatorKind Op, const Expr *LHS,
                             const Expr *RHS, unsigned Depth);
  /// `LHS Op RHS` is |a|^2 + |b|^2 - 2 a.b in some order of its terms.
  bool expandedSquaredDistance(BinaryOperatorKind Op, const Expr *LHS,
                               const Expr *RHS, unsigned Depth);
  /// zero() of a LibTorch operation.
  ReachResult zeroOperation(const LibTorchCall &C, unsigned Depth);
  ReachResult zeroPow(const LibTorchCall &C, unsigned Depth);
  /// zero() of a local variable: the join of its definitions.
  ReachResult zeroVariable(const Expr *E, unsigned Depth);
  /// mayHaveHistory() of withoutHistory(); \p Seen holds the definitions
  /// being followed.
  bool mayHaveHistory(const Expr *E, unsigned Depth, unsigned &Budget,
                      llvm::SmallPtrSetImpl<const Expr *> &Seen);
  /// zero() of clamp_max(X, Max) (or clamp(X, nullopt, Max)).
  ReachResult zeroClampMax(const Expr *X, const Expr *Max, unsigned Depth);
  /// Which sides of (-1, 1) \p E is kept inside of: by a clamp bound
  /// strictly inside, or (the lower side) by being >= 0 (|x|, a norm).
  void unitSides(const Expr *E, unsigned Depth, bool &Lower, bool &Upper);
  /// Does \p E reach -1 or 1 (a cosine, sin, tanh)?
  bool reachesUnit(const Expr *E, unsigned Depth) {
    return unit(E, Depth).State == Reach::Reaches;
  }
  ReachResult unit(const Expr *E, unsigned Depth);
  DenominatorInfo denom(const Expr *E, unsigned Depth);
  /// |X| or X^2: reaches 0 where X does, or where X is a difference.
  ReachResult magnitude(const Expr *X, unsigned Depth);
  /// Can \p E saturate at 1 (sigmoid, softmax, cosine similarity)?
  bool reachesOne(const Expr *E, unsigned Depth);
  /// A positive margin: a positive constant or an epsilon-like name.
  bool isPositiveMargin(const Expr *E) const;
  /// If \p E names a local variable whose definitions are all known, returns
  /// those that reach \p E and are not being followed already (in Visiting;
  /// the caller adds each while it follows it) and sets \p Through.
  llvm::SmallVector<const Expr *, 2> followVariable(const Expr *E,
                                                    const VarDecl *&Through);
  /// How a function writes a local variable.
  struct VariableWrites {
    /// False when it is modified where its value cannot be followed
    /// (aliased, passed by reference, address taken).
    bool Known = false;
    const Expr *Init = nullptr;
    llvm::SmallVector<std::pair<const Expr *, const Expr *>, 2> Writes;
  };
  const VariableWrites &writesOf(const VarDecl *VD);
  /// The values local variable \p VD can hold at \p Use: the last write that
  /// every path to \p Use passes (or the declaration), the writes between it
  /// and \p Use, and in a loop around \p Use the writes after it. A value is
  /// the written expression: the right-hand side of `=`, the whole `x += e`
  /// or `x.add_(e)` for updates. Without a use or BodyParents: every write.
  llvm::SmallVector<const Expr *, 2> definitionsAt(const VarDecl *VD,
                                                   const Expr *Use);
  /// True if \p Write is a statement of its own in a block that \p Use comes
  /// later in, with no label between them: every path to \p Use passes it.
  bool dominates(const Expr *Write, const Expr *Use, const FunctionDecl &Fn);

  ASTContext &Ctx;
  const llvm::Regex &EpsilonNames;
  BodyParents *Parents;
  llvm::DenseMap<const VarDecl *, VariableWrites> Writes;
  /// The definitions being followed (a loop-carried update reads itself).
  llvm::SmallPtrSet<const Expr *, 8> Visiting;
  /// Steps left in the current query. Following every definition of every
  /// variable is exponential in the number of writes when variables are
  /// assigned from each other many times; past the budget nothing more is
  /// known (as past the depth limit).
  unsigned StepsLeft = 0;
  bool takeStep() { return StepsLeft && StepsLeft--; }
};

} // namespace clang::tidy::torch

#endif
