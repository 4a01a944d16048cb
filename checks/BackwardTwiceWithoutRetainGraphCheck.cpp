//===--- BackwardTwiceWithoutRetainGraphCheck.cpp -------------------------===//

#include "BackwardTwiceWithoutRetainGraphCheck.h"
#include "utils/analysis/AutogradFlow.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// The fix-it that makes \p First keep its graph: retain_graph=true, written
/// in the position the pass's signature gives it.
std::optional<FixItHint> retainGraphFix(const CallExpr &First,
                                        const SourceManager &SM,
                                        const LangOptions &LangOpts) {
  if (beginLoc(First).isMacroID() || endLoc(First).isMacroID() ||
      !isInUserCode(beginLoc(First), SM))
    return std::nullopt;
  if (const Expr *Retain = writtenRetainGraphArg(First)) {
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Retain->getSourceRange()), SM, LangOpts);
    if (Range.isInvalid())
      return std::nullopt;
    return FixItHint::CreateReplacement(Range, "true");
  }
  // Arguments written in the source; default arguments are trailing.
  unsigned Written = 0;
  const Expr *LastWritten = nullptr;
  for (const Expr *Arg : First.arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      break;
    ++Written;
    LastWritten = Arg;
  }
  std::string Text;
  if (isa<CXXMemberCallExpr>(First)) // backward(gradient, retain_graph, ...)
    Text = Written == 0   ? "{}, /*retain_graph=*/true"
           : Written == 1 ? ", /*retain_graph=*/true"
                          : "";
  else if (isAutogradGradCall(First)) // grad(outputs, inputs, grads, retain..)
    Text = Written == 2   ? ", /*grad_outputs=*/{}, /*retain_graph=*/true"
           : Written == 3 ? ", /*retain_graph=*/true"
                          : "";
  else // torch::autograd::backward(tensors, grad_tensors, retain_graph, ...)
    Text = Written == 1   ? ", /*grad_tensors=*/{}, /*retain_graph=*/true"
           : Written == 2 ? ", /*retain_graph=*/true"
                          : "";
  if (Text.empty())
    return std::nullopt;
  if (!LastWritten)
    return FixItHint::CreateInsertion(First.getRParenLoc(), Text);
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(LastWritten->getSourceRange()), SM,
      LangOpts);
  if (Range.isInvalid())
    return std::nullopt;
  return FixItHint::CreateInsertion(Range.getEnd(), Text);
}

} // namespace

StatementMatcher BackwardTwiceWithoutRetainGraphCheck::functionFilter() const {
  // Also calls of helpers that run a backward pass (on an argument: the
  // pass happens at the call, FunctionSummary::BackpropagatedParams).
  return callExpr(anyOf(
      isBackward(), isAutogradGrad(), isDependentBackward(),
      callee(functionDecl(hasBody(hasDescendant(callExpr(isBackward())))))));
}

namespace {

/// True if \p E holds the lambda \p L, or names a local variable
/// initialised with it (`auto closure = [&] {...}; opt.step(closure);`).
bool holdsLambda(const Expr *E, const LambdaExpr &L) {
  bool Found = false;
  auto Find = [&](const Stmt *S) {
    forEachStmt(S, [&](const Stmt &Child) { Found |= &Child == &L; });
  };
  Find(E);
  llvm::SmallVector<const VarDecl *, 2> Named;
  forEachStmt(E, [&](const Stmt &S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        Named.push_back(Var);
  });
  for (const VarDecl *Var : Named)
    if (!Found)
      Find(Var->getInit());
  return Found;
}

bool isLbfgs(const CallExpr &Step) {
  const Expr *Object = callObject(Step);
  const CXXRecordDecl *RD =
      Object ? Object->getType()->getPointeeCXXRecordDecl() : nullptr;
  if (!RD && Object)
    RD = Object->getType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == "LBFGS";
}

} // namespace

void BackwardTwiceWithoutRetainGraphCheck::checkClosure(const LambdaExpr &L,
                                                        ASTContext &Ctx) {
  const CXXMethodDecl *Op = L.getCallOperator();
  const auto *Outer = dyn_cast_or_null<FunctionDecl>(
      L.getLambdaClass() ? L.getLambdaClass()->getDeclContext() : nullptr);
  if (!Op || !Outer || !Outer->getBody())
    return;
  // The optimizer step that is handed the closure.
  const CallExpr *Step = nullptr;
  forEachStmt(Outer->getBody(), [&](const Stmt &S) {
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (Step || !Call || !isOptimizerStepCall(*Call) || Call->getNumArgs() == 0)
      return;
    for (const Expr *Arg : Call->arguments())
      if (holdsLambda(Arg, L))
        Step = Call;
  });
  if (!Step)
    return;
  // Called more than once: LBFGS evaluates it several times per step; any
  // optimizer once per iteration of a loop around the step.
  const bool Lbfgs = isLbfgs(*Step);
  const SourceManager &SM = Ctx.getSourceManager();
  auto DeclaredInLoopAroundStep = [&](const VarDecl &V) {
    bool Inside = false;
    forEachStmt(Outer->getBody(), [&](const Stmt &S) {
      if (isLoopStmt(S) &&
          !SM.isBeforeInTranslationUnit(beginLoc(*Step), beginLoc(S)) &&
          !SM.isBeforeInTranslationUnit(endLoc(S), endLoc(*Step)) &&
          !SM.isBeforeInTranslationUnit(V.getLocation(), beginLoc(S)) &&
          !SM.isBeforeInTranslationUnit(endLoc(S), V.getLocation()))
        Inside = true;
    });
    return Inside;
  };
  bool StepInLoop = false;
  forEachStmt(Outer->getBody(), [&](const Stmt &S) {
    StepInLoop |= isLoopStmt(S) &&
                  !SM.isBeforeInTranslationUnit(beginLoc(*Step), beginLoc(S)) &&
                  !SM.isBeforeInTranslationUnit(endLoc(S), endLoc(*Step));
  });
  const AutogradFlow *OuterFlow = AutogradFlow::of(*Outer, Ctx);
  forEachStmt(L.getBody(), [&](const Stmt &S) {
    const auto *Pass = dyn_cast<CallExpr>(&S);
    if (!Pass || !isBackwardCall(*Pass) ||
        graphRetentionOf(*Pass, Ctx) != GraphRetention::Frees)
      return;
    const Expr *Root = callObject(*Pass);
    const auto *Ref =
        dyn_cast_or_null<DeclRefExpr>(Root ? Root->IgnoreParenImpCasts() : nullptr);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    // A tensor of the function around the closure, with history there,
    // never assigned in the closure.
    if (!V || !V->hasLocalStorage() || !V->getInit() ||
        V->getDeclContext() != static_cast<const DeclContext *>(Outer) ||
        !isTensorType(V->getType()) || !OuterFlow ||
        !OuterFlow->hasHistoryEvidence(*V->getInit()))
      return;
    bool Assigned = false;
    forEachStmt(L.getBody(), [&](const Stmt &W) {
      if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(&W);
          Assign && Assign->isAssignmentOp() && Assign->getNumArgs() == 2 &&
          namedEntity(*Assign->getArg(0)) == V)
        Assigned = true;
    });
    const bool Again = Lbfgs || (StepInLoop && !DeclaredInLoopAroundStep(*V));
    if (Assigned || !Again || !isInUserCode(SM.getSpellingLoc(beginLoc(*Pass)), SM))
      return;
    diag(beginLoc(*Pass),
         "the optimizer calls this closure more than once (%select{LBFGS "
         "evaluates it several times per step|once per iteration of the loop "
         "around the step}0), and each backward pass reaches the graph of "
         "'%1', computed outside the closure, which the first call frees; "
         "compute '%1' inside the closure")
        << (Lbfgs ? 0 : 1) << V->getName();
    diag(V->getLocation(), "'%0' is computed here, outside the closure",
         DiagnosticIDs::Note)
        << V->getName();
  });
}

void BackwardTwiceWithoutRetainGraphCheck::checkFunction(
    const AutogradFlow &Flow, const MatchFinder::MatchResult &Result) {
  if (const auto *Closure = Result.Nodes.getNodeAs<LambdaExpr>("lambda"))
    checkClosure(*Closure, *Result.Context);

  const SourceManager &SM = *Result.SourceManager;
  const LangOptions &LangOpts = Result.Context->getLangOpts();
  llvm::SmallPtrSet<const CallExpr *, 4> Fixed;
  for (const AutogradFlow::SecondPass &P : Flow.secondPasses()) {
    if (!isInUserCode(SM.getSpellingLoc(beginLoc(*P.Failing)), SM))
      continue;
    const StringRef Shared = P.Shared ? P.Shared->getName() : "the loss";
    const bool FirstIsGrad = isAutogradGradCall(*P.First);

    if (P.StateMember) {
      // A state an object keeps in a member between calls of its method.
      const std::string Member =
          P.StateMember->getParent()->getName().str() +
          "::" + P.StateMember->getName().str();
      if (P.AcrossCalls)
        diag(beginLoc(*P.Failing),
             "backward pass reaches the graph of '%0' as the previous call of "
             "'%1' left it, which that call's backward pass freed; detach "
             "'%2' where it is kept for the next call, or pass "
             "retain_graph=true")
            << Member << P.StateWriter->getName() << P.StateMember->getName();
      else if (P.First == P.Failing)
        diag(beginLoc(*P.Failing),
             "backward pass in a loop reaches the graph of '%0' that '%1' "
             "keeps from the previous iteration, which that iteration's "
             "backward pass freed; detach '%2' between iterations, or pass "
             "retain_graph=true")
            << Member << Shared << P.StateMember->getName();
      else
        diag(beginLoc(*P.Failing),
             "backward pass reaches the graph of '%0' that '%1' keeps from an "
             "earlier call, whose buffers an earlier backward pass freed; "
             "detach '%2' between the passes, or pass retain_graph=true to "
             "the first pass")
            << Member << Shared << P.StateMember->getName();
      if (P.StateWrite && P.StateWriter)
        diag(beginLoc(*P.StateWrite),
             "'%0' computes '%1' from its value in the previous call",
             DiagnosticIDs::Note)
            << P.StateWriter->getName() << P.StateMember->getName();
      else if (P.StateWriter && P.SharedDefinitionLoc.isValid())
        diag(P.SharedDefinitionLoc,
             "'%0' (defined in another file) computes '%1' from its value in "
             "the previous call",
             DiagnosticIDs::Note)
            << P.StateWriter->getName() << P.StateMember->getName();
      if (P.First != P.Failing)
        diag(beginLoc(*P.First),
             "the first pass, which frees the graph, is here",
             DiagnosticIDs::Note);
      continue;
    }
    if (P.First == P.Failing && P.CarriedOver) {
      // A state carried from one iteration into the next.
      diag(beginLoc(*P.Failing),
           "backward pass in a loop reaches the graph of '%0' from the "
           "previous iteration, which that iteration's backward pass freed; "
           "detach '%0' where it is carried into the next iteration, or pass "
           "retain_graph=true")
          << Shared;
      if (P.SharedDefinitionLoc.isValid())
        diag(P.SharedDefinitionLoc,
             "'%0' is computed here from its value in the previous iteration",
             DiagnosticIDs::Note)
            << Shared;
      continue;
    }
    if (P.First == P.Failing) {
      // The same call, again in the next iteration of a loop.
      diag(beginLoc(*P.Failing),
           "backward pass in a loop reaches the graph of '%0', which was "
           "built before the loop and is freed by the first iteration; "
           "compute '%0' inside the loop, or pass retain_graph=true")
          << Shared;
      if (P.SharedDefinitionLoc.isValid())
        diag(P.SharedDefinitionLoc, "'%0' is computed here, outside the loop",
             DiagnosticIDs::Note)
            << Shared;
      continue;
    }

    std::optional<FixItHint> Fix;
    // Only on a pass itself: a helper that runs one takes no retain_graph.
    if ((isBackwardCall(*P.First) || isAutogradGradCall(*P.First)) &&
        Fixed.insert(P.First).second)
      Fix = retainGraphFix(*P.First, SM, LangOpts);

    {
      // The fix-it goes on the warning (fix-its on notes are not applied by
      // --fix), although it edits the first pass.
      DiagnosticBuilder Warning = [&] {
        if (FirstIsGrad)
          return diag(beginLoc(*P.Failing),
                      "backward pass through the graph of '%0', which "
                      "torch::autograd::grad already freed; pass "
                      "retain_graph=true to torch::autograd::grad")
                 << Shared;
        if (P.FirstRoot && P.FailingRoot && P.FirstRoot != P.FailingRoot &&
            P.Shared != P.FailingRoot)
          return diag(beginLoc(*P.Failing),
                      "backward pass through '%0' reaches the graph of '%1', "
                      "whose buffers an earlier backward pass freed; pass "
                      "retain_graph=true to the first pass, or backpropagate "
                      "once through the sum: '(%2 + %0).backward()'")
                 << P.FailingRoot->getName() << Shared
                 << P.FirstRoot->getName();
        if (P.FailingRoot && P.Shared == P.FailingRoot &&
            P.FirstRoot == P.FailingRoot)
          return diag(beginLoc(*P.Failing),
                      "second backward pass through the graph of '%0', whose "
                      "buffers the first pass freed; pass retain_graph=true "
                      "to the first pass, or recompute '%0' in between")
                 << Shared;
        return diag(beginLoc(*P.Failing),
                    "backward pass reaches the graph of '%0', whose buffers "
                    "an earlier backward pass freed; pass retain_graph=true "
                    "to the first pass, or backpropagate once through the sum "
                    "of the losses, e.g. '(l1 + l2).backward()'")
               << Shared;
      }();
      if (Fix)
        Warning << *Fix;
    }
    diag(beginLoc(*P.First), "the first pass, which frees the graph, is here",
         DiagnosticIDs::Note);
    if (P.Via)
      diag(beginLoc(*P.Via),
           "both passes run in this call, whose arguments share the graph of "
           "'%0'",
           DiagnosticIDs::Note)
          << Shared;
  }
}

} // namespace clang::tidy::torch
