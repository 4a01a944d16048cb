//===--- ClassIndexOutOfRangeCheck.cpp ------------------------------------===//
//
// torch-class-index-out-of-range: policy only. The values an index tensor may
// hold come from IntegerValues (utils/analysis/IntegerValues.h), the number
// of classes or rows from LayerWidth (utils/analysis/LayerWidth.h).
//
//===----------------------------------------------------------------------===//

#include "ClassIndexOutOfRangeCheck.h"
#include "utils/analysis/BoundaryGuard.h"
#include "utils/analysis/FunctionSummary.h"
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

bool isIndexUse(const CallExpr &Node) {
  if (isLossCall(Node))
    return takesClassIndices(lossOpName(Node));
  if (isModuleForwardCall(Node)) {
    const CXXRecordDecl *Impl = forwardModuleClass(Node);
    return Impl && Impl->getIdentifier() && Impl->getName() == "EmbeddingImpl";
  }
  std::optional<LibTorchCall> C = asLibTorchCall(&Node);
  return C && C->Name == "one_hot" && !C->Object;
}

AST_MATCHER(CallExpr, indexUse) { return isIndexUse(Node); }

} // namespace

void ClassIndexOutOfRangeCheck::registerMatchers(MatchFinder *Finder) {
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()), indexUse())
          .bind("use"));
  // A call of a function of the user's code whose body indexes with its
  // parameters (a loss helper): evaluated with the caller's arguments.
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()),
               unless(indexUse()), argumentCountAtLeast(1))
          .bind("call"));
  UserCode.registerWith(*Finder);
}

std::optional<ClassIndexOutOfRangeCheck::Finding>
ClassIndexOutOfRangeCheck::evaluate(const CallExpr &Use, IntegerValues &Ints,
                                    BoundaryAnalysis &Locals) {
  Finding F;
  std::optional<LayerWidth> Width;
  std::optional<int64_t> Ignore;
  const unsigned First = isa<CXXOperatorCallExpr>(Use) ? 1 : 0;
  if (isLossCall(Use)) {
    if (Use.getNumArgs() < First + 2)
      return std::nullopt;
    F.Index = Use.getArg(First + 1);
    Width = classCountOf(Use.getArg(First), Ints, Locals);
    Ignore = ignoreIndexOf(Use, Ints);
    if (!Ignore)
      return std::nullopt; // Not a constant: anything may be it.
    F.What = "class index target";
  } else if (isModuleForwardCall(Use)) {
    if (Use.getNumArgs() < First + 1)
      return std::nullopt;
    F.Index = Use.getArg(First);
    Width = embeddingRowsOf(Use, Ints);
    F.What = "embedding index";
  } else {
    if (Use.getNumArgs() < 2)
      return std::nullopt;
    F.Index = Use.getArg(0);
    if (std::optional<int64_t> N = Ints.constantOf(Use.getArg(1)); N && *N > 0)
      Width = LayerWidth{*N, Use.getArg(1), "num_classes of one_hot"};
    F.What = "one_hot input";
  }
  if (!Width || Width->Size <= 0)
    return std::nullopt;
  IntegerSet Values = Ints.valuesOf(F.Index);
  auto Outside = Values.firstOutside(0, Width->Size, Ignore);
  if (!Outside)
    return std::nullopt;
  F.Value = Outside->first;
  F.Source = Outside->second->Source;
  F.Width = *Width;
  return F;
}

void ClassIndexOutOfRangeCheck::report(const Finding &F, const Expr &At,
                                       const CallExpr *InHelper,
                                       const SourceManager &SM) {
  if (!Reported.insert(SM.getExpansionLoc(beginLoc(At))).second)
    return;
  diag(beginLoc(At),
       "%0 can be %1, outside [0, %2) (the %3); on the GPU this is "
       "'device-side assert triggered', on the CPU an index out of bounds "
       "error")
      << F.What << std::to_string(F.Value) << std::to_string(F.Width.Size)
      << F.Width.What << At.getSourceRange();
  if (InHelper)
    diag(beginLoc(*InHelper), "the helper uses it as the %0 here",
         DiagnosticIDs::Note)
        << F.What;
  if (F.Source)
    diag(beginLoc(*F.Source), "the value %0 comes from here",
         DiagnosticIDs::Note)
        << std::to_string(F.Value);
  if (F.Width.Source)
    diag(beginLoc(*F.Width.Source), "%0 is %1 here", DiagnosticIDs::Note)
        << F.Width.What << std::to_string(F.Width.Size);
}

llvm::ArrayRef<const CallExpr *>
ClassIndexOutOfRangeCheck::usesIn(const FunctionDecl &Fn) {
  auto [It, Inserted] = Uses.try_emplace(&Fn);
  if (Inserted && Fn.getBody())
    forEachStmt(Fn.getBody(), [&](const Stmt &S) {
      if (const auto *Call = dyn_cast<CallExpr>(&S); Call && isIndexUse(*Call))
        It->second.push_back(Call);
    });
  return It->second;
}

void ClassIndexOutOfRangeCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  IntegerValues Ints(Ctx);
  static const llvm::Regex NoEpsilonNames("^$");
  BoundaryAnalysis Locals(Ctx, NoEpsilonNames, &Parents);
  if (const auto *Use = Result.Nodes.getNodeAs<CallExpr>("use")) {
    if (std::optional<Finding> F = evaluate(*Use, Ints, Locals))
      report(*F, *F->Index, nullptr, SM);
    return;
  }
  // A helper's index uses, at this call: the parameters hold the caller's
  // arguments. Reported at the argument that becomes the index (or at the
  // call), when the helper's own code does not show the problem.
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  std::optional<CallBinding> Binding = userCallBinding(*Call, Ctx);
  if (!Binding)
    return;
  for (const CallExpr *Use : usesIn(*Binding->Body)) {
    if (evaluate(*Use, Ints, Locals))
      continue; // Reported in the helper itself.
    Ints.clearBindings();
    for (auto [Param, Arg] : Binding->Arguments)
      Ints.bind(Param, Arg);
    std::optional<Finding> F = evaluate(*Use, Ints, Locals);
    const Expr *At = Call;
    if (F)
      if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripImplicit(F->Index)))
        if (const Expr *Arg = Ints.boundArgument(Ref->getDecl()))
          At = Arg;
    Ints.clearBindings();
    if (F)
      report(*F, *At, Use, SM);
  }
}

} // namespace clang::tidy::torch
