//===--- EvalModeNotRestoredCheck.cpp -------------------------------------===//
//
// torch-eval-mode-not-restored
//
//===----------------------------------------------------------------------===//

#include "EvalModeNotRestoredCheck.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/PathGuard.h"
#include "utils/analysis/ProjectSummaries.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Analysis/CFG.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

using ModeEvent = EvalModeNotRestoredCheck::ModeEvent;

/// \p E as a parameter of the function it is in, `flag` or `!flag`: the
/// parameter's index and whether it is negated.
std::optional<std::pair<unsigned, bool>> boolParameterOf(const Expr *E) {
  bool Negated = false;
  E = stripImplicit(E);
  while (const auto *Not = dyn_cast_or_null<UnaryOperator>(E)) {
    if (Not->getOpcode() != UO_LNot)
      return std::nullopt;
    Negated = !Negated;
    E = stripImplicit(Not->getSubExpr());
  }
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *Param = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
  if (!Param)
    return std::nullopt;
  return std::make_pair(Param->getFunctionScopeIndex(), Negated);
}

/// What \p Call itself does to a module: eval(), train(), a forward. Inside
/// a template a still-dependent `m.eval()`, `m->train()`, `m->forward(x)` or
/// `m(x)` counts by its name (once instantiated it may be one).
std::optional<ModeEvent> directEvent(const CallExpr &Call,
                                     const ASTContext &Ctx) {
  const StringRef Dependent = dependentCalleeName(Call);
  const ValueDecl *Object = moduleObjectEntity(callObject(Call));
  if (isModuleEvalCall(Call, Ctx) ||
      (Dependent == "eval" && Call.getNumArgs() == 0))
    return ModeEvent{ModeEvent::Eval, Object, &Call};
  if (isModuleTrainCall(Call, Ctx) ||
      (Dependent == "train" &&
       (Call.getNumArgs() == 0 ||
        (isa<CXXBoolLiteralExpr>(stripImplicit(Call.getArg(0))) &&
         cast<CXXBoolLiteralExpr>(stripImplicit(Call.getArg(0)))
             ->getValue()))))
    return ModeEvent{ModeEvent::Train, Object, &Call};
  if (const Expr *Flag = moduleTrainFlag(Call, Ctx)) {
    if (std::optional<std::pair<unsigned, bool>> P = boolParameterOf(Flag))
      return ModeEvent{ModeEvent::FromParam, Object, &Call, P->first,
                       P->second};
    // Any other flag (`m->train(was_training)` after `was_training =
    // m->is_training()`, a configuration value): the mode it sets is not
    // known here, and it may be training; for this check that restores.
    return ModeEvent{ModeEvent::Train, Object, &Call};
  }
  if ((isModuleForwardCall(Call) && !isLossCall(Call)) ||
      Dependent == "forward")
    return ModeEvent{ModeEvent::Forward, Object, &Call};
  // `model(x)` on a module of dependent type.
  if (Call.getStmtClass() == Stmt::CallExprClass && Call.getCallee() &&
      Call.getCallee()->isTypeDependent())
    if (const ValueDecl *Callee = namedEntity(*Call.getCallee());
        Callee && isa<VarDecl, FieldDecl>(Callee))
      return ModeEvent{ModeEvent::Forward, Callee, &Call};
  return std::nullopt;
}

/// The bodies of the user's code that \p Call may run: a function's, a
/// lambda's called directly or through a variable or member holding one (a
/// `std::function` callback), or each lambda of a local container of
/// callbacks that the call takes an element of (calledBodies).
llvm::SmallVector<const FunctionDecl *, 2>
moduleHelperCallees(const CallExpr &Call, const ASTContext &Ctx) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  const FunctionDecl *Def = nullptr;
  if (Callee && Callee->hasBody(Def) && Def->getBody() &&
      !isLibTorchFunction(Def) &&
      isInUserCode(Def->getLocation(), Def->getASTContext().getSourceManager()))
    return {Def};
  return calledBodies(Call, Ctx);
}

/// True if \p Call is made on the object whose member function it calls
/// (`helper()`, `this->helper()`).
bool isCallOnThis(const CallExpr &Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  return Member && Member->getImplicitObjectArgument() &&
         isa<CXXThisExpr>(
             Member->getImplicitObjectArgument()->IgnoreParenImpCasts());
}

} // namespace

void EvalModeNotRestoredCheck::forgetTranslationUnit() {
  Parents.clear();
  FactsCache.clear();
  InProgress.clear();
  Reported.clear();
}

const EvalModeNotRestoredCheck::Facts &
EvalModeNotRestoredCheck::factsOf(const FunctionDecl &Fn) {
  if (auto It = FactsCache.find(&Fn); It != FactsCache.end())
    return It->second;
  Facts F;
  const ASTContext &Ctx = Fn.getASTContext();
  // Post-order: a call's arguments before the call, as they run.
  auto Visit = [&](auto &&Self, const Stmt *S) -> void {
    if (!S || isa<LambdaExpr>(S))
      return;
    for (const Stmt *Child : S->children())
      Self(Self, Child);
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      return;
    llvm::SmallVector<ModeEvent, 2> Events;
    bool Trains = isTrainingCall(*Call);
    if (std::optional<ModeEvent> E = directEvent(*Call, Ctx)) {
      if (E->Model)
        Events.push_back(*E);
    } else if (llvm::SmallVector<const FunctionDecl *, 2> Callees =
                   moduleHelperCallees(*Call, Ctx);
               !Callees.empty()) {
     for (const FunctionDecl *Callee : Callees) {
      bool CalleeTrains = false;
      const bool IsLambda = isa<CXXMethodDecl>(Callee) &&
                            cast<CXXMethodDecl>(Callee)->getParent()->isLambda();
      for (const ModeEvent &E : summaryOf(*Callee, CalleeTrains)) {
        const ValueDecl *Model = nullptr;
        // A lambda acts on what it captured: the caller's own variables.
        if (IsLambda && isa<VarDecl>(E.Model) &&
            E.Model->getDeclContext() != static_cast<const DeclContext *>(Callee)) {
          Model = E.Model;
        } else if (const auto *Param = dyn_cast<ParmVarDecl>(E.Model)) {
          const unsigned Index = Param->getFunctionScopeIndex();
          const unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
          if (Index + First < Call->getNumArgs())
            Model = moduleObjectEntity(Call->getArg(Index + First));
        } else if (isa<FieldDecl>(E.Model) && isCallOnThis(*Call)) {
          Model = E.Model;
        } else if (const auto *Field = dyn_cast<FieldDecl>(E.Model);
                   Field && IsLambda) {
          // A lambda that captured `this` (a std::function member's default
          // initialiser, one made in a method): called from a method of the
          // same class, it acts on this object's member.
          const auto *Method = dyn_cast<CXXMethodDecl>(&Fn);
          if (Method && !Method->isStatic() &&
              Method->getParent()->getCanonicalDecl() ==
                  Field->getParent()->getCanonicalDecl())
            Model = E.Model;
        }
        if (!Model)
          continue;
        if (E.What != ModeEvent::FromParam) {
          Events.push_back({E.What, Model, E.Site});
          continue;
        }
        // The mode this call passes: a constant, or a parameter of this
        // function in turn; unknown otherwise, which may be training.
        const unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
        if (E.Param + First >= Call->getNumArgs())
          continue;
        const Expr *Arg = Call->getArg(E.Param + First);
        bool On = true;
        // The call that passes the constant is the site: the helper may be
        // called with both values from different places.
        if (!Arg->isValueDependent() &&
            Arg->EvaluateAsBooleanCondition(On, Ctx))
          Events.push_back({On != E.Negated ? ModeEvent::Train : ModeEvent::Eval,
                            Model, Call, 0, false, E.Site});
        else if (std::optional<std::pair<unsigned, bool>> P =
                     boolParameterOf(Arg))
          Events.push_back({ModeEvent::FromParam, Model, E.Site, P->first,
                            P->second != E.Negated});
        else
          Events.push_back({ModeEvent::Train, Model, Call});
      }
      Trains |= CalleeTrains;
     }
    } else if (const ExternalSummary *Other =
                   Call->getDirectCallee()
                       ? externalSummaryOf(*Call->getDirectCallee())
                       : nullptr) {
      // A helper of another file: its summary (ProjectSummaries), with the
      // call itself as the site of what it does.
      const unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
      for (const ModeEffect &E : Other->Modes)
        if (E.Param + First < Call->getNumArgs())
          if (const ValueDecl *Model =
                  moduleObjectEntity(Call->getArg(E.Param + First)))
            Events.push_back({E.What == ModeEffect::Eval    ? ModeEvent::Eval
                              : E.What == ModeEffect::Train ? ModeEvent::Train
                                                            : ModeEvent::Forward,
                              Model, Call});
      Trains |= Other->Trains;
    }
    if (Trains)
      F.Training.push_back(Call);
    if (!Events.empty()) {
      F.Order.push_back(Call);
      F.Events[Call] = std::move(Events);
    }
  };
  Visit(Visit, Fn.getBody());
  return FactsCache[&Fn] = std::move(F);
}

llvm::SmallVector<ModeEvent, 2>
EvalModeNotRestoredCheck::summaryOf(const FunctionDecl &Fn, bool &Trains) {
  llvm::SmallVector<ModeEvent, 2> Effects;
  Trains = false;
  if (!InProgress.insert(&Fn).second)
    return Effects; // Recursion: nothing known.
  const Facts &F = factsOf(Fn);
  InProgress.erase(&Fn);
  Trains = !F.Training.empty();
  // Per module parameter or member: what it meets first (train(), or a
  // training forward) and the mode it is left in.
  llvm::SmallVector<const ValueDecl *, 2> Models;
  // (For a lambda, also the variables it captured from the function around
  // it: the caller's own.)
  for (const CallExpr *Call : F.Order)
    for (const ModeEvent &E : F.Events.find(Call)->second)
      if ((isa<ParmVarDecl, FieldDecl>(E.Model) ||
           (isa<VarDecl>(E.Model) &&
            E.Model->getDeclContext() != static_cast<const DeclContext *>(&Fn))) &&
          !llvm::is_contained(Models, E.Model))
        Models.push_back(E.Model);
  // The returns of the function's own code (lambdas excluded), for the
  // paths that leave before a later train().
  llvm::SmallVector<const ReturnStmt *, 4> Returns;
  auto FindReturns = [&](auto &&Self, const Stmt *S) -> void {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *R = dyn_cast<ReturnStmt>(S))
      Returns.push_back(R);
    for (const Stmt *Child : S->children())
      Self(Self, Child);
  };
  FindReturns(FindReturns, Fn.getBody());
  const SourceManager &SM = Fn.getASTContext().getSourceManager();
  auto Before = [&](SourceLocation A, SourceLocation B) {
    return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A),
                                        SM.getExpansionLoc(B));
  };
  for (const ValueDecl *Model : Models) {
    const ModeEvent *First = nullptr, *LastMode = nullptr, *LastEval = nullptr;
    const CallExpr *LastModeCall = nullptr, *LastEvalCall = nullptr;
    for (const CallExpr *Call : F.Order)
      for (const ModeEvent &E : F.Events.find(Call)->second)
        if (E.Model == Model) {
          if (!First)
            First = &E;
          if (E.What != ModeEvent::Forward) {
            LastMode = &E;
            LastModeCall = Call;
          }
          if (E.What == ModeEvent::Eval) {
            LastEval = &E;
            LastEvalCall = Call;
          }
        }
    // `m->eval(); if (data.empty()) return 0; ...; m->train();`: a return
    // between the last eval() and the train() after it leaves the module in
    // evaluation mode on that path.
    if (LastMode && LastEval && LastMode->What == ModeEvent::Train &&
        LastModeCall != LastEvalCall &&
        llvm::any_of(Returns, [&](const ReturnStmt *R) {
          return Before(LastEvalCall->getBeginLoc(), R->getBeginLoc()) &&
                 Before(R->getBeginLoc(), LastModeCall->getBeginLoc());
        }))
      LastMode = LastEval;
    const bool Entry = First->What == ModeEvent::Train ||
                       First->What == ModeEvent::FromParam ||
                       (First->What == ModeEvent::Forward && Trains);
    if (Entry)
      Effects.push_back(*First);
    if (LastMode && !(Entry && LastMode == First))
      Effects.push_back(*LastMode);
  }
  return Effects;
}

void EvalModeNotRestoredCheck::registerMatchers(MatchFinder *Finder) {
  // Per function with a loop; templates in their written form (dependent
  // calls by name), their instantiations skipped: one diagnostic each.
  UserCode.addMatcher(
      functionDecl(isExpansionInUserCode(), isDefinition(),
                   unless(ast_matchers::isTemplateInstantiation()),
                   hasBody(hasDescendant(
                       stmt(anyOf(forStmt(), cxxForRangeStmt(), whileStmt(),
                                  doStmt())))))
          .bind("fn"));
  UserCode.registerWith(*Finder);
}

void EvalModeNotRestoredCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (!Fn->getBody() || Fn->isInvalidDecl() || isInTemplateInstantiation(*Fn))
    return;
  const Facts &F = factsOf(*Fn);
  auto InLoop = [&](const Stmt &S, const Stmt *Loop) {
    return llvm::is_contained(enclosingLoops(S, *Fn, Parents), Loop);
  };

  std::unique_ptr<CFG> Graph;
  llvm::DenseMap<const Stmt *, std::pair<const CFGBlock *, unsigned>> Where;
  for (const CallExpr *Call : F.Order) {
    const auto &Events = F.Events.find(Call)->second;
    for (unsigned K = 0; K < Events.size(); ++K) {
      const ModeEvent &Eval = Events[K];
      if (Eval.What != ModeEvent::Eval ||
          Reported.contains(Eval.Site->getBeginLoc()))
        continue;
      // The innermost loop around the eval() that trains the same module.
      const Stmt *TrainingLoop = nullptr;
      for (const Stmt *Loop : enclosingLoops(*Call, *Fn, Parents)) {
        bool Trains = llvm::any_of(F.Training, [&](const CallExpr *T) {
          return InLoop(*T, Loop);
        });
        bool Forwards = llvm::any_of(F.Order, [&](const CallExpr *C) {
          return llvm::any_of(F.Events.find(C)->second,
                              [&](const ModeEvent &E) {
                                return E.What == ModeEvent::Forward &&
                                       E.Model == Eval.Model;
                              }) &&
                 InLoop(*C, Loop);
        });
        if (Trains && Forwards) {
          TrainingLoop = Loop;
          break;
        }
      }
      if (!TrainingLoop)
        continue;
      if (!Graph) {
        CFG::BuildOptions Options;
        Options.setAllAlwaysAdd();
        Graph = CFG::buildCFG(Fn, const_cast<Stmt *>(Fn->getBody()),
                              Result.Context, Options);
        if (!Graph)
          return;
        for (const CFGBlock *B : *Graph)
          for (unsigned I = 0; I < B->size(); ++I)
            if (std::optional<CFGStmt> S = (*B)[I].getAs<CFGStmt>())
              Where.try_emplace(S->getStmt(), B, I);
      }
      auto Start = Where.find(Call);
      if (Start == Where.end())
        continue;

      // Every path from the eval() on: one that comes round the training
      // loop to a forward of the same module without meeting train(). A path
      // known to be on the loop's last iteration (the eval() under `if (epoch
      // == epochs)`, past `if (epoch != epochs) model->train();` untaken)
      // leaves the loop instead of coming round.
      const CallExpr *TrainedAt = nullptr;
      llvm::DenseSet<unsigned> Seen; // Block ID * 4 + crossed * 2 + last.
      llvm::SmallVector<
          std::tuple<const CFGBlock *, unsigned, unsigned, bool, bool>, 8>
          Work = {{Start->second.first, Start->second.second, K + 1, false,
                   onlyOnLastIteration(*Call, *TrainingLoop, *Fn, Parents)}};
      while (!Work.empty() && !TrainedAt) {
        auto [Block, Index, FirstEvent, Crossed, Last] = Work.pop_back_val();
        bool Alive = true;
        for (unsigned I = Index; I < Block->size() && Alive && !TrainedAt;
             ++I, FirstEvent = 0) {
          std::optional<CFGStmt> S = (*Block)[I].getAs<CFGStmt>();
          const auto *C = S ? dyn_cast<CallExpr>(S->getStmt()) : nullptr;
          auto It = C ? F.Events.find(C) : F.Events.end();
          if (It == F.Events.end())
            continue;
          for (unsigned J = FirstEvent; J < It->second.size(); ++J) {
            const ModeEvent &E = It->second[J];
            if (E.Model != Eval.Model)
              continue;
            // train() restores the mode; another eval() (a frozen teacher
            // put into eval() before each of its forwards) is what that
            // forward runs under, not this one.
            if (E.What != ModeEvent::Forward) {
              Alive = false;
              break;
            }
            if (E.What == ModeEvent::Forward && Crossed &&
                InLoop(*C, TrainingLoop)) {
              TrainedAt = C;
              break;
            }
          }
        }
        if (!Alive || TrainedAt)
          continue;
        const Stmt *Terminator = Block->getTerminatorStmt();
        const bool AtLoop = Terminator == TrainingLoop;
        const bool Next = Crossed || AtLoop;
        // A branch that holds (or fails) only on the last iteration.
        const Expr *Cond = nullptr;
        if (const auto *If = dyn_cast_or_null<IfStmt>(Terminator))
          Cond = If->getCond();
        else if (const auto *CO =
                     dyn_cast_or_null<AbstractConditionalOperator>(Terminator))
          Cond = CO->getCond();
        IterationTest Test;
        if (Cond && !Last && Block->succ_size() == 2)
          Test = classifyIteration(Cond, *TrainingLoop, *Result.Context);
        unsigned SuccIndex = 0;
        for (const CFGBlock *Succ : Block->succs()) {
          const unsigned I = SuccIndex++;
          // On the last iteration the loop's test fails: only its exit.
          if (AtLoop && Last && I == 0)
            continue;
          const bool NextLast =
              !AtLoop && (Last || (I == 0 && Test.TrueOnlyOnLast) ||
                          (I == 1 && Test.FalseOnlyOnLast));
          if (Succ &&
              Seen.insert(Succ->getBlockID() * 4 + Next * 2 + NextLast).second)
            Work.push_back({Succ, 0, 0, Next, NextLast});
        }
      }
      if (!TrainedAt)
        continue;
      Reported.insert(Eval.Site->getBeginLoc());
      diag(beginLoc(*Eval.Site),
           "module put into evaluation mode in a training loop is still in "
           "evaluation mode when a later iteration trains it, so dropout and "
           "batch norm train in inference mode; call train() on it before "
           "training");
      if (Eval.Site != Call)
        diag(beginLoc(*Call), "evaluation mode set by this call inside the "
                              "training loop",
             DiagnosticIDs::Note);
      else if (Eval.SetBy)
        diag(beginLoc(*Eval.SetBy),
             "the mode is set here from the argument", DiagnosticIDs::Note);
      else if (!isModuleEvalCall(*Call, *Result.Context) &&
               Call->getDirectCallee())
        diag(beginLoc(*Call),
             "%0 (defined in another file) leaves the module in evaluation "
             "mode",
             DiagnosticIDs::Note)
            << Call->getDirectCallee();
      diag(beginLoc(*TrainedAt),
           "trained here without train() on some path since", DiagnosticIDs::Note);
    }
  }
}

} // namespace clang::tidy::torch
