//===--- SoftmaxOverBatchDimCheck.cpp -------------------------------------===//
//
// torch-softmax-over-batch-dim
//
//===----------------------------------------------------------------------===//

#include "SoftmaxOverBatchDimCheck.h"
#include "utils/analysis/BatchShape.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// A normalisation over one dimension, as written.
struct SoftmaxEvent {
  StringRef Name;                  ///< "softmax" or "log_softmax".
  const Expr *Input = nullptr;     ///< The tensor normalised.
  const Expr *Dim = nullptr;       ///< The dimension (or its options).
  const Expr *Construct = nullptr; ///< For a module: where it was made.
};

/// torch::nn::SoftmaxImpl or LogSoftmaxImpl: "softmax" / "log_softmax".
StringRef softmaxLayerName(const CXXRecordDecl *Impl) {
  if (!Impl)
    return "";
  const std::string Name = Impl->getQualifiedNameAsString();
  return Name == "torch::nn::SoftmaxImpl"      ? "softmax"
         : Name == "torch::nn::LogSoftmaxImpl" ? "log_softmax"
                                               : "";
}

std::optional<SoftmaxEvent> softmaxEventOf(const CallExpr &Call) {
  if (std::optional<LibTorchCall> C = asLibTorchCall(&Call)) {
    if (!C->is(op::Softmax | op::LogSoftmax))
      return std::nullopt;
    return SoftmaxEvent{C->is(op::Softmax) ? "softmax" : "log_softmax",
                        operandOf(*C), argumentAfterOperand(*C, 0), nullptr};
  }
  if (!isModuleForwardCall(Call))
    return std::nullopt;
  StringRef Name = softmaxLayerName(forwardModuleClass(Call));
  const unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
  if (Name.empty() || Call.getNumArgs() <= First)
    return std::nullopt;
  const CXXConstructExpr *Construct = moduleConstructionOf(Call);
  if (!Construct)
    return std::nullopt;
  return SoftmaxEvent{Name, Call.getArg(First), Construct->getArg(0),
                      Construct};
}

AST_MATCHER(CallExpr, isSoftmaxEvent) {
  return softmaxEventOf(Node).has_value();
}

/// The constant dimension \p E names: an integer constant expression, or
/// the dimension of the options it constructs (`SoftmaxOptions(0)`,
/// `F::SoftmaxFuncOptions(0)`). \p Written is set to the integer expression.
std::optional<int64_t> dimensionOf(const Expr *E, const ASTContext &Ctx,
                                   const Expr *&Written) {
  for (int Depth = 0; E && Depth < 4; ++Depth) {
    E = stripImplicit(E);
    if (!E || E->isTypeDependent() || E->isValueDependent())
      return std::nullopt;
    const auto *Construct = dyn_cast<CXXConstructExpr>(E);
    const CXXRecordDecl *RD =
        Construct ? Construct->getConstructor()->getParent() : nullptr;
    if (!RD)
      break;
    const std::string Name = RD->getQualifiedNameAsString();
    if (Construct->getNumArgs() < 1 ||
        (Name != "torch::nn::SoftmaxOptions" &&
         Name != "torch::nn::LogSoftmaxOptions" &&
         Name != "torch::nn::functional::SoftmaxFuncOptions" &&
         Name != "torch::nn::functional::LogSoftmaxFuncOptions"))
      return std::nullopt;
    E = Construct->getArg(0);
  }
  if (!E || !E->getType()->isIntegerType())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx) || R.Val.getInt().getSignificantBits() > 63)
    return std::nullopt;
  Written = E;
  return R.Val.getInt().getSExtValue();
}

const char *evidenceNote(BatchShape::Source Kind) {
  switch (Kind) {
  case BatchShape::Source::LoaderBatch:
    return "dimension 0 indexes the samples of this data loader batch";
  case BatchShape::Source::Flatten:
    return "dimension 0 indexes the samples: every other dimension is "
           "flattened here";
  case BatchShape::Source::View:
    return "dimension 0 indexes the samples: the batch is reshaped to "
           "[batch, ...] here";
  }
  return "";
}

/// `0`, or `-2`, as a literal in the file: what the fix-it may replace.
bool isPlainLiteral(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (const auto *Neg = dyn_cast_or_null<UnaryOperator>(E);
      Neg && Neg->getOpcode() == UO_Minus)
    E = Neg->getSubExpr()->IgnoreParenImpCasts();
  return E && isa<IntegerLiteral>(E) && E->getBeginLoc().isFileID() &&
         E->getEndLoc().isFileID();
}

} // namespace

void SoftmaxOverBatchDimCheck::registerMatchers(MatchFinder *Finder) {
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()),
               isSoftmaxEvent())
          .bind("softmax"));
  // A call of a function of the user's code that takes the batch and
  // normalises it (a helper): evaluated with the caller's arguments.
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()),
               unless(isSoftmaxEvent()), argumentCountAtLeast(1))
          .bind("call"));
  UserCode.registerWith(*Finder);
}

std::optional<SoftmaxOverBatchDimCheck::Finding>
SoftmaxOverBatchDimCheck::evaluate(const CallExpr &Call,
                                   BatchShapeAnalysis &Shapes,
                                   ASTContext &Ctx) {
  std::optional<SoftmaxEvent> Event = softmaxEventOf(Call);
  if (!Event || !Event->Input || !Event->Dim)
    return std::nullopt;
  Finding F;
  std::optional<int64_t> Dim = dimensionOf(Event->Dim, Ctx, F.Written);
  if (!Dim || (*Dim != 0 && *Dim >= -1))
    return std::nullopt;
  std::optional<BatchShape> Batch = Shapes.batchShapeOf(Event->Input);
  if (!Batch || Batch->MinRank < 2)
    return std::nullopt;
  // Dimension 0, or -rank when the rank is known exactly.
  const bool MinusRank =
      Batch->Rank && *Dim == -static_cast<int64_t>(*Batch->Rank);
  if (*Dim != 0 && !MinusRank)
    return std::nullopt;
  F.Name = Event->Name;
  F.Construct = Event->Construct;
  F.Dim = *Dim;
  F.Batch = *Batch;
  return F;
}

void SoftmaxOverBatchDimCheck::report(const Finding &F, const CallExpr &Call,
                                      const CallExpr *Helper,
                                      const SourceManager &SM) {
  const Expr &At = Helper ? static_cast<const Expr &>(*Helper) : Call;
  if (!Reported.insert(SM.getExpansionLoc(beginLoc(At))).second)
    return;
  {
    auto Diag = diag(beginLoc(At),
                     "%0 over dimension %1, the batch dimension, normalises "
                     "across the samples of the batch; use the class "
                     "dimension (1 or -1)")
                << F.Name << static_cast<int>(F.Dim);
    // `[batch, classes]` exactly: the class dimension is 1. A module may be
    // applied elsewhere too, a helper called with other tensors: not
    // rewritten.
    if (!Helper && !F.Construct && F.Batch.Rank && *F.Batch.Rank == 2 &&
        isPlainLiteral(F.Written))
      Diag << FixItHint::CreateReplacement(
          CharSourceRange::getTokenRange(F.Written->getBeginLoc(),
                                         F.Written->getEndLoc()),
          "1");
  }
  if (Helper)
    diag(beginLoc(Call), "the helper applies %0 here", DiagnosticIDs::Note)
        << F.Name;
  if (F.Construct)
    diag(beginLoc(*F.Construct), "the %0 module is made over dimension "
                                 "%1 here",
         DiagnosticIDs::Note)
        << F.Name << static_cast<int>(F.Dim);
  if (F.Batch.Evidence)
    diag(beginLoc(*F.Batch.Evidence), evidenceNote(F.Batch.Kind),
         DiagnosticIDs::Note);
}

void SoftmaxOverBatchDimCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  BatchShapeAnalysis Shapes(Ctx);
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("softmax")) {
    if (std::optional<Finding> F = evaluate(*Call, Shapes, Ctx))
      report(*F, *Call, nullptr, SM);
    return;
  }
  // A helper's softmax over its parameter, at this call: reported at the
  // call when the helper's own code does not show the batch.
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  std::optional<CallBinding> Binding = userCallBinding(*Call, Ctx);
  if (!Binding)
    return;
  const FunctionDecl *Body = Binding->Body;
  auto [It, Inserted] = Events.try_emplace(Body);
  if (Inserted)
    forEachStmt(Body->getBody(), [&](const Stmt &S) {
      if (const auto *Use = dyn_cast<CallExpr>(&S); Use && softmaxEventOf(*Use))
        It->second.push_back(Use);
    });
  if (It->second.empty())
    return;
  for (const CallExpr *Use : It->second) {
    if (evaluate(*Use, Shapes, Ctx))
      continue; // Reported in the helper itself.
    for (auto [Param, Arg] : Binding->Arguments)
      Shapes.bindArgument(Param, Arg);
    std::optional<Finding> F = evaluate(*Use, Shapes, Ctx);
    Shapes.clearBindings();
    if (F)
      report(*F, *Use, Call, SM);
  }
}

} // namespace clang::tidy::torch
