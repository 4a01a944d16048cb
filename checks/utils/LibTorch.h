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
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

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

/// Matches nodes whose expansion location is user code (see isInUserCode).
AST_POLYMORPHIC_MATCHER(isExpansionInUserCode,
                        AST_POLYMORPHIC_SUPPORTED_TYPES(Decl, Stmt, TypeLoc)) {
  return isInUserCode(Node.getBeginLoc(),
                      Finder->getASTContext().getSourceManager());
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
/// A lambda's body sees its own parameters, not the enclosing function's.
llvm::SmallVector<const VarDecl *, 4>
visibleLocalVariables(const Stmt &S, ASTContext &Ctx,
                      llvm::function_ref<bool(const VarDecl &)> Pred);

} // namespace clang::tidy::torch

#endif
