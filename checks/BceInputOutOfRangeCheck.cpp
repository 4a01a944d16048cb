//===--- BceInputOutOfRangeCheck.cpp --------------------------------------===//
//
// torch-bce-input-out-of-range: policy only. What the input is comes from
// ScoreOrigin (utils/analysis/ScoreOrigin.h), the target's values from
// IntegerValues (utils/analysis/IntegerValues.h).
//
//===----------------------------------------------------------------------===//

#include "BceInputOutOfRangeCheck.h"
#include "utils/analysis/BoundaryGuard.h"
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
  UserCode.registerWith(*Finder);
}

void BceInputOutOfRangeCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("bce");
  const unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
  if (Call->getNumArgs() < First + 2)
    return;
  const Expr *Input = Call->getArg(First);
  const Expr *Target = Call->getArg(First + 1);
  const SourceManager &SM = *Result.SourceManager;
  if (!Reported.insert(SM.getExpansionLoc(beginLoc(*Call))).second)
    return;
  static const llvm::Regex NoEpsilonNames("^$");
  BoundaryAnalysis Locals(*Result.Context, NoEpsilonNames, &Parents);
  const ScoreOrigin O = scoreOriginOf(Input, Locals);
  if (const char *What = inputDescription(O.Kind)) {
    auto Diag = diag(beginLoc(*Input),
                     "binary_cross_entropy is given %0 where it needs "
                     "probabilities in [0, 1]; on the GPU this is "
                     "'device-side assert triggered', on the CPU 'all "
                     "elements of input should be between 0 and 1'%1")
                << What
                << (O.Kind == Scores::Logits
                        ? "; use binary_cross_entropy_with_logits on the "
                          "scores"
                        : "; apply sigmoid first")
                << Input->getSourceRange();
    // The function forms with the input and target only (their further
    // arguments differ from the _with_logits form's): rename the callee.
    // at::binary_cross_entropy(input, target, weight, reduction) and the
    // _with_logits form agree on the first three parameters; the functional
    // forms take different options types.
    std::optional<LibTorchCall> C = asLibTorchCall(Call);
    const unsigned Written = llvm::count_if(Call->arguments(), [](const Expr *A) {
      return !isa<CXXDefaultArgExpr>(A);
    });
    if (O.Kind == Scores::Logits && C && !C->Object &&
        Written <= (C->Functional ? 2u : 3u)) {
      SourceLocation Name = calleeNameLoc(*C);
      if (Name.isValid() && Name.isFileID())
        Diag << FixItHint::CreateReplacement(
            CharSourceRange::getTokenRange(Name, Name),
            "binary_cross_entropy_with_logits");
    }
  }
  if (O.Kind != Scores::Unknown && inputDescription(O.Kind) && O.Producer)
    diag(beginLoc(*O.Producer), "the input is computed here",
         DiagnosticIDs::Note);
  IntegerValues Ints(*Result.Context);
  IntegerSet Values = Ints.valuesOf(Target);
  if (auto Outside = Values.firstOutside(0, 2, std::nullopt)) {
    diag(beginLoc(*Target),
         "binary_cross_entropy's target can be %0, outside [0, 1]; the loss "
         "is then not a cross entropy (it can go negative); map the labels "
         "to 0 and 1")
        << std::to_string(Outside->first) << Target->getSourceRange();
    if (Outside->second->Source)
      diag(beginLoc(*Outside->second->Source), "the value %0 comes from here",
           DiagnosticIDs::Note)
          << std::to_string(Outside->first);
  }
}

} // namespace clang::tidy::torch
