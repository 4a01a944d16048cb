//===--- ClassIndexOutOfRangeCheck.cpp ------------------------------------===//
//
// torch-class-index-out-of-range: policy only. The values an index tensor may
// hold come from IntegerValues (utils/analysis/IntegerValues.h), the number
// of classes or rows from LayerWidth (utils/analysis/LayerWidth.h).
//
//===----------------------------------------------------------------------===//

#include "ClassIndexOutOfRangeCheck.h"
#include "utils/analysis/BoundaryGuard.h"
#include "utils/analysis/IntegerValues.h"
#include "utils/analysis/LayerWidth.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// The losses whose target is a class index per sample.
bool takesClassIndices(StringRef LossName) {
  return llvm::is_contained({"cross_entropy", "cross_entropy_loss",
                             "nll_loss", "nll_loss2d", "nll_loss_nd"},
                            LossName);
}

AST_MATCHER(CallExpr, indexUse) {
  if (isLossCall(Node))
    return takesClassIndices(lossOpName(Node));
  if (isModuleForwardCall(Node)) {
    const CXXRecordDecl *Impl = forwardModuleClass(Node);
    return Impl && Impl->getIdentifier() && Impl->getName() == "EmbeddingImpl";
  }
  std::optional<LibTorchCall> C = asLibTorchCall(&Node);
  return C && C->Name == "one_hot" && !C->Object;
}

} // namespace

void ClassIndexOutOfRangeCheck::registerMatchers(MatchFinder *Finder) {
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()), indexUse())
          .bind("use"));
  UserCode.registerWith(*Finder);
}

void ClassIndexOutOfRangeCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Use = Result.Nodes.getNodeAs<CallExpr>("use");
  ASTContext &Ctx = *Result.Context;
  IntegerValues Ints(Ctx);
  static const llvm::Regex NoEpsilonNames("^$");
  BoundaryAnalysis Locals(Ctx, NoEpsilonNames, &Parents);

  const Expr *Index = nullptr;
  std::optional<LayerWidth> Width;
  std::optional<int64_t> Ignore;
  const char *What = nullptr;
  if (isLossCall(*Use)) {
    const unsigned First = isa<CXXOperatorCallExpr>(Use) ? 1 : 0;
    if (Use->getNumArgs() < First + 2)
      return;
    Index = Use->getArg(First + 1);
    Width = classCountOf(Use->getArg(First), Ints, Locals);
    Ignore = ignoreIndexOf(*Use, Ints);
    if (!Ignore)
      return; // An ignore_index that is not a constant: anything may be it.
    What = "class index target";
  } else if (isModuleForwardCall(*Use)) {
    const unsigned First = isa<CXXOperatorCallExpr>(Use) ? 1 : 0;
    if (Use->getNumArgs() < First + 1)
      return;
    Index = Use->getArg(First);
    Width = embeddingRowsOf(*Use, Ints);
    What = "embedding index";
  } else {
    if (Use->getNumArgs() < 2)
      return;
    Index = Use->getArg(0);
    if (std::optional<int64_t> N = Ints.constantOf(Use->getArg(1)); N && *N > 0)
      Width = LayerWidth{*N, Use->getArg(1), "num_classes of one_hot"};
    What = "one_hot input";
  }
  if (!Width || Width->Size <= 0)
    return;
  IntegerSet Values = Ints.valuesOf(Index);
  auto Outside = Values.firstOutside(0, Width->Size, Ignore);
  if (!Outside)
    return;
  const SourceManager &SM = *Result.SourceManager;
  if (!Reported.insert(SM.getExpansionLoc(beginLoc(*Index))).second)
    return;
  const auto [Value, Range] = *Outside;
  diag(beginLoc(*Index),
       "%0 can be %1, outside [0, %2) (the %3); on the GPU this is "
       "'device-side assert triggered', on the CPU an index out of bounds "
       "error")
      << What << std::to_string(Value) << std::to_string(Width->Size)
      << Width->What << Index->getSourceRange();
  if (Range->Source)
    diag(beginLoc(*Range->Source), "the value %0 comes from here",
         DiagnosticIDs::Note)
        << std::to_string(Value);
  if (Width->Source)
    diag(beginLoc(*Width->Source), "%0 is %1 here", DiagnosticIDs::Note)
        << Width->What << std::to_string(Width->Size);
}

} // namespace clang::tidy::torch
