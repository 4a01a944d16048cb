//===--- SoftmaxBeforeCrossEntropyCheck.cpp -------------------------------===//
//
// torch-softmax-before-cross-entropy
//
//===----------------------------------------------------------------------===//

#include "SoftmaxBeforeCrossEntropyCheck.h"
#include "utils/analysis/BoundaryGuard.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/ScoreOrigin.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include <functional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxDepth = 8;


/// The source text of \p E, or "" when it is not plain file text.
StringRef sourceText(const Expr &E, const SourceManager &SM,
                     const LangOptions &LO) {
  CharSourceRange Range = CharSourceRange::getTokenRange(
      SourceRange(beginLoc(E), endLoc(E)));
  if (!Range.getBegin().isFileID() || !Range.getEnd().isFileID())
    return "";
  return Lexer::getSourceText(Range, SM, LO);
}

/// True if the softmax call \p C has only its operand and the dimension
/// (no dtype): dropping it or renaming it changes nothing else.
bool hasOnlyDim(const LibTorchCall &C) {
  const unsigned Written =
      llvm::count_if(C.Args, [](const Expr *A) {
        return !isa<CXXDefaultArgExpr>(A);
      });
  return Written == (C.Object ? 1u : 2u);
}

bool takesScoresCall(const CallExpr &Call) {
  StringRef Loss = lossOpName(Call);
  return !Loss.empty() &&
         opHas(Loss, op::TakesLogits | op::TakesLogProbabilities);
}

AST_MATCHER(CallExpr, takesScores) { return takesScoresCall(Node); }

/// The message for a loss that takes logits (cross_entropy) or
/// log-probabilities (nll_loss) given \p Kind; null when the pairing is right.
const char *messageFor(bool TakesLogits, Scores Kind) {
  if (TakesLogits && Kind == Scores::Probabilities)
    return "cross_entropy applied to softmax output applies softmax twice, "
           "so the loss cannot fall below its floor and its gradients "
           "shrink; pass the logits";
  if (TakesLogits && Kind == Scores::LogProbabilities)
    return "cross_entropy applies log_softmax itself, so the log_softmax "
           "before it is redundant; pass the logits";
  if (!TakesLogits && Kind == Scores::Probabilities)
    return "nll_loss applied to softmax output takes probabilities for "
           "log-probabilities, so the loss goes negative and stops "
           "training; use log_softmax";
  if (!TakesLogits && Kind == Scores::Logits)
    return "nll_loss applied to raw scores without log_softmax takes them "
           "for log-probabilities, so the loss is unbounded below; apply "
           "log_softmax first or use cross_entropy";
  return nullptr;
}

const char *producerNote(Scores Kind) {
  return Kind == Scores::Probabilities      ? "softmax applied here"
         : Kind == Scores::LogProbabilities ? "log_softmax applied here"
                                            : "raw scores computed here";
}

/// True if \p Param is assigned in \p Fn (`pred = log_softmax(pred, 1);`):
/// the loss then takes another value than the caller's.
bool isReassigned(const ParmVarDecl &Param, const FunctionDecl &Fn) {
  auto IsParam = [&](const Expr *E) {
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripImplicit(E));
    return Ref && Ref->getDecl() == &Param;
  };
  bool Written = false;
  forEachStmt(Fn.getBody(), [&](const Stmt &S) {
    if (const auto *BO = dyn_cast<BinaryOperator>(&S))
      Written |= BO->isAssignmentOp() && IsParam(BO->getLHS());
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S))
      Written |= Op->isAssignmentOp() && IsParam(Op->getArg(0));
    else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&S)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      Written |= IsParam(Member->getImplicitObjectArgument()) && M &&
                 M->getIdentifier() && M->getName().ends_with("_");
    }
  });
  return Written;
}

/// The index of the parameter of \p Fn whose argument \p E is: the
/// parameter itself where it still holds the caller's value, or a
/// value-preserving view of it (`pred.permute(...).contiguous()`, through
/// the local or reassigned parameter that holds it: `predict =
/// predict.view({-1, c}); cross_entropy(predict, target)`).
std::optional<unsigned> parameterIndex(const Expr *E, const FunctionDecl &Fn,
                                       BoundaryAnalysis &Locals,
                                       unsigned Depth = 0) {
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth)
    return std::nullopt;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (!VD || VD->getDeclContext() != &Fn)
      return std::nullopt;
    const auto *Param = dyn_cast<ParmVarDecl>(VD);
    if (Param && !isReassigned(*Param, Fn))
      return Param->getFunctionScopeIndex();
    if (Param && Locals.holdsArgumentAt(Param, Ref))
      return Param->getFunctionScopeIndex();
    const Expr *Def = Locals.definitionAt(VD, Ref);
    return Def ? parameterIndex(Def, Fn, Locals, Depth + 1) : std::nullopt;
  }
  if (std::optional<LibTorchCall> C = asLibTorchCall(E);
      C && C->is(op::ValuePreserving) && !C->is(op::Detach))
    return parameterIndex(operandOf(*C), Fn, Locals, Depth + 1);
  return std::nullopt;
}

/// The first argument of \p Call that stands for the callee's parameters
/// (a lambda or functor called with `f(x)` has the object as argument 0).
unsigned firstParameterArg(const CallExpr &Call) {
  return isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
}

} // namespace

std::optional<SoftmaxBeforeCrossEntropyCheck::LossWrapper>
SoftmaxBeforeCrossEntropyCheck::wrapperOf(const FunctionDecl &Fn,
                                          unsigned Depth) {
  if (auto It = Wrappers.find(&Fn); It != Wrappers.end())
    return It->second;
  Wrappers[&Fn] = std::nullopt; // Recursion: not a wrapper.
  std::optional<LossWrapper> Found;
  const ASTContext &Ctx = Fn.getASTContext();
  static const llvm::Regex NoEpsilonNames("^$");
  BoundaryAnalysis Locals(Fn.getASTContext(), NoEpsilonNames, &Parents);
  auto Visit = [&](auto &&Self, const Stmt *S) -> void {
    if (!S || Found || isa<LambdaExpr>(S))
      return;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (takesScoresCall(*Call)) {
        if (std::optional<unsigned> P =
                parameterIndex(lossPredictionArg(*Call), Fn, Locals))
          Found = LossWrapper{Call, *P};
      } else if (Depth < 3) {
        const FunctionDecl *Body = calledBody(*Call, Ctx);
        if (!Body && isModuleForwardCall(*Call))
          Body = userForwardOf(*Call);
        if (Body && Body != &Fn)
          if (std::optional<LossWrapper> Inner = wrapperOf(*Body, Depth + 1)) {
            const unsigned Arg = Inner->Param + firstParameterArg(*Call);
            if (Arg < Call->getNumArgs())
              if (std::optional<unsigned> P =
                      parameterIndex(Call->getArg(Arg), Fn, Locals))
                Found = LossWrapper{Inner->Loss, *P};
          }
      }
    }
    for (const Stmt *Child : S->children())
      Self(Self, Child);
  };
  Visit(Visit, Fn.getBody());
  return Wrappers[&Fn] = Found;
}

void SoftmaxBeforeCrossEntropyCheck::checkWrapperCall(
    const CallExpr &Call, const MatchFinder::MatchResult &Result) {
  // A std::function assigned lambdas on several paths: the call may run any.
  std::optional<LossWrapper> W;
  for (const FunctionDecl *Body : calledBodies(Call, *Result.Context))
    if (Body->getBody() && !W)
      W = wrapperOf(*Body, 0);
  // A user module's forward (a loss module of the user's: `criterion(pred,
  // label)`).
  if (!W && isModuleForwardCall(Call))
    if (const FunctionDecl *Forward = userForwardOf(Call))
      W = wrapperOf(*Forward, 0);
  const unsigned Arg = W ? W->Param + firstParameterArg(Call) : 0;
  if (!W || Arg >= Call.getNumArgs())
    return;
  static const llvm::Regex NoEpsilonNames("^$");
  BoundaryAnalysis Locals(*Result.Context, NoEpsilonNames, &Parents);
  const ScoreOrigin O = scoreOriginOf(Call.getArg(Arg), Locals);
  const char *Message =
      messageFor(opHas(lossOpName(*W->Loss), op::TakesLogits), O.Kind);
  if (!Message ||
      !Reported.insert(Result.SourceManager->getExpansionLoc(beginLoc(Call)))
           .second)
    return;
  diag(beginLoc(Call), Message);
  diag(beginLoc(*W->Loss), "the loss is computed here on the argument",
       DiagnosticIDs::Note);
  if (O.Producer)
    diag(beginLoc(*O.Producer), producerNote(O.Kind), DiagnosticIDs::Note);
}

void SoftmaxBeforeCrossEntropyCheck::registerMatchers(MatchFinder *Finder) {
  // Templates are checked in their written form (unresolved LibTorch calls
  // included), once; their instantiations are skipped.
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()),
               takesScores())
          .bind("loss"));
  // A call of a function, lambda or std::function of the user's code that
  // computes such a loss on its argument.
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()),
               unless(takesScores()), argumentCountAtLeast(1))
          .bind("call"));
  UserCode.registerWith(*Finder);
}

void SoftmaxBeforeCrossEntropyCheck::check(
    const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call")) {
    checkWrapperCall(*Call, Result);
    return;
  }
  const auto *Loss = Result.Nodes.getNodeAs<CallExpr>("loss");
  const SourceManager &SM = *Result.SourceManager;
  const StringRef LossName = lossOpName(*Loss);
  const Expr *Prediction = lossPredictionArg(*Loss);
  if (!Prediction)
    return;
  static const llvm::Regex NoEpsilonNames("^$");
  BoundaryAnalysis Locals(*Result.Context, NoEpsilonNames, &Parents);
  const ScoreOrigin O = scoreOriginOf(Prediction, Locals);
  const bool TakesLogits = opHas(LossName, op::TakesLogits);
  const bool Wrong =
      TakesLogits ? O.Kind == Scores::Probabilities ||
                        O.Kind == Scores::LogProbabilities
                  : O.Kind == Scores::Probabilities || O.Kind == Scores::Logits;
  if (!Wrong || !Reported.insert(SM.getExpansionLoc(beginLoc(*Loss))).second)
    return;

  const char *Message = messageFor(TakesLogits, O.Kind);
  {
    auto Diag = diag(beginLoc(*Loss), Message);
    std::optional<LibTorchCall> Producer =
        O.Inline && O.Producer ? asLibTorchCall(O.Producer) : std::nullopt;
    if (Producer && O.Kind != Scores::Logits && hasOnlyDim(*Producer)) {
      const LangOptions &LO = Result.Context->getLangOpts();
      if (TakesLogits) {
        // cross_entropy(softmax(x, 1), y) -> cross_entropy(x, y).
        StringRef Operand = sourceText(*operandOf(*Producer), SM, LO);
        if (!Operand.empty() && O.Producer->getBeginLoc().isFileID() &&
            O.Producer->getEndLoc().isFileID())
          Diag << FixItHint::CreateReplacement(
              CharSourceRange::getTokenRange(beginLoc(*O.Producer),
                                             endLoc(*O.Producer)),
              Operand);
      } else if (!Producer->Functional) {
        // nll_loss(softmax(x, 1), y) -> nll_loss(log_softmax(x, 1), y); the
        // functional form takes SoftmaxFuncOptions, which log_softmax does
        // not.
        SourceLocation Name = calleeNameLoc(*Producer);
        if (Name.isValid() && Name.isFileID())
          Diag << FixItHint::CreateReplacement(
              CharSourceRange::getTokenRange(Name, Name), "log_softmax");
      }
    }
  }
  if (O.Producer && !O.Inline)
    diag(beginLoc(*O.Producer), producerNote(O.Kind), DiagnosticIDs::Note);
}

} // namespace clang::tidy::torch
