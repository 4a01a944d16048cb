//===--- TensorFromValuesBreaksGraphCheck.cpp -----------------------------===//

#include "TensorFromValuesBreaksGraphCheck.h"
#include "utils/analysis/AutogradFlow.h"
#include "utils/analysis/ProjectSummaries.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

StatementMatcher TensorFromValuesBreaksGraphCheck::functionFilter() const {
  // A construction, or a call of a helper that makes one (its result may be
  // the rebuilt tensor: FunctionSummary).
  return callExpr(anyOf(isTensorFromValues(), isTensorFactory(),
                        callee(functionDecl(hasBody(
                            hasDescendant(callExpr(isTensorFromValues()))))),
                        callee(functionDecl(hasExternalSummary()))));
}

void TensorFromValuesBreaksGraphCheck::checkFunction(
    const AutogradFlow &Flow, const MatchFinder::MatchResult &Result) {

  const SourceManager &SM = *Result.SourceManager;
  for (const AutogradFlow::BrokenGraph &B : Flow.brokenGraphs()) {
    if (!isInUserCode(SM.getSpellingLoc(beginLoc(*B.Construction)), SM))
      continue;
    const FunctionDecl *Factory = B.Construction->getDirectCallee();
    if (!isTensorFromValuesCall(*B.Construction) &&
        !isTensorFactoryCall(*B.Construction) && Factory) {
      // A helper of another translation unit that rebuilds its result
      // (its summary says so; the construction is out of sight).
      diag(beginLoc(*B.Construction),
           "%0 (defined in another file) returns a tensor rebuilt from "
           "values read out of a tensor with autograd history, so no "
           "gradient flows back through it; build it from the tensors with "
           "torch::stack or torch::cat")
          << Factory->getQualifiedNameAsString();
    } else {
      diag(beginLoc(*B.Construction),
           "%0 builds a tensor without autograd history from values read "
           "out of a tensor that has it, so no gradient flows back through "
           "it; build it from the tensors with torch::stack or torch::cat")
          << (Factory ? Factory->getQualifiedNameAsString() : "torch::tensor");
    }
    if (B.ValueRead)
      diag(B.ValueRead->getExprLoc(),
           "values read out of a tensor with autograd history here",
           DiagnosticIDs::Note);
    switch (B.Kind) {
    case AutogradFlow::GradientUse::ReturnedFromForward:
      diag(beginLoc(*B.Use), "the new tensor is returned from forward() here",
           DiagnosticIDs::Note);
      break;
    case AutogradFlow::GradientUse::LossPrediction:
      diag(beginLoc(*B.Use), "the new tensor is the prediction of this loss",
           DiagnosticIDs::Note);
      break;
    case AutogradFlow::GradientUse::AddedToLoss:
      diag(beginLoc(*B.Use),
           "the new tensor is a term of the loss backpropagated here; without "
           "history it adds a constant, which changes no gradient",
           DiagnosticIDs::Note);
      break;
    case AutogradFlow::GradientUse::Backpropagated:
      diag(beginLoc(*B.Use),
           "the new tensor is backpropagated here, with no other autograd "
           "history",
           DiagnosticIDs::Note);
      break;
    }
  }
}

} // namespace clang::tidy::torch
