//===--- InplaceOnSavedTensorCheck.cpp ------------------------------------===//

#include "InplaceOnSavedTensorCheck.h"
#include "utils/analysis/AutogradFlow.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/ast/BodyParents.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include <string>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// How a call is written, for messages: `mul_`, `at::relu_`, `+=`, `*`, and
/// for a layer's forward the layer as written (`cell`, `model->conv1`).
std::string spelling(const Expr &E, const ASTContext &Ctx) {
  if (const auto *Call = dyn_cast<CallExpr>(&E);
      Call && isModuleForwardCall(*Call)) {
    const Expr *Module = nullptr;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      Module = Op->getNumArgs() ? Op->getArg(0) : nullptr;
    else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      Module = Member->getImplicitObjectArgument();
    // `enc->forward(x)`: the object is `enc.operator->()`; name `enc`.
    if (const auto *Arrow =
            dyn_cast_or_null<CXXOperatorCallExpr>(Module ? Module->IgnoreParenImpCasts() : nullptr);
        Arrow && Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs() == 1)
      Module = Arrow->getArg(0);
    if (Module) {
      StringRef Text = Lexer::getSourceText(
          CharSourceRange::getTokenRange(Module->getSourceRange()),
          Ctx.getSourceManager(), Ctx.getLangOpts());
      if (!Text.empty() && Text.size() <= 40)
        return Text.str();
    }
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&E)) {
    // A callable object (a lambda in a variable): its name.
    if (Op->getOperator() == OO_Call && Op->getNumArgs() > 0)
      if (const ValueDecl *Callee = namedEntity(*Op->getArg(0)))
        return Callee->getNameAsString();
    return getOperatorSpelling(Op->getOperator());
  }
  if (const auto *Call = dyn_cast<CallExpr>(&E)) {
    if (const FunctionDecl *F = Call->getDirectCallee())
      return isa<CXXMethodDecl>(F) ? F->getNameAsString()
                                   : F->getQualifiedNameAsString();
    if (std::optional<LibTorchCall> C = asLibTorchCall(Call))
      return C->Name.str(); // still unresolved in a template
  }
  return "the operation";
}

/// Where to point at a call: the method name of `y.mul_(2)`, the operator of
/// `y += 1`, the start of anything else.
SourceLocation callLoc(const Expr &E) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&E);
      Op && Op->getOperator() != OO_Call)
    return Op->getOperatorLoc();
  if (const auto *Call = dyn_cast<CallExpr>(&E)) {
    const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
    if (const auto *ME = dyn_cast<MemberExpr>(Callee))
      return ME->getMemberLoc();
    if (const auto *UME = dyn_cast<UnresolvedMemberExpr>(Callee))
      return UME->getMemberLoc();
  }
  return beginLoc(E);
}

} // namespace

StatementMatcher InplaceOnSavedTensorCheck::functionFilter() const {
  // Also calls of helpers (functions, lambdas) that write in place into
  // what they are handed (FunctionSummary::WrittenParams), and calls through
  // a std::function (the lambdas it may hold are found by the analysis).
  return callExpr(anyOf(
      isInPlaceTensorWrite(),
      callee(functionDecl(hasBody(hasDescendant(callExpr(isInPlaceTensorWrite()))))),
      callee(cxxMethodDecl(ofClass(cxxRecordDecl(isLambda())),
                           hasBody(hasDescendant(callExpr(isInPlaceTensorWrite()))))),
      cxxOperatorCallExpr(hasOverloadedOperatorName("()"),
                          callee(cxxMethodDecl(ofClass(
                              cxxRecordDecl(hasName("::std::function"))))))));
}

void InplaceOnSavedTensorCheck::checkFunction(
    const AutogradFlow &Flow, const MatchFinder::MatchResult &Result) {
  const SourceManager &SM = *Result.SourceManager;
  llvm::SmallVector<AutogradFlow::InPlaceOnSaved, 2> Writes(
      Flow.inPlaceWrites().begin(), Flow.inPlaceWrites().end());
  // A helper that returns what it wrote into: a write is a bug when a caller
  // of this translation unit backpropagates the result.
  if (!Flow.returnedInPlaceWrites().empty() && Flow.function()) {
    BodyParents Parents;
    if (resultReachesBackwardPass(*Flow.function(), *Result.Context, Parents))
      Writes.append(Flow.returnedInPlaceWrites().begin(),
                    Flow.returnedInPlaceWrites().end());
  }
  for (const AutogradFlow::InPlaceOnSaved &W : Writes) {
    // Nothing from half-understood code: a write with a broken argument.
    if (W.Write->containsErrors() ||
        !isInUserCode(SM.getSpellingLoc(beginLoc(*W.Write)), SM))
      continue;
    diag(callLoc(*W.Write),
         "in-place '%0' changes a tensor that '%1' saved for the backward "
         "pass, which then throws; compute the new value out of place or "
         "write into a clone")
        << spelling(*W.Write, *Result.Context)
        << spelling(*W.Saver, *Result.Context);
    diag(callLoc(*W.Saver), "'%0' saves its %1 for the backward pass here",
         DiagnosticIDs::Note)
        << spelling(*W.Saver, *Result.Context)
        << (W.SavedOutput                                   ? "result"
            : (savingRolesOf(*W.Saver) & op::SavesOperands) ? "operands"
                                                            : "input");
    if (W.InnerSaver)
      diag(callLoc(*W.InnerSaver), "inside it, '%0' saves the tensor",
           DiagnosticIDs::Note)
          << spelling(*W.InnerSaver, *Result.Context);
    // The write and the saver are inside a helper, which saves only because
    // this call hands it a tensor that requires grad.
    if (W.Through)
      diag(beginLoc(*W.Through),
           "'%0' is called here with a tensor that requires grad",
           DiagnosticIDs::Note)
          << spelling(*W.Through, *Result.Context);
    if (isa<ReturnStmt>(W.Use))
      diag(beginLoc(*W.Use),
           isModuleForwardMethod(*Flow.function())
               ? "the result of forward() is backpropagated by its caller"
               : "the result is returned here to a caller that backpropagates it",
           DiagnosticIDs::Note);
    else
      diag(callLoc(*cast<Expr>(W.Use)), "the backward pass that needs it",
           DiagnosticIDs::Note);
  }
}

} // namespace clang::tidy::torch
