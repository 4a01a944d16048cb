//===--- EvalLoopWithoutNoGradCheck.cpp -----------------------------------===//
//
// torch-eval-loop-without-no-grad
//
//===----------------------------------------------------------------------===//

#include "EvalLoopWithoutNoGradCheck.h"
#include "utils/analysis/LoopEscape.h"
#include "utils/analysis/AutogradFlow.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/ProjectSummaries.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

constexpr llvm::StringLiteral DefaultEvaluationFunctionRegex =
    "(?i)(eval|valid|test|infer|predict)";

/// A regex with an optional leading "(?i)" for case-insensitive matching,
/// which llvm::Regex does not understand itself.
llvm::Regex makeRegex(StringRef Pattern) {
  llvm::Regex::RegexFlags Flags = llvm::Regex::NoFlags;
  if (Pattern.consume_front("(?i)"))
    Flags = llvm::Regex::IgnoreCase;
  return {Pattern, Flags};
}

/// The names the code around \p S (in the body of \p Fn) is known by,
/// innermost first: a lambda stored in a variable is named by the variable
/// (`auto evaluate = [&] {...}`), then the first enclosing function that is
/// not a lambda.
llvm::SmallVector<std::string, 2>
contextNames(const Stmt &S, const FunctionDecl &Fn, BodyParents &Parents) {
  llvm::SmallVector<std::string, 2> Names;
  const LambdaExpr *Unnamed = nullptr; // A lambda whose variable is sought.
  const FunctionDecl *Outer = Parents.walkUp(
      S, Fn, /*CrossLambdas=*/true, [&](const BodyParents::Step &Step) {
        if (const auto *Lambda = dyn_cast_or_null<LambdaExpr>(Step.Parent)) {
          Unnamed = Lambda;
          return true;
        }
        if (!Unnamed || !Step.Parent)
          return true;
        if (const auto *DS = dyn_cast<DeclStmt>(Step.Parent)) {
          for (const Decl *D : DS->decls())
            if (const auto *VD = dyn_cast<VarDecl>(D);
                VD && VD->getInit() == Step.Child &&
                isStoredValue(VD->getInit(), *Unnamed))
              Names.push_back(VD->getNameAsString());
          Unnamed = nullptr;
        } else if (!isa<Expr>(Step.Parent) ||
                   !isStoredValue(cast<Expr>(Step.Parent), *Unnamed)) {
          Unnamed = nullptr; // Passed on, not stored.
        }
        return true;
      });
  if (Outer)
    Names.push_back(Outer->getNameAsString());
  return Names;
}

/// A name for the guard variable that no visible or sibling declaration uses.
std::string freshGuardName(const Stmt &Loop, const CompoundStmt &Block,
                           const FunctionDecl &Fn, BodyParents &Parents) {
  auto Taken = [&](StringRef Name) {
    for (const Stmt *St : Block.body())
      if (const auto *DS = dyn_cast<DeclStmt>(St))
        for (const Decl *D : DS->decls())
          if (const auto *ND = dyn_cast<NamedDecl>(D);
              ND && ND->getIdentifier() && ND->getName() == Name)
            return true;
    return !visibleLocalVariables(
                Loop, Fn, Parents,
                [&](const VarDecl &VD) {
                  return VD.getIdentifier() && VD.getName() == Name;
                },
                /*CrossLambdas=*/true)
                .empty();
  };
  if (!Taken("no_grad"))
    return "no_grad";
  if (!Taken("no_grad_guard"))
    return "no_grad_guard";
  for (unsigned I = 1;; ++I) {
    std::string Name = "no_grad_" + std::to_string(I);
    if (!Taken(Name))
      return Name;
  }
}

} // namespace

EvalLoopWithoutNoGradCheck::EvalLoopWithoutNoGradCheck(
    StringRef Name, ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      EvaluationFunctionRegex(Options.get("EvaluationFunctionRegex",
                                          DefaultEvaluationFunctionRegex)),
      EvaluationFunction(makeRegex(EvaluationFunctionRegex)) {
  std::string Error;
  if (!EvaluationFunction.isValid(Error))
    configurationDiag("invalid EvaluationFunctionRegex '%0': %1; using the "
                      "default")
        << EvaluationFunctionRegex << Error;
  if (!EvaluationFunction.isValid(Error))
    EvaluationFunction = makeRegex(DefaultEvaluationFunctionRegex);
}

void EvalLoopWithoutNoGradCheck::storeOptions(
    ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "EvaluationFunctionRegex", EvaluationFunctionRegex);
}

void EvalLoopWithoutNoGradCheck::forgetTranslationUnit() {
  FindingOfLoop.clear();
  Findings.clear();
  Context = nullptr;
  GuardedBlocks.clear();
  Parents.clear();
  GradMode.clear();
  Facts.clear();
  Trains.clear();
  AutogradFlow::forgetTranslationUnit();
}

const EvalLoopWithoutNoGradCheck::FunctionFacts &
EvalLoopWithoutNoGradCheck::factsOf(const FunctionDecl &Fn, ASTContext &Ctx) {
  auto [It, Inserted] = Facts.try_emplace(&Fn);
  FunctionFacts &F = It->second;
  if (!Inserted)
    return F;
  auto Visit = [&](auto &&Self, const Stmt *S) -> void {
    if (!S)
      return;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (trainsAt(*Call, Ctx))
        F.TrainingCalls.emplace_back(Call, &Fn);
      else if (isGradModeSetCall(*Call))
        F.SetsGradMode = true;
      else if (isModuleEvalCall(*Call, Ctx) || isModuleTrainCall(*Call, Ctx)) {
        F.ModeCalls.push_back(Call);
        if (isModuleEvalCall(*Call, Ctx))
          F.LeavesEval.insert(Call);
      } else if (const FunctionDecl *Body = calledBody(*Call, Ctx);
                 Body && Body != &Fn && Body->getBody()) {
        // A helper that changes a module's mode: its last change is this
        // call's (a recursive helper sees what is known so far).
        const FunctionFacts &Inner = factsOf(*Body, Ctx);
        const SourceManager &SM = Ctx.getSourceManager();
        const CallExpr *Last = nullptr;
        for (const CallExpr *M : Inner.ModeCalls)
          if (!Last || SM.isBeforeInTranslationUnit(beginLoc(*Last), beginLoc(*M)))
            Last = M;
        if (Last) {
          F.ModeCalls.push_back(Call);
          if (Inner.LeavesEval.contains(Last))
            F.LeavesEval.insert(Call);
        }
      }
    }
    for (const Stmt *Child : S->children())
      Self(Self, Child);
  };
  Visit(Visit, Fn.getBody());
  return F;
}

bool EvalLoopWithoutNoGradCheck::trains(const Stmt &S, ASTContext &Ctx) {
  auto [It, Inserted] = Trains.try_emplace(&S, false);
  if (Inserted)
    It->second = containsTraining(S, Ctx);
  return It->second;
}

bool EvalLoopWithoutNoGradCheck::callersRuleOut(const FunctionDecl &Fn,
                                                bool NamedOnly,
                                                ASTContext &Ctx) {
  llvm::ArrayRef<CallSite> Sites = callSitesOf(Fn, Ctx);
  // Its calls in other files, from the project's summaries.
  const ExternalCalls *Remote = externalCallsOf(Fn);
  // Every call of the function runs under a guard: its loop records nothing.
  if ((!Sites.empty() || Remote) && (!Remote || Remote->Unguarded == 0) &&
      llvm::all_of(Sites, [&](const CallSite &Site) {
        return GradMode.isOffAt(*Site.Call, *Site.Caller);
      }))
    return true;
  // A caller backpropagates what the function returns (directly, or through
  // the functions that return it on): it is part of the training path,
  // whatever its name says.
  return NamedOnly && resultReachesBackwardPass(Fn, Ctx, Parents);
}

void EvalLoopWithoutNoGradCheck::registerMatchers(MatchFinder *Finder) {
  // Matched per function, so that every walk up from a forward stays inside
  // its function's body (BodyParents) and what the function does is computed
  // once. Each forward is examined in the innermost function that holds it:
  // the lambdas in a function are functions of their own. Instantiations are
  // checked too: a forward through a dependent module (`model->forward(x)`
  // with `Model &model`) is only resolved there. Each loop is reported once.
  UserCode.addMatcher(
      functionDecl(isExpansionInUserCode(), isDefinition(),
                   hasBody(forEachDescendant(callExpr(isExpansionInUserCode(),
                                                      isModuleForward(),
                                                      unless(isLoss()))
                                                 .bind("forward"))))
          .bind("fn"));
  UserCode.registerWith(*Finder);
}

void EvalLoopWithoutNoGradCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  const auto *Forward = Result.Nodes.getNodeAs<CallExpr>("forward");
  ASTContext &Ctx = *Result.Context;
  Context = &Ctx;
  const SourceManager &SM = *Result.SourceManager;
  if (!isInUserCode(SM.getSpellingLoc(beginLoc(*Forward)), SM) ||
      !Parents.isOwnCode(*Forward, *Fn))
    return;
  if (GradMode.isOffAt(*Forward, *Fn))
    return;
  // A forward of the user's whose body records nothing (it disables
  // gradients itself around its computation: a sampler): no graph to keep.
  if (const FunctionDecl *Body = calledBody(*Forward, Ctx);
      Body && GradMode.recordsNothing(*Body))
    return;
  if (!enclosingLoops(*Forward, *Fn, Parents).empty()) {
    examine(*Forward, *Forward, *Fn, /*Via=*/nullptr, Ctx);
    return;
  }
  // A forward in a helper with no loop of its own (`predict_batch(x)`, a
  // member function or lambda of the translation unit): the loops of its
  // callers run it, each call being where the forward happens.
  // (A module's own forward is a forward its callers' calls stand for: they
  // are examined as forwards themselves.)
  if (Fn->isTemplateInstantiation() || isModuleForwardMethod(*Fn))
    return;
  // Up through helpers with no loop either (`run()` loops over `inference()`,
  // which calls `process()`, which runs the forward), three calls at most.
  llvm::SmallVector<const FunctionDecl *, 4> Chain = {Fn};
  auto Up = [&](auto &&Self, const FunctionDecl &Callee) -> void {
    // (A copy: looking up the callers' call sites may grow the index.)
    const auto Sites = llvm::to_vector(callSitesOf(Callee, Ctx));
    for (const CallSite &Site : Sites) {
      if (!Site.Caller || Site.Caller == &Callee || !Site.Caller->getBody() ||
          isModuleForwardCall(*Site.Call) ||
          llvm::is_contained(Chain, Site.Caller) ||
          GradMode.isOffAt(*Site.Call, *Site.Caller))
        continue;
      if (!enclosingLoops(*Site.Call, *Site.Caller, Parents).empty()) {
        examine(*Forward, *Site.Call, *Site.Caller, Site.Call, Ctx, Chain);
      } else if (Chain.size() < 3 && !Site.Caller->isTemplateInstantiation() &&
                 !isModuleForwardMethod(*Site.Caller)) {
        Chain.push_back(Site.Caller);
        Self(Self, *Site.Caller);
        Chain.pop_back();
      }
    }
  };
  Up(Up, *Fn);
}

/// The last of \p Facts' mode changes before \p At, or \p Last if none is
/// later than it.
const CallExpr *
EvalLoopWithoutNoGradCheck::lastModeCallBefore(const FunctionFacts &Facts,
                                               const Stmt &At,
                                               const SourceManager &SM,
                                               const CallExpr *Last) {
  const SourceLocation AtLoc = SM.getExpansionLoc(beginLoc(At));
  for (const CallExpr *Call : Facts.ModeCalls) {
    const SourceLocation Loc = SM.getExpansionLoc(beginLoc(*Call));
    if (SM.isBeforeInTranslationUnit(Loc, AtLoc) &&
        (!Last || SM.isBeforeInTranslationUnit(
                      SM.getExpansionLoc(beginLoc(*Last)), Loc)))
      Last = Call;
  }
  return Last;
}

void EvalLoopWithoutNoGradCheck::examine(const CallExpr &ForwardCall,
                                         const CallExpr &At,
                                         const FunctionDecl &AtFn,
                                         const CallExpr *Via,
                                         ASTContext &Ctx,
                                         llvm::ArrayRef<const FunctionDecl *> Helpers) {
  const SourceManager &SM = Ctx.getSourceManager();
  const CallExpr *Forward = &At;
  const FunctionDecl *Fn = &AtFn;
  const auto Loops = enclosingLoops(*Forward, *Fn, Parents);
  if (Loops.empty())
    return;
  const FunctionDecl *Outer = outermostFunction(*Forward, *Fn, Parents);
  if (!Outer || !Outer->getBody())
    return;

  // What the function does around the loop: backward passes and optimizer
  // steps, module mode changes, grad mode set by hand. A generic lambda's
  // instantiated body is not part of the enclosing function's (which holds
  // its pattern).
  llvm::SmallVector<const FunctionFacts *, 2> Around = {&factsOf(*Outer, Ctx)};
  if (Fn != Outer && Fn->isTemplateInstantiation())
    Around.push_back(&factsOf(*Fn, Ctx));
  const CallExpr *LastModeCall = nullptr;
  for (const FunctionFacts *F : Around) {
    if (F->SetsGradMode)
      return;
    LastModeCall = lastModeCallBefore(*F, *Forward, SM, LastModeCall);
  }

  // A backward pass in a loop around the forward (or outside any loop) means
  // gradients are wanted: adversarial inputs, style transfer, fine-tuning.
  // One in a sibling loop (the training loop of an epoch) does not.
  // A forward in a lambda (a validation callback defined before the call
  // that trains) is not on the path of a training call of the function
  // around the lambda that no loop of the forward holds.
  const auto AllLoops =
      enclosingLoops(*Forward, *Fn, Parents, /*CrossLambdas=*/true);
  const LambdaExpr *OwnLambda = enclosingLambda(*Forward, *Outer, Parents);
  // (A backward pass or a step written there, or a helper handed what the
  // lambda computes, still counts: gradients may be wanted through it.)
  auto InOwnLambda = [&](const CallExpr &Call) {
    if (!OwnLambda || isTrainingCall(Call))
      return true;
    bool HandsLambdaResult = false;
    for (const Expr *Arg : Call.arguments())
      forEachStmt(Arg, [&](const Stmt &S) {
        if (const auto *Inner = dyn_cast<CallExpr>(&S))
          if (const FunctionDecl *Body = calledBody(*Inner, Ctx))
            HandsLambdaResult |= Body == OwnLambda->getCallOperator();
      });
    if (HandsLambdaResult)
      return true;
    const SourceRange Body = OwnLambda->getBody()->getSourceRange();
    const SourceLocation Loc = SM.getExpansionLoc(beginLoc(Call));
    return !SM.isBeforeInTranslationUnit(Loc, SM.getExpansionLoc(Body.getBegin())) &&
           !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Body.getEnd()), Loc);
  };
  // A training lambda stored and called elsewhere (`train_step(x)` in the
  // epoch's training loop) trains where its calls are: in a sibling loop it
  // says nothing about the forward's.
  auto TrainsOnlyInSiblingLoops = [&](const FunctionDecl &Holder) {
    const auto *Method = dyn_cast<CXXMethodDecl>(&Holder);
    if (!Method || !Method->getParent()->isLambda() ||
        (OwnLambda && OwnLambda->getCallOperator() == Method))
      return false;
    bool Called = false;
    for (const CallSite &Site : callSitesOf(Holder, Ctx)) {
      if (!Site.Caller)
        return false;
      Called = true;
      const auto SiteLoops = enclosingLoops(*Site.Call, *Site.Caller, Parents,
                                            /*CrossLambdas=*/true);
      if (SiteLoops.empty() || llvm::is_contained(AllLoops, SiteLoops.front()))
        return false;
    }
    return Called;
  };
  for (const FunctionFacts *F : Around)
    for (auto [Training, Holder] : F->TrainingCalls) {
      const auto TrainingLoops =
          enclosingLoops(*Training, *Holder, Parents, /*CrossLambdas=*/true);
      if (const LambdaExpr *Lambda =
              TrainingLoops.empty()
                  ? enclosingLambda(*Training, *Holder, Parents)
                  : nullptr;
          Lambda && Lambda->getCallOperator() &&
          TrainsOnlyInSiblingLoops(*Lambda->getCallOperator()))
        continue;
      if ((TrainingLoops.empty() && InOwnLambda(*Training)) ||
          (!TrainingLoops.empty() &&
           llvm::is_contained(AllLoops, TrainingLoops.front())))
        return;
    }

  // Evaluation context: the function's name, or a module put into eval mode
  // (the last mode change before the forward is eval()).
  bool NamedForEvaluation = false;
  for (const std::string &Name : contextNames(*Forward, *Fn, Parents))
    NamedForEvaluation |= EvaluationFunction.match(Name);
  const CallExpr *EvalCall = nullptr;
  for (const FunctionFacts *F : Around)
    if (LastModeCall && F->LeavesEval.contains(LastModeCall))
      EvalCall = LastModeCall;
  // The helper that holds the forward: its name (`validation_step(model,
  // x)`), and its own last mode change before the forward (`model->eval();
  // auto out = model->forward(x);` inside it).
  for (const FunctionDecl *Between :
       Helpers.size() > 1 ? Helpers.drop_front() : ArrayRef<const FunctionDecl *>())
    if (Between->getIdentifier())
      NamedForEvaluation |= EvaluationFunction.match(Between->getName());
  if (const FunctionDecl *Helper = Helpers.empty() ? nullptr : Helpers.front();
      Helper && Helper->getBody()) {
    for (const std::string &Name : contextNames(ForwardCall, *Helper, Parents))
      NamedForEvaluation |= EvaluationFunction.match(Name);
    const FunctionFacts &Inner = factsOf(*Helper, Ctx);
    const CallExpr *InnerLast = lastModeCallBefore(Inner, ForwardCall, SM);
    if (InnerLast && Inner.LeavesEval.contains(InnerLast))
      EvalCall = InnerLast;
  }
  // The evaluation loop: the outermost loop around the forward that trains
  // nothing (an epoch loop that also trains is not one).
  const Stmt *EvalLoop = nullptr;
  for (const Stmt *Loop : llvm::reverse(Loops))
    if (!trains(*Loop, Ctx)) {
      EvalLoop = Loop;
      break;
    }
  if (!EvalLoop)
    return;
  // Evidence from the loop itself, whatever the names: nothing computed
  // from the forward's output outlives the iteration or leaves the code
  // shown (LoopEscape.h), so no backward pass can ever use the graph it
  // records. A name (EvaluationFunctionRegex) is evidence only together
  // with what the function's callers show (callersRuleOut).
  // (Not after `.train()`: a module put back into training mode is being
  // trained, or its batch norm statistics recalibrated, by intent.)
  // The callers decide for a function that changes no mode itself: one that
  // manages grad mode by hand, or last put the module back into training
  // mode before the call, says the loop is not evaluation.
  auto CallersTrainOrManageGradMode = [&] {
    for (const CallSite &Site : callSitesOf(*Outer, Ctx)) {
      if (!Site.Caller)
        continue;
      const FunctionFacts &CallerFacts = factsOf(*Site.Caller, Ctx);
      if (CallerFacts.SetsGradMode)
        return true;
      const CallExpr *Last = lastModeCallBefore(CallerFacts, *Site.Call, SM);
      if (Last && !CallerFacts.LeavesEval.contains(Last))
        return true;
    }
    return false;
  };
  const bool OutputsStayInIteration =
      !(LastModeCall && !EvalCall) &&
      tensorStaysInIteration(*Forward, *EvalLoop) &&
      (LastModeCall || !CallersTrainOrManageGradMode());
  if (!NamedForEvaluation && !EvalCall && !OutputsStayInIteration)
    return;
  if (callersRuleOut(*Outer, /*NamedOnly=*/!EvalCall, Ctx))
    return;
  record({&ForwardCall, Via ? Via : &ForwardCall, EvalLoop, EvalCall, Fn,
          Via != nullptr},
         SM);
}

void EvalLoopWithoutNoGradCheck::record(const Finding &F,
                                        const SourceManager &SM) {
  auto [It, Inserted] =
      FindingOfLoop.try_emplace(beginLoc(*F.EvalLoop), Findings.size());
  if (Inserted) {
    Findings.push_back(F);
    return;
  }
  // Where the user acts: the loop's own forward before a call through
  // helpers, then the first in the loop (the same call seen again, in
  // another instantiation or for another forward of its helper: the first
  // forward of the helper).
  Finding &Old = Findings[It->second];
  auto Before = [&](const Stmt &A, const Stmt &B) {
    return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(beginLoc(A)),
                                        SM.getExpansionLoc(beginLoc(B)));
  };
  bool Better = false;
  if (Old.Via != F.Via)
    Better = Old.Via;
  else if (beginLoc(*F.At) != beginLoc(*Old.At))
    Better = Before(*F.At, *Old.At);
  else
    Better = F.Via && beginLoc(*F.Forward) != beginLoc(*Old.Forward) &&
             Before(*F.Forward, *Old.Forward);
  if (Better)
    Old = F;
}

void EvalLoopWithoutNoGradCheck::reportFindings() {
  if (!Context)
    return;
  const SourceManager &SM = Context->getSourceManager();
  // In the order of the loops in the file, so that fix-its (one guard per
  // block) do not depend on the order functions were visited in.
  std::vector<const Finding *> Order;
  for (const Finding &F : Findings)
    Order.push_back(&F);
  llvm::stable_sort(Order, [&](const Finding *A, const Finding *B) {
    return SM.isBeforeInTranslationUnit(
        SM.getExpansionLoc(beginLoc(*A->EvalLoop)),
        SM.getExpansionLoc(beginLoc(*B->EvalLoop)));
  });
  for (const Finding *F : Order)
    report(*F, *Context);
}

void EvalLoopWithoutNoGradCheck::report(const Finding &F, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *EvalLoop = F.EvalLoop;
  const FunctionDecl &Fn = *F.Fn;
  {
    auto Diag =
        diag(beginLoc(*F.At),
             "module forward %select{|through this call }0in an evaluation "
             "loop without a gradient-disabling guard records an autograd "
             "graph on every iteration; add 'torch::NoGradGuard no_grad;' "
             "before the loop")
        << F.Via;

    // Fix-it: the guard on its own line before the loop, in the loop's block.
    const auto *Block =
        dyn_cast_or_null<CompoundStmt>(Parents.parentOf(*EvalLoop, Fn));
    SourceLocation LoopLoc = beginLoc(*EvalLoop);
    // The guard lives until the end of the block: not if later statements of
    // the block train, and not twice in one block (the first one covers the
    // rest of the block).
    bool LaterStatementsTrain = false;
    if (Block) {
      bool AfterLoop = false;
      for (const Stmt *St : Block->body()) {
        if (AfterLoop && trains(*St, Ctx))
          LaterStatementsTrain = true;
        AfterLoop |= St == EvalLoop;
      }
    }
    if (Block && LoopLoc.isFileID() && !LaterStatementsTrain &&
        GuardedBlocks.insert(beginLoc(*Block)).second) {
      const std::string Guard = "torch::NoGradGuard " +
                                freshGuardName(*EvalLoop, *Block, Fn, Parents) +
                                ";";
      auto [File, Offset] = SM.getDecomposedLoc(LoopLoc);
      StringRef Buffer = SM.getBufferData(File);
      StringRef BeforeLoop = Buffer.substr(0, Offset);
      StringRef LineStart = BeforeLoop.substr(BeforeLoop.rfind('\n') + 1);
      if (LineStart.find_first_not_of(" \t") == StringRef::npos)
        Diag << FixItHint::CreateInsertion(LoopLoc,
                                           Guard + "\n" + LineStart.str());
      else
        Diag << FixItHint::CreateInsertion(LoopLoc, Guard + " ");
    }
  }
  if (F.Via)
    diag(beginLoc(*F.Forward), "the module forward that the call runs",
         DiagnosticIDs::Note);
  if (F.EvalCall)
    diag(beginLoc(*F.EvalCall), "module put into evaluation mode here",
         DiagnosticIDs::Note);
}

} // namespace clang::tidy::torch