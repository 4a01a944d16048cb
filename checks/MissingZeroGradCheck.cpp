//===--- MissingZeroGradCheck.cpp -----------------------------------------===//
//
// torch-missing-zero-grad
//
//===----------------------------------------------------------------------===//

#include "MissingZeroGradCheck.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/PathGuard.h"
#include "utils/analysis/Paths.h"
#include "utils/analysis/ProjectSummaries.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "utils/libtorch/ObjectIdentity.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// How deep helper calls are followed when looking for a clearing.
constexpr unsigned MaxHelperDepth = 3;

/// `opt.step()` on an optimizer, or, inside a template, `x.step()` on an
/// object whose type is still dependent.
AST_MATCHER(CallExpr, isStepCall) {
  return isOptimizerStepCall(Node) ||
         (dependentCalleeName(Node) == "step" && callObject(Node));
}

/// A backward pass (or, in a template, a still-dependent call named
/// backward).
bool isBackwardLike(const CallExpr &Call) {
  return isBackwardCall(Call) || dependentCalleeName(Call) == "backward";
}

const CallExpr *firstBackwardIn(const Stmt &S) {
  const CallExpr *Found = nullptr;
  forEachStmt(&S, [&](const Stmt &Child) {
    if (const auto *Call = dyn_cast<CallExpr>(&Child);
        Call && !Found && isBackwardLike(*Call))
      Found = Call;
  });
  return Found;
}

/// The first backward pass in \p S, or else the first call in it of a
/// function of the user's code that runs one (a trainer's training_step()
/// beside its optimizer_step()), followed \p Depth calls deep.
const CallExpr *backwardReachedIn(const Stmt &S, const ASTContext &Ctx,
                                  unsigned Depth = 0) {
  if (const CallExpr *Pass = firstBackwardIn(S))
    return Pass;
  const CallExpr *Found = nullptr;
  if (Depth >= 3)
    return nullptr;
  forEachStmt(&S, [&](const Stmt &Child) {
    const auto *Call = dyn_cast<CallExpr>(&Child);
    if (!Call || Found)
      return;
    const FunctionDecl *Body = calledBody(*Call, Ctx);
    if (Body && Body->getBody() && &S != Body->getBody() &&
        backwardReachedIn(*Body->getBody(), Ctx, Depth + 1))
      Found = Call;
    // A closure handed to the call (LBFGS's step(closure)).
    for (const Expr *Arg : Call->arguments())
      for (const FunctionDecl *Closure :
           lambdasPassedAs(Arg, Ctx.getSourceManager()))
        if (!Found && firstBackwardIn(*Closure->getBody()))
          Found = Call;
  });
  return Found;
}

/// True if \p S is a gradient clearing that clears the gradients the
/// optimizer \p Stepped steps: a zero_grad() of another optimizer object
/// (the other network's, in a GAN) does not count, nor a module's
/// zero_grad() unless the optimizer's declaration takes that module's
/// parameters (`SGD opt(model->parameters(), ...)`).
bool clearsFor(const Stmt &S, const ValueDecl *Stepped) {
  if (!isGradientClearing(S))
    return false;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&S);
  const CXXMethodDecl *M = Member ? Member->getMethodDecl() : nullptr;
  const Expr *Object = Member ? Member->getImplicitObjectArgument() : nullptr;
  const ValueDecl *Cleared = Object ? heldObject(Object) : nullptr;
  if (Stepped && M && isOptimizerClass(M->getParent()) && Cleared &&
      Cleared != Stepped)
    return false;
  if (M && isModuleClass(M->getParent())) {
    const auto *Var = dyn_cast_or_null<VarDecl>(Stepped);
    bool OwnModel = false;
    if (Var && Var->getInit() && Cleared)
      forEachStmt(Var->getInit(), [&](const Stmt &S) {
        if (const auto *E = dyn_cast<Expr>(&S))
          OwnModel = OwnModel || heldObject(E) == Cleared;
      });
    return OwnModel;
  }
  return true;
}

/// The modules the parameters of the optimizer \p Stepped come from, as its
/// declaration shows them (`Adam optG(G->parameters(), ...)`, through local
/// variables it is built from); empty when that is not known (a member, a
/// parameter, a container filled elsewhere).
llvm::SmallVector<const ValueDecl *, 2> modelsOf(const ValueDecl *Stepped) {
  llvm::SmallVector<const ValueDecl *, 2> Models;
  const auto *Var = dyn_cast_or_null<VarDecl>(Stepped);
  if (!Var || !Var->getInit() || isa<ParmVarDecl>(Var))
    return Models;
  auto Visit = [&](auto &&Self, const Expr *Init, unsigned Depth) -> void {
    forEachStmt(Init, [&](const Stmt &S) {
      const auto *E = dyn_cast<Expr>(&S);
      const ValueDecl *D = E && (isa<DeclRefExpr, MemberExpr>(E))
                               ? namedEntity(*E)
                               : nullptr;
      if (!D)
        return;
      QualType T = D->getType().getNonReferenceType();
      const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
      if (RD && isModuleClass(RD)) {
        if (const ValueDecl *Held = heldObject(E))
          D = Held;
        if (!llvm::is_contained(Models, D))
          Models.push_back(D);
      } else if (const auto *Local = dyn_cast<VarDecl>(D);
                 Local && Local->isLocalVarDecl() && Local->getInit() &&
                 Depth < 2) {
        Self(Self, Local->getInit(), Depth + 1);
      }
    });
  };
  Visit(Visit, Var->getInit(), 0);
  return Models;
}

/// True if \p Clearing, a gradient clearing, may clear the gradients the
/// optimizer \p Stepped steps: not when it is another named optimizer's
/// zero_grad(), nor a zero_grad() of a module that is not among those the
/// optimizer's declaration takes its parameters from (a GAN's
/// `D->zero_grad()` for `optG` over `G->parameters()`). Unknown is yes.
bool mayClearFor(const Stmt &Clearing, const ValueDecl *Stepped) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Clearing);
  const CXXMethodDecl *M = Member ? Member->getMethodDecl() : nullptr;
  const Expr *Object = Member ? Member->getImplicitObjectArgument() : nullptr;
  const ValueDecl *Cleared = Object ? heldObject(Object) : nullptr;
  // An element of a container (`for (auto &o : optimizers)`), or a local
  // reference or raw pointer, may be any of them (parameters are taken to
  // be distinct objects: `train(Net &G, Net &D, ...)`).
  auto IsElement = [](const ValueDecl *D) {
    const auto *V = dyn_cast<VarDecl>(D);
    return V && !isa<ParmVarDecl>(V) &&
           (V->isCXXForRangeDecl() || V->getType()->isReferenceType() ||
            V->getType()->isPointerType());
  };
  if (!Stepped || !M || !Cleared || IsElement(Stepped) || IsElement(Cleared))
    return true;
  if (isOptimizerClass(M->getParent()))
    return Cleared == Stepped;
  if (isModuleClass(M->getParent())) {
    llvm::SmallVector<const ValueDecl *, 2> Models = modelsOf(Stepped);
    return Models.empty() || llvm::is_contained(Models, Cleared);
  }
  return true;
}

/// The local variable an object expression names: `opt`, `opt->` through a
/// smart pointer's operator->, `*opt`.
const VarDecl *objectVariable(const Expr *E) {
  E = E ? stripImplicit(E) : nullptr;
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E);
      Op && (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star))
    return objectVariable(Op->getArg(0));
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(E);
      U && U->getOpcode() == UO_Deref)
    return objectVariable(U->getSubExpr());
  return dyn_cast_or_null<VarDecl>(E ? namedEntity(*E) : nullptr);
}

/// True if \p D is declared inside \p Loop (its header included).
bool isDeclaredIn(const Decl &D, const Stmt &Loop, const SourceManager &SM) {
  const SourceLocation Loc = SM.getExpansionLoc(D.getLocation());
  return !SM.isBeforeInTranslationUnit(Loc,
                                       SM.getExpansionLoc(beginLoc(Loop))) &&
         !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(endLoc(Loop)), Loc);
}

/// True if \p S runs only on some iterations of \p Loop: between them is an
/// if/switch branch, a conditional operator, or the right side of && / ||.
/// A branch of a test of finiteness (`if (!loss.isnan().item<bool>())`, `if
/// (std::isfinite(l))`) skips a bad step: it is not an iteration schedule.
bool isConditionalIn(const Stmt &S, const Stmt &Loop, const FunctionDecl &Fn,
                     BodyParents &Parents) {
  const Stmt *Child = &S;
  for (const Stmt *P = Parents.parentOf(S, Fn); P && P != &Loop;
       Child = P, P = Parents.parentOf(*P, Fn)) {
    if (const auto *If = dyn_cast<IfStmt>(P);
        If && If->getCond() != Child && !testsFiniteness(If->getCond()))
      return true;
    if (isa<SwitchCase, ConditionalOperator, BinaryConditionalOperator>(P))
      return true;
    if (const auto *B = dyn_cast<BinaryOperator>(P);
        B && B->isLogicalOp() && B->getRHS() == Child)
      return true;
  }
  return false;
}

/// A function of the user's that is only declared here and may clear
/// gradients: handed a module or an optimizer as an argument, or a method of
/// an optimizer, or a method of a module whose name says it (`zero`, `grad`,
/// `clear`, `reset`). A module's forward never clears.
bool mayClearOutOfSight(const CallExpr &Call, const FunctionDecl &F,
                        const SourceManager &SM) {
  if (F.hasBody() || !isInUserCode(F.getLocation(), SM) ||
      isModuleForwardCall(Call))
    return false;
  auto ClassOf = [](const Expr *E) {
    QualType T = E->getType().getNonReferenceType();
    if (const auto *PT = T->getAs<PointerType>())
      T = PT->getPointeeType();
    return T->getAsCXXRecordDecl();
  };
  auto HoldsModelOrOptimizer = [&](const Expr *E) {
    const CXXRecordDecl *RD = ClassOf(E);
    return RD && (isModuleClass(RD) || isOptimizerClass(RD));
  };
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (const Expr *Object = Member ? callObject(Call) : nullptr) {
    const CXXRecordDecl *RD = ClassOf(Object);
    if (RD && isOptimizerClass(RD))
      return true;
    const std::string Name = StringRef(F.getNameAsString()).lower();
    if (RD && isModuleClass(RD) &&
        llvm::any_of(llvm::ArrayRef<StringRef>{"zero", "grad", "clear", "reset"},
                     [&](StringRef Word) { return StringRef(Name).contains(Word); }))
      return true;
  }
  return llvm::any_of(Call.arguments(), HoldsModelOrOptimizer);
}

} // namespace

void MissingZeroGradCheck::forgetTranslationUnit() {
  Parents.clear();
  Clears.clear();
  ReportedLoops.clear();
}

void MissingZeroGradCheck::registerMatchers(MatchFinder *Finder) {
  // Matched per function (its written form: a template once, not per
  // instantiation), so that walks up from a step stay in one body.
  UserCode.addMatcher(
      functionDecl(isExpansionInUserCode(), isDefinition(),
                   hasBody(forEachDescendant(
                       callExpr(isExpansionInUserCode(), isStepCall())
                           .bind("step"))))
          .bind("fn"));
  UserCode.registerWith(*Finder);
}

bool MissingZeroGradCheck::functionClearsGradients(const FunctionDecl &F,
                                                   unsigned Depth) {
  const FunctionDecl *Def = nullptr;
  if (!F.hasBody(Def) || !Def)
    return false;
  auto [It, Inserted] = Clears.try_emplace(Def, false);
  if (!Inserted)
    return It->second; // Known, or being computed (recursion).
  const bool Result = clearsGradients(*Def->getBody(), Depth);
  Clears[Def] = Result;
  return Result;
}

bool MissingZeroGradCheck::clearsGradients(
    const Stmt &S, unsigned Depth, const ValueDecl *Stepped,
    const Stmt **Other, llvm::function_ref<bool(const Stmt &)> Skipped) {
  bool Found = false;
  const SourceManager &SM = *CurrentSM;
  forEachStmt(&S, [&](const Stmt &Child) {
    if (Found)
      return;
    if ((isGradientClearing(Child) || isa<CallExpr>(Child)) && Skipped &&
        Skipped(Child))
      return;
    if (isGradientClearing(Child)) {
      if (mayClearFor(Child, Stepped))
        Found = true;
      else if (Other && !*Other)
        *Other = &Child;
      return;
    }
    const auto *Call = dyn_cast<CallExpr>(&Child);
    if (!Call)
      return;
    // A closure named by a call's argument, defined elsewhere
    // (`opt.step(closure)` with the closure clearing first): every lambda
    // the variable may hold clears.
    for (const Expr *Arg : Call->arguments()) {
      if (!isa<DeclRefExpr>(stripImplicit(Arg)) || Depth >= MaxHelperDepth)
        continue;
      llvm::SmallVector<const FunctionDecl *, 2> Closures =
          lambdasPassedAs(Arg, SM);
      if (!Closures.empty() &&
          llvm::all_of(Closures, [&](const FunctionDecl *Closure) {
            return clearsGradients(*Closure->getBody(), Depth + 1, Stepped);
          }))
        Found = true;
    }
    if (Found)
      return;
    llvm::SmallVector<const FunctionDecl *, 2> Callees;
    if (const FunctionDecl *F = Call->getDirectCallee())
      Callees.push_back(F);
    else if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(
                 Call->getCallee()->IgnoreParenImpCasts()))
      for (const NamedDecl *D : ULE->decls())
        if (const auto *F = D->getAsFunction())
          Callees.push_back(F);
    for (const FunctionDecl *F : Callees) {
      if (!isInUserCode(F->getLocation(), SM))
        continue;
      // Defined in another file that summarised it: its summary says.
      if (const ExternalSummary *Other = externalSummaryOf(*F)) {
        Found |= Other->ClearsGradients;
        continue;
      }
      if (mayClearOutOfSight(*Call, *F, SM) ||
          (Depth < MaxHelperDepth && functionClearsGradients(*F, Depth + 1)))
        Found = true;
    }
  });
  return Found;
}

const Stmt *MissingZeroGradCheck::clearingBeforeStep(const CallExpr &Step,
                                                     const Stmt &Loop,
                                                     const FunctionDecl &Fn,
                                                     BodyPaths &Paths) {
  // A clearing of this optimizer's gradients that an iteration runs after
  // a backward pass and before the step, with no backward pass in between:
  // on that path the step applies zero gradients. A clearing on a path
  // that leaves the iteration (`if (bad) { opt.zero_grad(); continue; }`)
  // never reaches the step.
  const Expr *StepObject = callObject(Step);
  const ValueDecl *Stepped = StepObject ? heldObject(StepObject) : nullptr;
  llvm::SmallVector<const CallExpr *, 4> Backwards;
  llvm::SmallVector<const Stmt *, 4> Clearings;
  forEachStmt(&Loop, [&](const Stmt &S) {
    if (!Parents.isOwnCode(S, Fn))
      return;
    if (const auto *Call = dyn_cast<CallExpr>(&S); Call && isBackwardLike(*Call))
      Backwards.push_back(Call);
    else if (clearsFor(S, Stepped))
      Clearings.push_back(&S);
  });
  auto IsBackward = [](const Stmt &S) {
    const auto *Call = dyn_cast<CallExpr>(&S);
    return Call && isBackwardLike(*Call);
  };
  for (const Stmt *Clearing : Clearings)
    if (Paths.reachesInIteration(*Clearing, Step, Loop, IsBackward) &&
        llvm::any_of(Backwards, [&](const CallExpr *Backward) {
          return Paths.reachesInIteration(*Backward, *Clearing, Loop);
        }))
      return Clearing;
  return nullptr;
}

void MissingZeroGradCheck::checkStepInHelper(const CallExpr &Step,
                                              const FunctionDecl &Helper,
                                              const FunctionDecl &WalkFn) {
  const SourceManager &SM = *CurrentSM;
  ASTContext &Ctx = Helper.getASTContext();
  if (!Helper.getBody())
    return;
  // A step under a condition in the helper may accumulate on purpose.
  for (const Stmt *P = Parents.parentOf(Step, WalkFn);
       P && P != Helper.getBody() && !isa<LambdaExpr>(P);
       P = Parents.parentOf(*P, WalkFn)) {
    if (const auto *If = dyn_cast<IfStmt>(P); If && testsFiniteness(If->getCond()))
      continue; // A guard that skips a bad step.
    if (isa<IfStmt, SwitchStmt, AbstractConditionalOperator>(P))
      return;
  }
  // An optimizer made in the helper is a fresh one on every call.
  const VarDecl *Opt = objectVariable(callObject(Step));
  if (Opt && !isa<ParmVarDecl>(Opt) &&
      Opt->getDeclContext() == static_cast<const DeclContext *>(&Helper))
    return;
  // Only clearings that may reach this optimizer's gradients count (a
  // trainer's step that clears the generator's optimizer and steps the
  // discriminator's too).
  const ValueDecl *Stepped =
      callObject(Step) ? heldObject(callObject(Step)) : nullptr;
  const Stmt *OtherClearing = nullptr;
  if (clearsGradients(*Helper.getBody(), 0, Stepped, &OtherClearing))
    return;
  const CallExpr *HelperBackward = firstBackwardIn(*Helper.getBody());
  for (const CallSite &Site : callSitesOf(Helper, Ctx)) {
    if (!Site.Caller || !Site.Caller->getBody() ||
        isInTemplateInstantiation(*Site.Caller) ||
        !isInUserCode(SM.getSpellingLoc(beginLoc(*Site.Call)), SM))
      continue;
    const Stmt *Loop = nullptr;
    const CallExpr *Backward = HelperBackward;
    for (const Stmt *L : enclosingLoops(*Site.Call, *Site.Caller, Parents))
      if (HelperBackward || (Backward = backwardReachedIn(*L, Ctx))) {
        Loop = L;
        break;
      }
    // The loop's own clearings (the helper's call itself is judged above),
    // of the optimizer the step is on as the caller names it: a parameter of
    // the helper is the argument the call passes.
    const ValueDecl *SiteStepped = Stepped;
    if (const auto *P = dyn_cast_or_null<ParmVarDecl>(Stepped);
        P && P->getDeclContext() == static_cast<const DeclContext *>(&Helper)) {
      const unsigned Shift = isa<CXXOperatorCallExpr>(Site.Call) ? 1 : 0;
      const unsigned Index = P->getFunctionScopeIndex() + Shift;
      SiteStepped = Index < Site.Call->getNumArgs()
                        ? heldObject(Site.Call->getArg(Index))
                        : nullptr;
    }
    auto IsSite = [&](const Stmt &S) { return &S == Site.Call; };
    if (!Loop || !Backward ||
        clearsGradients(*Loop, 0, SiteStepped, nullptr, IsSite))
      continue;
    // The optimizer handed over: one made in the loop is fresh each time.
    if (const auto *Param = dyn_cast_or_null<ParmVarDecl>(Opt)) {
      const unsigned Shift = isa<CXXOperatorCallExpr>(Site.Call) ? 1 : 0;
      const unsigned Index = Param->getFunctionScopeIndex() + Shift;
      const VarDecl *Arg = Index < Site.Call->getNumArgs()
                               ? objectVariable(Site.Call->getArg(Index))
                               : nullptr;
      if (!Arg || isDeclaredIn(*Arg, *Loop, SM))
        continue;
    }
    if (!ReportedLoops.insert(Loop).second)
      return;
    const auto *Method = dyn_cast<CXXMethodDecl>(&Helper);
    const bool IsLambda = Method && Method->getParent()->isLambda();
    if (OtherClearing && Stepped && Stepped->getIdentifier()) {
      diag(beginLoc(Step),
           "optimizer step in %select{'%1'|a lambda}0, which a training loop "
           "calls, clears other gradients but never those of '%2': each "
           "backward() adds to the gradients of all earlier iterations; call "
           "%2.zero_grad() before backward()")
          << IsLambda << (IsLambda ? StringRef() : Helper.getName())
          << Stepped->getName();
      diag(beginLoc(*OtherClearing),
           "this clears the gradients of another model or optimizer",
           DiagnosticIDs::Note);
    } else {
      diag(beginLoc(Step),
           "optimizer step in %select{'%1'|a lambda}0, which a training loop "
           "calls, and nothing in that loop clears gradients: each backward() "
           "adds to the gradients of all earlier iterations; call zero_grad() "
           "before backward()")
          << IsLambda << (IsLambda ? StringRef() : Helper.getName());
    }
    diag(beginLoc(*Site.Call), "called in the training loop here",
         DiagnosticIDs::Note);
    diag(beginLoc(*Backward), "gradients accumulate across iterations here",
         DiagnosticIDs::Note);
    return;
  }
}

void MissingZeroGradCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  const auto *Step = Result.Nodes.getNodeAs<CallExpr>("step");
  const SourceManager &SM = *Result.SourceManager;
  CurrentSM = &SM;
  if (isInTemplateInstantiation(*Fn) ||
      !isInUserCode(SM.getSpellingLoc(beginLoc(*Step)), SM))
    return;
  if (!Parents.isOwnCode(*Step, *Fn)) {
    // A step in a lambda of Fn (`auto step = [&](...) { ...; opt.step(); }`)
    // with no loop around it there: a helper the training loop calls.
    const LambdaExpr *Lambda = enclosingLambda(*Step, *Fn, Parents);
    if (Lambda && Lambda->getCallOperator() &&
        enclosingLoops(*Step, *Fn, Parents).empty())
      checkStepInHelper(*Step, *Lambda->getCallOperator(), *Fn);
    return;
  }

  // The training loop: the innermost loop around the step that also holds a
  // backward pass.
  const Stmt *Loop = nullptr;
  const CallExpr *Backward = nullptr;
  for (const Stmt *L : enclosingLoops(*Step, *Fn, Parents))
    if ((Backward = backwardReachedIn(*L, *Result.Context))) {
      Loop = L;
      break;
    }
  if (!Loop) {
    if (enclosingLoops(*Step, *Fn, Parents).empty())
      checkStepInHelper(*Step, *Fn, *Fn);
    return;
  }
  // An optimizer declared inside the loop is a fresh one every iteration
  // (torch-optimizer-created-in-loop's business).
  // (Not the variable of a range-for over optimizers kept outside it:
  // `for (auto &o : optimizers) o->step();` refers to each of them.)
  const VarDecl *Opt = objectVariable(callObject(*Step));
  const bool ElementOfOuter = Opt && Opt->isCXXForRangeDecl() &&
                              (Opt->getType()->isReferenceType() ||
                               Opt->getType()->isPointerType());
  if (Opt && !ElementOfOuter && isDeclaredIn(*Opt, *Loop, SM))
    return;
  // Under a branch, but on every iteration that backpropagates (`if (c)
  // opt.step(); else opt.step();`, the same step written in both branches):
  // no schedule, the step runs as often as the backward pass.
  const ValueDecl *StepObject =
      callObject(*Step) ? heldObject(callObject(*Step)) : nullptr;
  auto StepsSameOptimizer = [&](const Stmt &S) {
    const auto *C = dyn_cast<CallExpr>(&S);
    return C && isOptimizerStepCall(*C) && callObject(*C) &&
           heldObject(callObject(*C)) == StepObject;
  };
  BodyPaths SchedulePaths(*Fn, *Result.Context);
  const bool Scheduled =
      isConditionalIn(*Step, *Loop, *Fn, Parents) &&
      !(StepObject && SchedulePaths.iterationRunsWithout(
                          *Backward, *Loop, StepsSameOptimizer) == false);
  if (Scheduled) {
    // A step every few iterations accumulates on purpose, and the clearing
    // may sit anywhere in the loops around it (after the step, once per
    // epoch in an outer loop). Only a function that owns its optimizer and
    // clears nowhere in those loops is wrong (a zero_grad() once before
    // training included): after the first step, every backward() adds to
    // gradients already applied.
    const Stmt *Outermost = enclosingLoops(*Step, *Fn, Parents).back();
    if (!Opt || isa<ParmVarDecl>(Opt) || !Opt->isLocalVarDecl() ||
        Opt->getDeclContext() != static_cast<const DeclContext *>(Fn) ||
        clearsGradients(*Outermost, 0) || !ReportedLoops.insert(Loop).second)
      return;
    diag(beginLoc(*Step),
         "optimizer step every few iterations, but gradients are never "
         "cleared: after the first step each backward() adds to gradients "
         "that were already applied; call zero_grad() on the optimizer after "
         "each step()");
    diag(beginLoc(*Backward), "gradients accumulate here", DiagnosticIDs::Note);
    return;
  }
  // `loss.backward(); opt.zero_grad(); opt.step();`: the clearing sits
  // between the pass and the step in the block that holds the step, so the
  // step applies zero gradients.
  BodyPaths Paths(*Fn, *Result.Context);
  if (const Stmt *Clearing = clearingBeforeStep(*Step, *Loop, *Fn, Paths)) {
    if (!ReportedLoops.insert(Loop).second)
      return;
    diag(beginLoc(*Clearing),
         "gradients cleared between backward() and step(): the step applies "
         "zero gradients and the model never learns; clear them before "
         "backward()");
    diag(beginLoc(*Step), "the step that finds them cleared",
         DiagnosticIDs::Note);
    return;
  }
  // Only clearings that may reach this optimizer's gradients count (a GAN
  // that clears the discriminator's and steps the generator's too).
  const Stmt *OtherClearing = nullptr;
  const ValueDecl *Stepped =
      callObject(*Step) ? heldObject(callObject(*Step)) : nullptr;
  // Clearings only on the iterations that skip the step (a branch that
  // clears and continues) leave every other iteration accumulating.
  const Stmt *SkippedClearing = nullptr;
  auto Skipped = [&](const Stmt &Clearing) {
    // No iteration that runs the step runs the clearing (a clearing in the
    // loop's own code; one in a lambda is not in its graph and counts).
    if (Paths.sharesIteration(Clearing, *Step, *Loop).value_or(true))
      return false;
    if (!SkippedClearing && (isGradientClearing(Clearing) ||
                             clearsGradients(Clearing, 0, Stepped)))
      SkippedClearing = &Clearing;
    return true;
  };
  if (clearsGradients(*Loop, 0, Stepped, &OtherClearing, Skipped) ||
      !ReportedLoops.insert(Loop).second)
    return;

  if (SkippedClearing) {
    diag(beginLoc(*Step),
         "optimizer step in a training loop that clears gradients only on "
         "iterations that skip the step: each backward() that reaches the "
         "step adds to the gradients of all earlier iterations; call "
         "zero_grad() in every iteration before backward()");
    diag(beginLoc(*SkippedClearing),
         "gradients are cleared only here, on a path that leaves the "
         "iteration",
         DiagnosticIDs::Note);
    diag(beginLoc(*Backward), "gradients accumulate across iterations here",
         DiagnosticIDs::Note);
    return;
  }

  if (OtherClearing) {
    // The backward pass nearest before the step.
    const CallExpr *Nearest = Backward;
    forEachStmt(Loop, [&](const Stmt &S) {
      if (const auto *Call = dyn_cast<CallExpr>(&S);
          Call && isBackwardLike(*Call) &&
          SM.isBeforeInTranslationUnit(beginLoc(*Call), beginLoc(*Step)))
        Nearest = Call;
    });
    diag(beginLoc(*Step),
         "optimizer step in a training loop that clears other gradients but "
         "never those of '%0': each backward() adds to the gradients of all "
         "earlier iterations; call %0.zero_grad() in every iteration before "
         "backward()")
        << Stepped->getName();
    diag(beginLoc(*OtherClearing),
         "this clears the gradients of another model or optimizer",
         DiagnosticIDs::Note);
    diag(beginLoc(*Nearest), "gradients accumulate across iterations here",
         DiagnosticIDs::Note);
    return;
  }

  diag(beginLoc(*Step),
       "optimizer step in a training loop that never clears gradients: each "
       "backward() adds to the gradients of all earlier iterations; call "
       "zero_grad() on the optimizer in every iteration before backward()");
  diag(beginLoc(*Backward), "gradients accumulate across iterations here",
       DiagnosticIDs::Note);
}

} // namespace clang::tidy::torch
