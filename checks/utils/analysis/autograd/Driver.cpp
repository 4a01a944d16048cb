//===--- Driver.cpp - AutogradFlow's fixpoint over the CFG ----------------===//
//
// The CFG driver of the builder: the CFG of the body, the full expressions
// (declarations, returns) and lifetime ends each block evaluates, the
// fixpoint in reverse post-order (state joins at block entries, rounds until
// nothing changes), one more round that reports, and the transfer of a
// statement root (a declaration defines its variables; a return is the
// function's result).
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/autograd/Builder.h"
#include "utils/analysis/autograd/MemberState.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PointerUnion.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

namespace clang::tidy::torch {

using namespace autograd;

namespace {

/// The local container \p Init starts an iterator over: `v.begin()`,
/// `v.cbegin()`, `std::begin(v)` (and their reverse forms).
const VarDecl *iteratedContainer(const Expr *Init) {
  const Expr *Object = iteratorBase(Init, /*Inserters=*/false);
  const auto *Ref =
      dyn_cast_or_null<DeclRefExpr>(Object ? Object->IgnoreParenImpCasts() : nullptr);
  const auto *Container = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Container && isTensorValued(Container->getType()) ? Container
                                                            : nullptr;
}

/// Rounds of the fixpoint iteration before giving up on convergence (sets
/// only grow, so real code converges in loop-depth + 1 rounds).
constexpr unsigned MaxRounds = 12;

} // namespace

/// Per block, in order: full expressions to evaluate (Stmt) and variables
/// whose lifetime ends (VarDecl).
struct AutogradFlowBuilder::Schedule {
  using Step = llvm::PointerUnion<const Stmt *, const VarDecl *>;
  std::unique_ptr<CFG> Graph;
  std::unique_ptr<PostOrderCFGView> Order;
  std::vector<llvm::SmallVector<Step, 4>> Steps;
};

AutogradFlowBuilder::AutogradFlowBuilder(const FunctionDecl &Fn,
                                         ASTContext &Ctx, AutogradFlow &Out,
                                         AutogradFlow::Mode M)
    : Fn(Fn), Ctx(Ctx), Out(Out), IsForward(isModuleForwardMethod(Fn)),
      AsCallee(M == AutogradFlow::Mode::Callee) {}

void AutogradFlowBuilder::visitRoot(const Stmt &Root) {
  if (const auto *DS = dyn_cast<DeclStmt>(&Root)) {
    for (const Decl *D : DS->decls()) {
      const auto *Var = dyn_cast<VarDecl>(D);
      if (!Var)
        continue;
      // A struct, pair or tuple declared with its elements: each tensor
      // element's stand-in gets its own value (docs/design.md, "Access
      // paths").
      std::optional<Value> Elementwise;
      if (isLocal(Var) && Var->getInit()) {
        killSubobjects(Var);
        Elementwise = visitElementwiseInit(*Var, *Var->getInit());
      }
      Value V = Elementwise ? *Elementwise : visit(Var->getInit());
      if (!isLocal(Var))
        continue;
      // A struct declared anew: its tensor fields hold nothing known yet.
      if (!Elementwise)
        killSubobjects(Var);
      // `for (auto &p : model->parameters())`, `for (float v : values)`:
      // the loop variable is an element of the range.
      if (const VarDecl *Range = RangeOf.lookup(Var)) {
        // `__range1` is bound to the container the loop walks.
        const VarDecl *Container = nullptr;
        if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(
                Range->getInit() ? Range->getInit()->IgnoreParenImpCasts()
                                 : nullptr))
          Container = dyn_cast<VarDecl>(Ref->getDecl());
        V.join(elementOf(Range, Container, RangeForLoc.lookup(Var)));
      }
      // `auto it = params.begin();`: `*it` and `it->` are its elements.
      // (A range-for's own `__begin1` is read as its loop variable, above.)
      if (const VarDecl *Container = iteratedContainer(Var->getInit());
          Container && !Var->isImplicit() && !isTensorValued(Var->getType()))
        IteratorOf[Var] = Container;
      if (isTensorValued(Var->getType()))
        define(Var, Var, Var->getLocation(), filterByType(V, Var->getType()));
      else if (V.Taint)
        S->Taint[Var] = V.Taint;
      else
        S->Taint.erase(Var);
    }
    return;
  }
  if (const auto *Return = dyn_cast<ReturnStmt>(&Root)) {
    Value V = visit(Return->getRetValue());
    if (IsForward) {
      reportBroken(V, *Return, AutogradFlow::GradientUse::ReturnedFromForward);
      // The caller backpropagates forward()'s result.
      reportWrites(V.Savers, *Return);
    } else if (const auto *Method = dyn_cast<CXXMethodDecl>(&Fn);
               !AsCallee && !(Method && Method->getParent()->isLambda())) {
      // A helper's result: its callers decide (resultReachesBackwardPass).
      reportWrites(V.Savers, *Return, /*Returned=*/true);
    }
    if (Reporting) {
      Out.Result.History = std::max(Out.Result.History, V.History);
      if (!Out.Result.FromValues) {
        Out.Result.FromValues = V.FromValues;
        Out.Result.ValuesRead = V.ValuesRead;
      }
      if (!Out.Result.ReadOut)
        Out.Result.ReadOut = V.Taint;
      recordReturnedSavings(V);
      recordReturnedElements(Return->getRetValue());
    }
    return;
  }
  visit(&Root);
}

void AutogradFlowBuilder::initialState(State &Entry) {
  State *Saved = S;
  S = &Entry;
  for (const ParmVarDecl *Param : Fn.parameters())
    if (isTensorValued(Param->getType())) {
      Value V = outsideValue(Param->getType());
      if (Param->getFunctionScopeIndex() < 32)
        V.Params = 1u << Param->getFunctionScopeIndex();
      define(Param, Param, Param->getLocation(), V);
    }
  S = Saved;
}

bool AutogradFlowBuilder::schedule(const Stmt &Body, Schedule &Plan) const {
  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  Options.AddImplicitDtors = false;
  Options.AddTemporaryDtors = false;
  Options.AddInitializers = false;
  // Where each variable's lifetime ends: a tensor out of scope can no longer
  // be backpropagated (the loss of the previous loop iteration).
  Options.AddLifetime = true;
  Plan.Graph = CFG::buildCFG(&Fn, const_cast<Stmt *>(&Body), &Ctx, Options);
  if (!Plan.Graph)
    return false;

  // Each full expression (or declaration, or return) is evaluated once, in
  // the first block where one of its parts appears.
  ParentMap BodyParents(const_cast<Stmt *>(&Body));
  llvm::DenseMap<const DeclStmt *, const DeclStmt *> Synthetic;
  for (const auto &[SyntheticDS, Original] : Plan.Graph->synthetic_stmts())
    Synthetic[SyntheticDS] = Original;
  auto RootOf = [&](const Stmt *St) {
    if (const auto *DS = dyn_cast<DeclStmt>(St))
      if (const DeclStmt *Original = Synthetic.lookup(DS))
        St = Original;
    while (const Stmt *Parent = BodyParents.getParent(St)) {
      if (isa<Expr>(Parent)) {
        St = Parent;
        continue;
      }
      if (isa<DeclStmt>(Parent) || isa<ReturnStmt>(Parent))
        St = Parent;
      break;
    }
    return St;
  };

  Plan.Order = std::make_unique<PostOrderCFGView>(Plan.Graph.get());
  Plan.Steps.resize(Plan.Graph->getNumBlockIDs());
  llvm::SmallPtrSet<const Stmt *, 32> Seen;
  for (const CFGBlock *Block : *Plan.Order)
    for (const CFGElement &Element : *Block) {
      if (std::optional<CFGStmt> St = Element.getAs<CFGStmt>()) {
        if (const Stmt *Root = RootOf(St->getStmt()); Seen.insert(Root).second)
          Plan.Steps[Block->getBlockID()].push_back(Root);
      } else if (std::optional<CFGLifetimeEnds> End =
                     Element.getAs<CFGLifetimeEnds>()) {
        // Objects too: a module made in a loop body keeps no state (its
        // members, MemberState.h) into the next iteration.
        if (const VarDecl *Var = End->getVarDecl();
            isLocal(Var) && (isTensorValued(Var->getType()) ||
                             Var->getType()->isRecordType()))
          Plan.Steps[Block->getBlockID()].push_back(End->getVarDecl());
      }
    }
  return true;
}

void AutogradFlowBuilder::recordReturnedElements(const Expr *Returned) {
  if (Out.Result.ElementsUnknown)
    return;
  // The elements of `{a, b}`, `std::make_pair(a, b)`, `std::make_tuple(...)`,
  // `std::pair<...>(a, b)`: named locals or members only (read again here,
  // which changes nothing).
  llvm::SmallVector<const Expr *, 3> Elements;
  const Expr *E = Returned ? stripImplicit(Returned) : nullptr;
  if (const auto *List = dyn_cast_or_null<InitListExpr>(E))
    Elements.assign(List->inits().begin(), List->inits().end());
  else if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E);
           Construct && Construct->getNumArgs() >= 2)
    Elements.assign(Construct->arg_begin(), Construct->arg_end());
  else if (const auto *Make = dyn_cast_or_null<CallExpr>(E);
           Make && (isStdCall(*Make, "make_pair") ||
                    isStdCall(*Make, "make_tuple")))
    Elements.assign(Make->arg_begin(), Make->arg_end());
  const bool Readable =
      Elements.size() >= 2 &&
      llvm::all_of(Elements, [](const Expr *El) {
        return isa<DeclRefExpr, MemberExpr>(stripImplicit(El));
      });
  if (!Readable || (!Out.Result.ElementSaved.empty() &&
                    Out.Result.ElementSaved.size() != Elements.size())) {
    Out.Result.ElementsUnknown = true;
    return;
  }
  Out.Result.ElementSaved.resize(Elements.size(), false);
  for (size_t I = 0; I < Elements.size(); ++I) {
    const Value El = visit(Elements[I]);
    for (unsigned Id : El.SavedBy)
      if (Savers[Id].second && !SaverParams[Id])
        Out.Result.ElementSaved[I] = true;
  }
}

void AutogradFlowBuilder::recordReturnedSavings(const Value &Returned) {
  recordConditionalWrites(Returned);
  if (!Out.Result.Saver)
    for (unsigned Id : Returned.SavedBy)
      if (Savers[Id].second && !SaverParams[Id]) {
        Out.Result.Saver = Savers[Id].first;
        break;
      }
  // What the callee saved of the tensors it was handed, still saved here.
  for (unsigned I = 0; I < Fn.getNumParams(); ++I) {
    const ParmVarDecl *Param = Fn.getParamDecl(I);
    auto It = DefIds.find({Param, Param});
    if (It == DefIds.end() ||
        llvm::any_of(Out.Result.SavedParams,
                     [&](const auto &P) { return P.Index == I; }))
      continue;
    DefSet By;
    S->Saved.secondsOf(It->second, By);
    for (unsigned Id : By)
      if (!SaverParams[Id]) {
        Out.Result.SavedParams.push_back({I, Savers[Id].first});
        break;
      }
  }
}

bool AutogradFlowBuilder::definedInOtherLoop(unsigned Id,
                                             SourceLocation Outside) const {
  const SourceManager &SM = Ctx.getSourceManager();
  auto Inside = [&](SourceLocation L, SourceRange R) {
    L = SM.getExpansionLoc(L);
    return !SM.isBeforeInTranslationUnit(L, SM.getExpansionLoc(R.getBegin())) &&
           !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(R.getEnd()), L);
  };
  return llvm::any_of(LoopRanges, [&](SourceRange R) {
    return Inside(Defs[Id].Loc, R) &&
           (Outside.isInvalid() || !Inside(Outside, R));
  });
}

void AutogradFlowBuilder::reportPassesThroughState() {
  const auto *Method = dyn_cast<CXXMethodDecl>(&Fn);
  if (AsCallee || !Method || Method->isStatic() ||
      Method->getParent()->isLambda())
    return;
  const MemberStateSummary *Summary = memberStateOf(*Method);
  if (!Summary)
    return;
  for (const auto &[Pass, Carried] : Summary->PassesThroughState) {
    // A reset_state() the caller may call between the calls, or a pass that
    // keeps its graph: nothing to say.
    if (Reported.count(Pass) ||
        graphRetentionOf(*Pass, Ctx) != GraphRetention::Frees ||
        replacedElsewhere(*Method->getParent(), *Carried.Field, *Method))
      continue;
    Reported.insert(Pass);
    AutogradFlow::SecondPass P;
    P.Failing = P.First = Pass;
    P.StateMember = Carried.Field;
    P.StateWrite = Carried.Write;
    P.StateWriter = Carried.Method;
    P.AcrossCalls = true;
    Out.SecondPasses.push_back(P);
  }
}

void AutogradFlowBuilder::runBlock(const Schedule &Plan,
                                   const CFGBlock &Block) {
  for (Schedule::Step Item : Plan.Steps[Block.getBlockID()]) {
    if (const auto *Root = Item.dyn_cast<const Stmt *>())
      visitRoot(*Root);
    else
      endLifetime(Item.get<const VarDecl *>());
  }
}

bool AutogradFlowBuilder::inStateOf(
    const Schedule &Plan, const CFGBlock &Block, const State &Entry,
    const std::vector<std::optional<State>> &OutStates, State &In) const {
  bool Reached = &Block == &Plan.Graph->getEntry();
  if (Reached)
    In = Entry;
  for (const CFGBlock::AdjacentBlock &Pred : Block.preds()) {
    const CFGBlock *P = Pred.getReachableBlock();
    if (!P)
      continue;
    const std::optional<State> &PredOut = OutStates[P->getBlockID()];
    if (!PredOut)
      continue;
    In.join(*PredOut);
    Reached = true;
  }
  return Reached;
}

/// One round over the blocks in reverse post-order. Outside the reporting
/// round, each block's out-state is stored; returns whether one changed.
bool AutogradFlowBuilder::runRound(
    const Schedule &Plan, const State &Entry,
    std::vector<std::optional<State>> &OutStates) {
  bool Changed = false;
  for (const CFGBlock *Block : *Plan.Order) {
    State In;
    if (!inStateOf(Plan, *Block, Entry, OutStates, In))
      continue;
    S = &In;
    runBlock(Plan, *Block);
    S = nullptr;
    if (Reporting)
      continue;
    std::optional<State> &BlockOut = OutStates[Block->getBlockID()];
    if (!BlockOut || !(*BlockOut == In)) {
      BlockOut = std::move(In);
      Changed = true;
    }
  }
  return Changed;
}

void AutogradFlowBuilder::sortReports() {
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::sort(Out.SecondPasses, [&](const auto &A, const auto &B) {
    return SM.isBeforeInTranslationUnit(beginLoc(*A.Failing),
                                        beginLoc(*B.Failing));
  });
  llvm::sort(Out.InPlaceWrites, [&](const auto &A, const auto &B) {
    return SM.isBeforeInTranslationUnit(beginLoc(*A.Write), beginLoc(*B.Write));
  });
  llvm::sort(Out.BrokenGraphs, [&](const auto &A, const auto &B) {
    return SM.isBeforeInTranslationUnit(beginLoc(*A.Construction),
                                        beginLoc(*B.Construction));
  });
}

Value AutogradFlowBuilder::elementOf(const VarDecl *Range,
                                     const VarDecl *Container,
                                     SourceLocation Loc) {
  Value Element = valueOfVariable(Range ? Range : Container);
  Element.Same.clear();
  Element.SavedBy.clear();
  // Each element is a tensor of its own: the container's insertions, and
  // definitions executed once per element (in an earlier loop that filled
  // it: `auto l = f(m(x)); losses.push_back(l);`), stand for a different
  // tensor in each, so a pass through one element freed nothing of the
  // next. What the elements share (a trunk computed once for all of them)
  // keeps its freed marks.
  llvm::SmallVector<unsigned, 4> PerElement;
  for (const auto &Mark : Element.Freed)
    if ((Range && Defs[Mark.first].Var == Range) ||
        (Container && Defs[Mark.first].Var == Container) ||
        definedInOtherLoop(Mark.first, Loc))
      PerElement.push_back(Mark.first);
  for (unsigned Id : PerElement)
    Element.Freed.erase(Id);
  return Element;
}

bool AutogradFlowBuilder::run() {
  const Stmt *Body = Fn.getBody();
  if (!Body || Fn.isInvalidDecl())
    return false;
  Schedule Plan;
  if (!schedule(*Body, Plan))
    return false;
  forEachStmt(Body, [&](const Stmt &St) {
    if (isLoopStmt(St))
      LoopRanges.push_back(St.getSourceRange());
    if (const auto *For = dyn_cast<CXXForRangeStmt>(&St))
      if (const VarDecl *Loop = For->getLoopVariable())
        if (const auto *RangeDS =
                dyn_cast_or_null<DeclStmt>(For->getRangeStmt()))
          if (RangeDS->isSingleDecl())
            if (const auto *Range = dyn_cast<VarDecl>(RangeDS->getSingleDecl()))
            {
              RangeOf[Loop] = Range;
              RangeForLoc[Loop] = For->getBeginLoc();
            }
  });

  State Entry;
  initialState(Entry);
  std::vector<std::optional<State>> OutStates(Plan.Graph->getNumBlockIDs());
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    DefsChanged = false;
    bool Changed = runRound(Plan, Entry, OutStates);
    if (!Changed && !DefsChanged)
      break;
  }

  // One more round over the fixpoint, now reporting.
  Reporting = true;
  runRound(Plan, Entry, OutStates);
  reportPassesThroughState();
  sortReports();
  return true;
}

} // namespace clang::tidy::torch
