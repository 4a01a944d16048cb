//===--- BceInputOutOfRangeCheck.cpp --------------------------------------===//
//
// torch-bce-input-out-of-range: policy only. What the input is comes from
// ScoreOrigin (utils/analysis/ScoreOrigin.h), the target's values from
// IntegerValues (utils/analysis/IntegerValues.h).
//
//===----------------------------------------------------------------------===//

#include "BceInputOutOfRangeCheck.h"
#include "utils/analysis/BoundaryGuard.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/IntegerValues.h"
#include "utils/analysis/ScoreOrigin.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

AST_MATCHER(CallExpr, bceCall) {
  return lossOpName(Node) == "binary_cross_entropy";
}

const char *inputDescription(Scores Kind) {
  switch (Kind) {
  case Scores::Logits:
    return "raw scores of a layer (any real value)";
  case Scores::Signed:
    return "a value of either sign (tanh, a difference, a normal draw)";
  case Scores::LogProbabilities:
    return "log-probabilities (at most 0)";
  default:
    return nullptr;
  }
}

} // namespace

void BceInputOutOfRangeCheck::registerMatchers(MatchFinder *Finder) {
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()), bceCall())
          .bind("bce"));
  // A call of a function of the user's code whose body computes the loss on
  // its parameters (a loss helper): evaluated with the caller's arguments.
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()),
               unless(bceCall()), argumentCountAtLeast(1))
          .bind("call"));
  UserCode.registerWith(*Finder);
}

BceInputOutOfRangeCheck::Finding
BceInputOutOfRangeCheck::evaluate(const CallExpr &Call, IntegerValues &Ints,
                                  BoundaryAnalysis &Locals) {
  Finding F;
  const unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
  if (Call.getNumArgs() < First + 2)
    return F;
  F.Input = Call.getArg(First);
  F.Target = Call.getArg(First + 1);
  // A parameter bound at a call: what the caller passes.
  const Expr *Input = F.Input;
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripImplicit(Input)))
    if (const Expr *Arg = Ints.boundArgument(Ref->getDecl()))
      Input = Arg;
  F.Origin = scoreOriginOf(Input, Locals);
  if (!inputDescription(F.Origin.Kind))
    F.Origin = ScoreOrigin();
  IntegerSet Values = Ints.valuesOf(F.Target);
  if (auto Outside = Values.firstOutside(0, 2, std::nullopt)) {
    F.TargetValue = Outside->first;
    F.TargetSource = Outside->second->Source;
  }
  return F;
}

void BceInputOutOfRangeCheck::report(const Finding &F, const CallExpr &Call,
                                     const Expr *InputAt, const Expr *TargetAt,
                                     const CallExpr *InHelper,
                                     ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (const char *What = inputDescription(F.Origin.Kind);
      What && Reported.insert(SM.getExpansionLoc(beginLoc(*InputAt))).second) {
    auto Diag = diag(beginLoc(*InputAt),
                     "binary_cross_entropy is given %0 where it needs "
                     "probabilities in [0, 1]; on the GPU this is "
                     "'device-side assert triggered', on the CPU 'all "
                     "elements of input should be between 0 and 1'%1")
                << What
                << (F.Origin.Kind == Scores::Logits
                        ? "; use binary_cross_entropy_with_logits on the "
                          "scores"
                        : "; apply sigmoid first")
                << InputAt->getSourceRange();
    // at::binary_cross_entropy(input, target, weight, reduction) and the
    // _with_logits form agree on the first three parameters; the functional
    // forms take different options types. In the call itself only.
    std::optional<LibTorchCall> C = asLibTorchCall(&Call);
    const unsigned Written =
        llvm::count_if(Call.arguments(), [](const Expr *A) {
          return !isa<CXXDefaultArgExpr>(A);
        });
    if (!InHelper && F.Origin.Kind == Scores::Logits && C && !C->Object &&
        Written <= (C->Functional ? 2u : 3u)) {
      SourceLocation Name = calleeNameLoc(*C);
      if (Name.isValid() && Name.isFileID())
        Diag << FixItHint::CreateReplacement(
            CharSourceRange::getTokenRange(Name, Name),
            "binary_cross_entropy_with_logits");
    }
  }
  if (inputDescription(F.Origin.Kind)) {
    if (InHelper)
      diag(beginLoc(*InHelper), "the helper computes the loss here",
           DiagnosticIDs::Note);
    if (F.Origin.Producer)
      diag(beginLoc(*F.Origin.Producer), "the input is computed here",
           DiagnosticIDs::Note);
  }
  if (F.TargetValue &&
      Reported.insert(SM.getExpansionLoc(beginLoc(*TargetAt))).second) {
    diag(beginLoc(*TargetAt),
         "binary_cross_entropy's target can be %0, outside [0, 1]; the loss "
         "is then not a cross entropy (it can go negative); map the labels "
         "to 0 and 1")
        << std::to_string(*F.TargetValue) << TargetAt->getSourceRange();
    if (InHelper)
      diag(beginLoc(*InHelper), "the helper computes the loss here",
           DiagnosticIDs::Note);
    if (F.TargetSource)
      diag(beginLoc(*F.TargetSource), "the value %0 comes from here",
           DiagnosticIDs::Note)
          << std::to_string(*F.TargetValue);
  }
}

void BceInputOutOfRangeCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  ASTContext &Ctx = *Result.Context;
  IntegerValues Ints(Ctx);
  static const llvm::Regex NoEpsilonNames("^$");
  BoundaryAnalysis Locals(Ctx, NoEpsilonNames, &Parents);
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("bce")) {
    Finding F = evaluate(*Call, Ints, Locals);
    if (F.Input)
      report(F, *Call, F.Input, F.Target, nullptr, Ctx);
    return;
  }
  // A helper's binary_cross_entropy on its parameters, at this call.
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  std::optional<CallBinding> Binding = userCallBinding(*Call, Ctx);
  if (!Binding)
    return;
  const FunctionDecl *Body = Binding->Body;
  auto [It, Inserted] = Uses.try_emplace(Body);
  if (Inserted)
    forEachStmt(Body->getBody(), [&](const Stmt &S) {
      if (const auto *Use = dyn_cast<CallExpr>(&S);
          Use && lossOpName(*Use) == "binary_cross_entropy")
        It->second.push_back(Use);
    });
  for (const CallExpr *Use : It->second) {
    const Finding Own = evaluate(*Use, Ints, Locals);
    for (auto [Param, Arg] : Binding->Arguments)
      Ints.bind(Param, Arg);
    Finding F = evaluate(*Use, Ints, Locals);
    auto ArgFor = [&](const Expr *E) -> const Expr * {
      if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripImplicit(E)))
        if (const Expr *Arg = Ints.boundArgument(Ref->getDecl()))
          return Arg;
      return Call;
    };
    const Expr *InputAt = F.Input ? ArgFor(F.Input) : nullptr;
    const Expr *TargetAt = F.Target ? ArgFor(F.Target) : nullptr;
    Ints.clearBindings();
    // What the helper's own code shows is reported there.
    if (Own.Origin.Kind != Scores::Unknown)
      F.Origin = ScoreOrigin();
    if (Own.TargetValue)
      F.TargetValue.reset();
    if (F.Input)
      report(F, *Use, InputAt, TargetAt, Use, Ctx);
  }
}

} // namespace clang::tidy::torch
