//===--- LossAccumulatedWithoutItemCheck.cpp ------------------------------===//
//
// torch-loss-accumulated-without-item
//
//===----------------------------------------------------------------------===//

#include "LossAccumulatedWithoutItemCheck.h"
#include "utils/analysis/AccessPath.h"
#include "utils/analysis/AutogradFlow.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// True if the local variable \p VD is created afresh on every iteration of
/// \p Loop: declared in its body, or its range-for / condition variable.
bool isPerIterationVariable(const VarDecl &VD, const Stmt &Loop,
                            const SourceManager &SM) {
  const Stmt *Body = nullptr;
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(&Loop)) {
    if (&VD == Range->getLoopVariable())
      return true;
    Body = Range->getBody();
  } else if (const auto *While = dyn_cast<WhileStmt>(&Loop)) {
    if (&VD == While->getConditionVariable())
      return true;
    Body = While->getBody();
  } else if (const auto *For = dyn_cast<ForStmt>(&Loop)) {
    if (&VD == For->getConditionVariable())
      return true;
    Body = For->getBody();
  } else if (const auto *Do = dyn_cast<DoStmt>(&Loop)) {
    Body = Do->getBody();
  }
  if (!Body)
    return false;
  SourceLocation Loc = SM.getExpansionLoc(VD.getLocation());
  return SM.isPointWithin(Loc, SM.getExpansionLoc(beginLoc(*Body)),
                          SM.getExpansionLoc(endLoc(*Body)));
}

/// The accumulator itself, or for an element (`logs["loss"]`,
/// `totals[epoch]`, `meters.at(name)`, an element of a tensor) the container
/// it lives in.
const Expr &accumulatorBase(const Expr &Acc) {
  const Expr *E = &Acc;
  for (int Depth = 0; Depth < 4; ++Depth) {
    const Expr *Inner = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Inner);
        Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
      E = Op->getArg(0);
      continue;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Inner)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      if (M && M->getIdentifier() && M->getName() == "at" &&
          Member->getNumArgs() == 1) {
        E = Member->getImplicitObjectArgument();
        continue;
      }
    }
    break;
  }
  return *E;
}

/// True if the accumulator \p Acc survives from one iteration of \p Loop to
/// the next: a global or static, a parameter, a member of `this`, or a local
/// (or a member of a local) declared outside the loop.
bool outlivesIteration(const Expr &Acc, const Stmt &Loop,
                       const SourceManager &SM) {
  // A buffer every iteration empties (`buf.clear()` in the loop body) holds
  // one iteration's values, not every iteration's.
  if (clearedEachIteration(*accumulatorBase(Acc).IgnoreParenImpCasts(), Loop))
    return false;
  // By its access path: `total.first`, `std::get<1>(t)`, `v[0]`, a local
  // reference to one of them live as long as their root.
  if (std::optional<AccessPath> Path = accessPathOf(accumulatorBase(Acc))) {
    if (Path->RootIsThis)
      return true;
    const VarDecl *VD = Path->Root;
    if (!VD->isLocalVarDeclOrParm() || VD->isStaticLocal() ||
        isa<ParmVarDecl>(VD))
      return true;
    return !isPerIterationVariable(*VD, Loop, SM);
  }
  const Expr *E = accumulatorBase(Acc).IgnoreParenImpCasts();
  while (const auto *Member = dyn_cast<MemberExpr>(E)) {
    const Expr *Base = Member->getBase()->IgnoreParenImpCasts();
    if (isa<CXXThisExpr>(Base))
      return true;
    if (Member->isArrow())
      return false; // Through a pointer: the pointee's lifetime is unknown.
    E = Base;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD)
    return false;
  if (!VD->isLocalVarDeclOrParm() || VD->isStaticLocal() ||
      isa<ParmVarDecl>(VD))
    return true;
  return !isPerIterationVariable(*VD, Loop, SM);
}

/// Whether `value.detach()` needs parentheses around `value`.
bool needsParentheses(const Expr &Value) {
  const Expr *E = Value.IgnoreImplicit();
  if (isa<DeclRefExpr, MemberExpr, ParenExpr, ArraySubscriptExpr,
          CXXMemberCallExpr>(E))
    return false;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return Op->getOperator() != OO_Call && Op->getOperator() != OO_Subscript;
  return !isa<CallExpr>(E);
}

/// The one tensor parameter \p Value is built from by arithmetic with
/// numbers (`val * n`, `n * val / count`), or null.
const ParmVarDecl *scaledTensorParameter(const Expr &Value) {
  const ParmVarDecl *Found = nullptr;
  bool Other = false;
  auto Visit = [&](auto &&Self, const Expr *E) -> void {
    E = stripImplicit(E);
    if (!E || Other)
      return;
    if (!isTensorType(E->getType())) // A number: any.
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl());
      if (!P || (Found && Found != P))
        Other = true;
      else
        Found = P;
      return;
    }
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
    if (Op && Op->getNumArgs() == 2 &&
        (Op->getOperator() == OO_Star || Op->getOperator() == OO_Slash)) {
      Self(Self, Op->getArg(0));
      Self(Self, Op->getArg(1));
      return;
    }
    Other = true;
  };
  Visit(Visit, &Value);
  return Other ? nullptr : Found;
}

} // namespace

const CallSite *LossAccumulatedWithoutItemCheck::trainingLoopCallerOf(
    const Expr &Acc, const Expr &Accumulation, const FunctionDecl &Fn,
    ASTContext &Ctx) {
  // A helper with no loop around the accumulation (a `train_step()` that
  // adds its own loss to a member or a global): each call adds a graph.
  if (!enclosingLoops(Accumulation, Fn, Parents).empty())
    return nullptr;
  const Expr *Base = accumulatorBase(Acc).IgnoreParenImpCasts();
  const auto *Member = dyn_cast<MemberExpr>(Base);
  const auto *Global =
      dyn_cast_or_null<VarDecl>(isa<DeclRefExpr>(Base) ? namedEntity(*Base)
                                                        : nullptr);
  const bool OwnMember =
      Member && isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()) &&
      isa<CXXMethodDecl>(Fn) && !cast<CXXMethodDecl>(Fn).getParent()->isLambda();
  if (!OwnMember && !(Global && Global->hasGlobalStorage()))
    return nullptr;
  // A member some method backpropagates (`pending_ = pending_ + loss;` here,
  // `pending_.backward()` in apply()) is a loss built over several calls.
  if (OwnMember) {
    const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    const CXXRecordDecl *Class = cast<CXXMethodDecl>(Fn).getParent();
    bool Backpropagated = !Field;
    for (const CXXMethodDecl *M : Class->methods()) {
      const FunctionDecl *Def = nullptr;
      if (Backpropagated || !M->hasBody(Def))
        continue;
      forEachStmt(Def->getBody(), [&](const Stmt &S) {
        const auto *Call = dyn_cast<CallExpr>(&S);
        if (!Call || !(isBackwardCall(*Call) || isAutogradGradCall(*Call)))
          return;
        forEachStmt(Call, [&](const Stmt &Part) {
          if (const auto *ME = dyn_cast<MemberExpr>(&Part))
            Backpropagated |= ME->getMemberDecl() == Field;
        });
      });
      // ... also through the locals it builds the loss from (a rollout
      // memory whose transitions learn() stacks into the loss).
      if (!Backpropagated && Def != &Fn)
        if (const AutogradFlow *Flow = AutogradFlow::of(*Def, Ctx))
          Backpropagated = Flow->reachesBackwardPass(*Field);
    }
    if (Backpropagated)
      return nullptr;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  for (const CallSite &Site : callSitesOf(Fn, Ctx)) {
    if (GradMode.isOffAt(*Site.Call, *Site.Caller))
      continue;
    // For a member: called on an object that outlives the loop (or on the
    // caller's own object).
    const auto *MemberCall = dyn_cast<CXXMemberCallExpr>(Site.Call);
    const Expr *Object =
        MemberCall ? MemberCall->getImplicitObjectArgument() : nullptr;
    if (OwnMember && !Object)
      continue;
    for (const Stmt *Loop : enclosingLoops(*Site.Call, *Site.Caller, Parents))
      if (containsTraining(*Loop, Ctx) &&
          (!OwnMember || isa<CXXThisExpr>(Object->IgnoreParenImpCasts()) ||
           outlivesIteration(*Object, *Loop, SM)))
        return &Site;
  }
  return nullptr;
}

const CallSite *LossAccumulatedWithoutItemCheck::trainingLoopCallerPassing(
    const Expr &Value, const Expr &Acc, const FunctionDecl &Fn,
    ASTContext &Ctx) {
  // The helper stores one of its tensor parameters, as it is or scaled by
  // numbers (`sum = sum + val * n`), into a member, a global, or what a
  // reference parameter refers to (then the caller's argument must outlive
  // the loop).
  const auto *Param = dyn_cast_or_null<ParmVarDecl>(namedEntity(Value));
  if (!Param)
    Param = scaledTensorParameter(Value);
  const ValueDecl *Target = namedEntity(Acc);
  if (!Param || !Target || !isTensorType(Param->getType()))
    return nullptr;
  const auto *TargetParam = dyn_cast<ParmVarDecl>(Target);
  // A lambda that stores into a variable of its caller it captured by
  // reference (`[&](const torch::Tensor &l) { losses.push_back(l); }`).
  const auto *Captured = dyn_cast<VarDecl>(Target);
  const auto *Method = dyn_cast<CXXMethodDecl>(&Fn);
  if (!Captured || TargetParam || !Captured->hasLocalStorage() ||
      !Method || !Method->getParent()->isLambda() ||
      Captured->getDeclContext() == static_cast<const DeclContext *>(&Fn))
    Captured = nullptr;
  if (!Captured &&
      (TargetParam ? !TargetParam->getType()->isReferenceType()
                   : !(isa<FieldDecl>(Target) ||
                       (isa<VarDecl>(Target) &&
                        cast<VarDecl>(Target)->hasGlobalStorage()))))
    return nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const CallSite &Site : callSitesOf(Fn, Ctx)) {
    // An overloaded operator that is a method takes its object as argument 0.
    const unsigned Shift =
        isa<CXXOperatorCallExpr>(Site.Call) && isa<CXXMethodDecl>(Fn) ? 1 : 0;
    auto ArgOf = [&](const ParmVarDecl &P) -> const Expr * {
      unsigned Index = P.getFunctionScopeIndex() + Shift;
      return Index < Site.Call->getNumArgs() ? Site.Call->getArg(Index)
                                             : nullptr;
    };
    const Expr *Arg = ArgOf(*Param);
    const Expr *Into = TargetParam ? ArgOf(*TargetParam) : nullptr;
    if (!Arg || (TargetParam && !Into) ||
        GradMode.isOffAt(*Site.Call, *Site.Caller))
      continue;
    const Stmt *TrainingLoop = nullptr;
    for (const Stmt *Loop : enclosingLoops(*Site.Call, *Site.Caller, Parents))
      if (containsTraining(*Loop, Ctx) &&
          (!Into || outlivesIteration(*Into, *Loop, SM)) &&
          (!Captured || !isPerIterationVariable(*Captured, *Loop, SM))) {
        TrainingLoop = Loop;
        break;
      }
    const AutogradFlow *Flow = AutogradFlow::of(*Site.Caller, Ctx);
    const ValueDecl *Stored = Into ? namedEntity(*Into) : Target;
    if (TrainingLoop && Flow && Flow->hasHistoryEvidence(*Arg) && Stored &&
        !Flow->reachesBackwardPass(*Stored))
      return &Site;
  }
  return nullptr;
}

void LossAccumulatedWithoutItemCheck::forgetTranslationUnit() {
  Reported.clear();
  Parents.clear();
  GradMode.clear();
  Trains.clear();
  AutogradFlow::forgetTranslationUnit();
}

void LossAccumulatedWithoutItemCheck::registerMatchers(MatchFinder *Finder) {
  // In a template as written, the accumulated value is often of dependent
  // type (`auto loss = criterion(model->forward(x), y)`); the dataflow then
  // decides whether it has history.
  const auto TensorValue =
      expr(anyOf(isTensorExpr(), isTypeDependent())).bind("value");
  const auto TensorClass =
      cxxRecordDecl(hasAnyName("::at::Tensor", "::at::TensorBase"));
  const auto Container =
      cxxRecordDecl(hasAnyName("::std::vector", "::std::deque", "::std::list"));
  // acc += value
  const auto PlusAssign =
      cxxOperatorCallExpr(hasOverloadedOperatorName("+="), argumentCountIs(2),
                          hasArgument(0, expr(isTensorExpr()).bind("acc")),
                          hasArgument(1, TensorValue));
  // acc = acc + value (or value + acc), acc = 0.98 * acc + 0.02 * value,
  // acc = torch::cat({acc, value}): which term is the accumulator is decided
  // in check().
  const auto AssignSum = cxxOperatorCallExpr(
      hasOverloadedOperatorName("="), argumentCountIs(2),
      hasArgument(0, expr(isTensorExpr()).bind("acc")),
      hasArgument(1, anyOf(ignoringImplicit(ignoringParens(
                               cxxOperatorCallExpr(
                                   hasOverloadedOperatorName("+"),
                                   argumentCountIs(2))
                                   .bind("sum"))),
                           expr().bind("rhs"))));
  // acc.add_(value), acc.index_put_(indices, value)
  const auto AddInPlace = cxxMemberCallExpr(
      anyOf(allOf(callee(cxxMethodDecl(hasName("add_"), ofClass(TensorClass))),
                  hasArgument(0, TensorValue)),
            allOf(callee(cxxMethodDecl(hasName("index_put_"),
                                       ofClass(TensorClass))),
                  hasArgument(1, TensorValue))),
      on(expr().bind("acc")));
  // vec.push_back(value) / vec.emplace_back(value)
  const auto Append = cxxMemberCallExpr(
      callee(cxxMethodDecl(hasAnyName("push_back", "emplace_back"),
                           ofClass(Container))),
      on(expr().bind("acc")), argumentCountIs(1), hasArgument(0, TensorValue));

  // Elements that hold several tensors: `history.emplace_back(d_loss,
  // g_loss)`, `push_back({d_loss, g_loss})`, `push_back(std::make_pair(...))`
  // into a container of pairs, tuples or structs; which of them has history
  // is decided in check().
  const auto HoldsTensor = ignoringImplicit(anyOf(
      isTensorExpr(), initListExpr(has(ignoringImplicit(isTensorExpr()))),
      cxxFunctionalCastExpr(has(ignoringImplicit(
          initListExpr(has(ignoringImplicit(isTensorExpr())))))),
      cxxConstructExpr(hasAnyArgument(ignoringImplicit(isTensorExpr()))),
      callExpr(callee(functionDecl(
                   hasAnyName("::std::make_pair", "::std::make_tuple"))),
               hasAnyArgument(ignoringImplicit(isTensorExpr())))));
  const auto AppendMany = cxxMemberCallExpr(
      callee(cxxMethodDecl(hasAnyName("push_back", "emplace_back"),
                           ofClass(Container))),
      on(expr().bind("acc")),
      unless(allOf(argumentCountIs(1), hasArgument(0, TensorValue))),
      hasAnyArgument(HoldsTensor)).bind("appendMany");

  // A template's `acc += value` and `vec.push_back(value)` with a dependent
  // value: a built-in operator and a call still to be resolved.
  const auto DependentPlusAssign = binaryOperator(
      hasOperatorName("+="),
      hasLHS(expr(anyOf(isTensorExpr(), isTypeDependent())).bind("acc")),
      hasRHS(expr(isTypeDependent()).bind("value")));
  const auto DependentAppend =
      callExpr(argumentCountIs(1), callee(unresolvedMemberExpr()),
               hasArgument(0, expr(isTypeDependent()).bind("value")))
          .bind("append");

  // Matched per function of the user's code (UserCodeMatchFinder), so that
  // every walk up from an accumulation stays inside its function's body
  // (BodyParents).
  // Each accumulation is examined in the innermost function that holds it.
  const auto Accumulation =
      expr(anyOf(cxxOperatorCallExpr(anyOf(PlusAssign, AssignSum)),
                 cxxMemberCallExpr(anyOf(AddInPlace, Append)), AppendMany,
                 DependentPlusAssign, DependentAppend))
          .bind("accumulation");
  UserCode.addMatcher(functionDecl(isExpansionInUserCode(), isDefinition(),
                                   hasBody(forEachDescendant(Accumulation)))
                          .bind("fn"));
  UserCode.registerWith(*Finder);
}

namespace {

/// The terms a new value of an accumulator is built from: through `+`, `-`,
/// `*`, `/`, and the tensors that torch::cat / torch::stack / add / mul
/// combine (`torch::cat({all, logits})`).
void termsOf(const Expr *E, llvm::SmallVectorImpl<const Expr *> &Terms,
             unsigned Depth) {
  E = E ? stripImplicit(E) : nullptr;
  if (!E || Depth > 8)
    return;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getNumArgs() == 2 &&
      llvm::is_contained({OO_Plus, OO_Minus, OO_Star, OO_Slash},
                         Op->getOperator())) {
    termsOf(Op->getArg(0), Terms, Depth + 1);
    termsOf(Op->getArg(1), Terms, Depth + 1);
    return;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const OpInfo *Info = tensorOpOf(*Call);
    if (Info && llvm::is_contained({"cat", "concat", "stack", "add", "sub",
                                    "mul", "div", "hstack", "vstack"},
                                   Info->Name)) {
      if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
        termsOf(Member->getImplicitObjectArgument(), Terms, Depth + 1);
      for (const Expr *Arg : Call->arguments())
        termsOf(Arg, Terms, Depth + 1);
      return;
    }
  }
  if (const auto *List = dyn_cast<InitListExpr>(E)) {
    for (const Expr *Init : List->inits())
      termsOf(Init, Terms, Depth + 1);
    return;
  }
  if (const auto *Std = dyn_cast<CXXStdInitializerListExpr>(E)) {
    termsOf(Std->getSubExpr(), Terms, Depth + 1);
    return;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && !isTensorType(Construct->getType())) {
    // A TensorList (ArrayRef) made from a braced list.
    for (const Expr *Arg : Construct->arguments())
      termsOf(Arg, Terms, Depth + 1);
    return;
  }
  if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E)) {
    termsOf(Temp->getSubExpr(), Terms, Depth + 1);
    return;
  }
  Terms.push_back(E);
}

} // namespace

void LossAccumulatedWithoutItemCheck::check(
    const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Accumulation = Result.Nodes.getNodeAs<Expr>("accumulation");
  const auto *Acc = Result.Nodes.getNodeAs<Expr>("acc");
  if (const auto *Append = Result.Nodes.getNodeAs<CallExpr>("append")) {
    StringRef Name = dependentCalleeName(*Append);
    Acc = callObject(*Append);
    if ((Name != "push_back" && Name != "emplace_back") || !Acc ||
        !isTensorListType(Acc->getType()))
      return;
  }
  const Expr *Value = Result.Nodes.getNodeAs<Expr>("value");
  ASTContext &Ctx = *Result.Context;
  // The tensors an element holding several is made of; the first with
  // history is what is accumulated, each with history gets a fix-it.
  llvm::SmallVector<const Expr *, 2> Parts;
  if (const auto *Many = Result.Nodes.getNodeAs<CXXMemberCallExpr>("appendMany")) {
    const auto *Own = Result.Nodes.getNodeAs<FunctionDecl>("fn");
    const AutogradFlow *Flow = Own ? AutogradFlow::of(*Own, Ctx) : nullptr;
    auto Add = [&](const Expr *E) {
      E = E ? stripImplicit(E) : nullptr;
      if (E && isTensorType(E->getType()) && Flow && Flow->hasHistoryEvidence(*E))
        Parts.push_back(E);
    };
    for (const Expr *Arg : Many->arguments()) {
      const Expr *E = Arg->IgnoreImplicit();
      if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) // Rec{i, loss}
        E = Cast->getSubExpr()->IgnoreImplicit();
      if (const auto *List = dyn_cast<InitListExpr>(E))
        for (const Expr *Init : List->inits())
          Add(Init);
      else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
        for (const Expr *A : Construct->arguments())
          Add(A);
      else if (const auto *Make = dyn_cast<CallExpr>(E);
               Make && (isStdCall(*Make, "make_pair") || isStdCall(*Make, "make_tuple")))
        for (const Expr *A : Make->arguments())
          Add(A);
      else
        Add(E);
    }
    if (Parts.empty())
      return;
    Value = Parts.front();
  }
  const SourceManager &SM = *Result.SourceManager;
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (!isInUserCode(SM.getSpellingLoc(beginLoc(*Accumulation)), SM) ||
      !Parents.isOwnCode(*Accumulation, *Fn))
    return;

  // The accumulator is identified by its access path (`total.first` is not
  // `loss.first`, though both name std::pair's field), by its named entity
  // when it has none.
  const std::optional<AccessPath> AccPath =
      accessPathOf(accumulatorBase(*Acc));
  const ValueDecl *AccEntity = namedEntity(accumulatorBase(*Acc));
  if (!AccEntity && AccPath && AccPath->Root)
    AccEntity = AccPath->Root;
  if (!AccEntity)
    return;
  auto IsAccumulator = [&](const Expr &Term) {
    const Expr &Base = accumulatorBase(Term);
    if (AccPath)
      if (std::optional<AccessPath> TermPath = accessPathOf(Base))
        return *TermPath == *AccPath;
    return namedEntity(Base) == AccEntity;
  };
  const auto *Sum = Result.Nodes.getNodeAs<CXXOperatorCallExpr>("sum");
  const Expr *Rhs = Result.Nodes.getNodeAs<Expr>("rhs");
  if (Sum) {
    // acc = acc + value: the other operand is what is accumulated.
    const Expr *Lhs = Sum->getArg(0);
    const Expr *Right = Sum->getArg(1);
    if (IsAccumulator(*Lhs))
      Value = Right;
    else if (IsAccumulator(*Right))
      Value = Lhs;
    else
      Rhs = Sum; // acc = 0.98 * acc + 0.02 * value
    if (Value && !isTensorType(Value->getType()))
      return;
  }
  if (Rhs) {
    // acc = acc + value: the terms of the new value are the accumulator and
    // what is accumulated (the first other tensor term).
    llvm::SmallVector<const Expr *, 4> Terms;
    termsOf(Rhs, Terms, 0);
    bool HasAccumulator = false;
    Value = nullptr;
    for (const Expr *Term : Terms) {
      if (IsAccumulator(*Term))
        HasAccumulator = true;
      else if (!Value && isTensorType(Term->getType()))
        Value = Term;
    }
    if (!HasAccumulator || !Value)
      return;
  }
  if (!Value || Reported.contains(beginLoc(*Accumulation)))
    return;

  // The innermost training loop the accumulator outlives.
  const Stmt *TrainingLoop = nullptr;
  for (const Stmt *Loop : enclosingLoops(*Accumulation, *Fn, Parents)) {
    auto [Trains, Inserted] = this->Trains.try_emplace(Loop, false);
    if (Inserted)
      Trains->second = containsTraining(*Loop, Ctx);
    if (Trains->second && outlivesIteration(*Acc, *Loop, SM)) {
      TrainingLoop = Loop;
      break;
    }
  }
  const CallSite *Caller = nullptr;
  bool OwnHistory = false; // The helper's own tensor, not its argument.
  if (!TrainingLoop) {
    // A helper that stores its argument into something that outlives it,
    // called with a tensor with history from a training loop.
    Caller = trainingLoopCallerPassing(*Value, *Acc, *Fn, Ctx);
    if (!Caller) {
      OwnHistory = true;
      // A helper that adds a tensor it computed, with history, to a member
      // or a global, called from a training loop.
      const AutogradFlow *Own = AutogradFlow::of(*Fn, Ctx);
      if (Own && Own->hasHistoryEvidence(*Value))
        Caller = trainingLoopCallerOf(*Acc, *Accumulation, *Fn, Ctx);
    }
    if (!Caller)
      return;
  }
  if (GradMode.isOffAt(*Accumulation, *Fn))
    return;
  const AutogradFlow *Flow = AutogradFlow::of(*Fn, Ctx);
  if (!Flow || (!Caller && !Flow->hasHistoryEvidence(*Value)))
    return;
  // Terms summed into a tensor that is itself backpropagated (a multi-term
  // loss, gradient accumulation) are meant to keep their graphs.
  if (AccPath ? Flow->reachesBackwardPass(accumulatorBase(*Acc))
              : Flow->reachesBackwardPass(*AccEntity))
    return;

  Reported.insert(beginLoc(*Accumulation));
  {
    auto Diag = diag(beginLoc(*Accumulation),
                     "tensor with autograd history accumulated into %0 keeps "
                     "every training iteration's graph alive; accumulate "
                     "'.item<double>()' of it, or '.detach()' it")
                << AccEntity;
    if (Parts.empty())
      addDetachFixIt(Diag, *Value, Ctx);
    for (const Expr *Part : Parts)
      addDetachFixIt(Diag, *Part, Ctx);
  }
  if (Caller)
    diag(beginLoc(*Caller->Call),
         OwnHistory ? "called from a training loop here"
                    : "called from a training loop with a tensor that has "
                      "autograd history here",
         DiagnosticIDs::Note);
}

void LossAccumulatedWithoutItemCheck::addDetachFixIt(DiagnosticBuilder &Diag,
                                                     const Expr &Value,
                                                     ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();

  // Fix-it: value -> value.detach(), unless it is spelled in a macro body.
  const Expr *Written = Value.IgnoreImplicit();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Written->getSourceRange()), SM,
      Ctx.getLangOpts());
  if (Range.isInvalid())
    return;
  if (beginLoc(*Written).isMacroID() &&
      !SM.isMacroArgExpansion(beginLoc(*Written)))
    return;
  if (needsParentheses(*Written))
    Diag << FixItHint::CreateInsertion(Range.getBegin(), "(")
         << FixItHint::CreateInsertion(Range.getEnd(), ").detach()");
  else
    Diag << FixItHint::CreateInsertion(Range.getEnd(), ".detach()");
}

} // namespace clang::tidy::torch
