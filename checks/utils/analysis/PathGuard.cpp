//===--- PathGuard.cpp - does a test on the path exclude a boundary? ------===//

#include "utils/analysis/PathGuard.h"
#include "utils/ast/ASTUtils.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/FoldingSet.h"

namespace clang::tidy::torch {

namespace {

using Test = PathGuards::Test;

constexpr unsigned MaxDepth = 8;

Test negate(Test T) {
  switch (T) {
  case Test::AwayFromZero:
    return Test::NearZero;
  case Test::NearZero:
    return Test::AwayFromZero;
  default:
    return Test::None;
  }
}

/// The name and object of a member call, also a still-dependent one.
StringRef methodName(const CallExpr &Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call))
    if (const CXXMethodDecl *M = MC->getMethodDecl())
      return M->getIdentifier() ? M->getName() : "";
  if (callObject(Call))
    return dependentCalleeName(Call);
  return "";
}

/// The callee name of a free function call (`torch::any`, `__builtin_expect`).
StringRef freeName(const CallExpr &Call) {
  if (const FunctionDecl *FD = Call.getDirectCallee())
    return FD->getIdentifier() ? FD->getName() : "";
  return dependentCalleeName(Call);
}

/// Reads of a value that keep what a test on them says about it: `item()`,
/// `item<T>()`, Scalar's `toDouble()`, and the like.
bool isRead(StringRef Name) {
  return Name == "item" || Name == "toDouble" || Name == "toFloat" ||
         Name == "toLong" || Name == "toInt" || Name == "toBool";
}

/// A statement after which control never reaches the next statement.
bool exits(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ReturnStmt, ContinueStmt, BreakStmt>(S))
    return true;
  if (const auto *E = dyn_cast<Expr>(S)) {
    E = E->IgnoreParenImpCasts();
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
      E = EWC->getSubExpr()->IgnoreParenImpCasts();
    if (isa<CXXThrowExpr>(E))
      return true;
    if (const auto *Call = dyn_cast<CallExpr>(E))
      if (const FunctionDecl *FD = Call->getDirectCallee())
        return FD->isNoReturn();
    return false;
  }
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return llvm::any_of(CS->body(), [](const Stmt *B) { return exits(B); });
  return false;
}

} // namespace

bool PathGuards::sameValue(const Expr *A, const Expr *B) const {
  return sameExpression(A, B, Ctx);
}

bool PathGuards::testsValue(const Expr *T, const Expr *Value,
                            unsigned Depth) const {
  T = stripImplicit(T);
  if (!T || Depth > MaxDepth)
    return false;
  if (sameValue(T, Value))
    return true;
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(T))
    return testsValue(Cast->getSubExpr(), Value, Depth + 1);
  if (const auto *Call = dyn_cast<CallExpr>(T)) {
    // n.item<double>(), n.abs().min().item<float>(), n.item().toDouble():
    // |n| >= eps everywhere when its minimum is.
    StringRef Name = methodName(*Call);
    if (isRead(Name) || Name == "abs" || (Name == "min" && !Call->getNumArgs()))
      return testsValue(callObject(*Call), Value, Depth + 1);
    return false;
  }
  // A local scalar read out of the tensor: double nv = n.item<double>();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(T))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (VD->hasLocalStorage() && !VD->getType()->isReferenceType() &&
          VD->getType()->isArithmeticType() && VD->getInit())
        return testsValue(VD->getInit(), Value, Depth + 1);
  return false;
}

bool PathGuards::isSmallPositive(const Expr *E) const {
  E = stripImplicit(E);
  if (!E || E->isValueDependent())
    return false;
  Expr::EvalResult R;
  if (E->getType()->isArithmeticType() && E->EvaluateAsRValue(R, Ctx)) {
    if (R.Val.isFloat())
      return !R.Val.getFloat().isNegative() && R.Val.getFloat().isNonZero() &&
             !R.Val.getFloat().isNaN();
    if (R.Val.isInt())
      return R.Val.getInt().isStrictlyPositive();
    return false;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return EpsilonNames.match(identifierOf(DRE->getDecl()->getDeclName()));
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return EpsilonNames.match(identifierOf(ME->getMemberDecl()->getDeclName()));
  return false;
}

Test PathGuards::compare(BinaryOperatorKind Op, const Expr *L, const Expr *R,
                         const Expr *Value) const {
  // Put the tested value on the left: 0 < n is n > 0.
  if (!testsValue(L, Value, 0)) {
    if (!testsValue(R, Value, 0))
      return Test::None;
    std::swap(L, R);
    switch (Op) {
    case BO_LT: Op = BO_GT; break;
    case BO_GT: Op = BO_LT; break;
    case BO_LE: Op = BO_GE; break;
    case BO_GE: Op = BO_LE; break;
    default: break;
    }
  }
  Expr::EvalResult Eval;
  const Expr *K = stripImplicit(R);
  bool Zero = K && !K->isValueDependent() && K->getType()->isArithmeticType() &&
              K->EvaluateAsRValue(Eval, Ctx) &&
              ((Eval.Val.isFloat() && Eval.Val.getFloat().isZero()) ||
               (Eval.Val.isInt() && Eval.Val.getInt().isZero()));
  bool Positive = isSmallPositive(K);
  switch (Op) {
  case BO_EQ:
    return Zero ? Test::NearZero : Test::None;
  case BO_NE:
    return Zero ? Test::AwayFromZero : Test::None;
  case BO_GT: // n > 0, n > eps
    return Zero || Positive ? Test::AwayFromZero : Test::None;
  case BO_GE: // n >= eps
    return Positive ? Test::AwayFromZero : Test::None;
  case BO_LT: // n < eps
    return Positive ? Test::NearZero : Test::None;
  case BO_LE: // n <= 0, n <= eps
    return Zero || Positive ? Test::NearZero : Test::None;
  default:
    return Test::None;
  }
}

Test PathGuards::classify(const Expr *Cond, const Expr *Value) const {
  Cond = stripImplicit(Cond);
  if (!Cond)
    return Test::None;
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Cond)) // static_cast<bool>
    return classify(Cast->getSubExpr(), Value);
  if (const auto *UO = dyn_cast<UnaryOperator>(Cond))
    return UO->getOpcode() == UO_LNot ? negate(classify(UO->getSubExpr(), Value))
                                      : Test::None;
  if (const auto *BO = dyn_cast<BinaryOperator>(Cond)) {
    Test L = classify(BO->getLHS(), Value), R = classify(BO->getRHS(), Value);
    if (BO->getOpcode() == BO_LAnd) // true: both hold
      return L == Test::AwayFromZero || R == Test::AwayFromZero
                 ? Test::AwayFromZero
                 : Test::None;
    if (BO->getOpcode() == BO_LOr) // false: neither holds
      return L == Test::NearZero || R == Test::NearZero ? Test::NearZero
                                                        : Test::None;
    if (BO->isComparisonOp())
      return compare(BO->getOpcode(), BO->getLHS(), BO->getRHS(), Value);
    return Test::None;
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Cond)) {
    if (OC->getNumArgs() == 2 && OC->isInfixBinaryOp()) {
      BinaryOperatorKind Op =
          BinaryOperator::getOverloadedOpcode(OC->getOperator());
      if (BinaryOperator::isComparisonOp(Op))
        return compare(Op, OC->getArg(0), OC->getArg(1), Value);
    }
    if (OC->getOperator() == OO_Exclaim && OC->getNumArgs() == 1)
      return negate(classify(OC->getArg(0), Value));
    return Test::None;
  }
  const auto *Call = dyn_cast<CallExpr>(Cond);
  if (!Call)
    return Test::None;
  StringRef Method = methodName(*Call);
  if (isRead(Method)) // (n == 0).any().item<bool>()
    return classify(callObject(*Call), Value);
  // any(n == 0) holds near 0; all(n > 0) only away from it.
  const Expr *Of = nullptr;
  StringRef Name = Method;
  if (!Method.empty())
    Of = callObject(*Call);
  else if (Call->getNumArgs() >= 1) {
    Name = freeName(*Call);
    Of = Call->getArg(0);
  }
  if (Name == "__builtin_expect") // TORCH_CHECK's C10_UNLIKELY
    return classify(Of, Value);
  Test Inner = Of ? classify(Of, Value) : Test::None;
  if (Name == "any" && Inner == Test::NearZero)
    return Inner;
  if (Name == "all" && Inner == Test::AwayFromZero)
    return Inner;
  return Test::None;
}

bool PathGuards::exitsBefore(const Stmt &Parent, const Stmt &Child,
                             const Expr *Value) {
  const auto *Block = dyn_cast<CompoundStmt>(&Parent);
  if (!Block)
    return false;
  for (const Stmt *S : Block->body()) {
    if (S == &Child)
      return false;
    const auto *If = dyn_cast<IfStmt>(S);
    if (If && !If->getConditionVariable() && exits(If->getThen()) &&
        classify(If->getCond(), Value) == Test::NearZero)
      return true;
  }
  return false;
}

bool PathGuards::excludesZero(const Stmt &Use, const Expr *Value,
                              const FunctionDecl &Fn) {
  if (!Value)
    return false;
  bool Excluded = false;
  Parents.walkUp(Use, Fn, /*CrossLambdas=*/false, [&](const auto &Step) {
    if (!Step.Parent || !Step.Child)
      return false;
    const Stmt &P = *Step.Parent;
    if (const auto *If = dyn_cast<IfStmt>(&P)) {
      Test T = classify(If->getCond(), Value);
      Excluded = (Step.Child == If->getThen() && T == Test::AwayFromZero) ||
                 (Step.Child == If->getElse() && T == Test::NearZero);
    } else if (const auto *CO = dyn_cast<AbstractConditionalOperator>(&P)) {
      Test T = classify(CO->getCond(), Value);
      Excluded = (Step.Child == CO->getTrueExpr() && T == Test::AwayFromZero) ||
                 (Step.Child == CO->getFalseExpr() && T == Test::NearZero);
    } else {
      Excluded = exitsBefore(P, *Step.Child, Value);
    }
    return !Excluded;
  });
  return Excluded;
}

namespace {

/// An integer expression as a base plus a constant (`n - 1`: n, -1; `3`:
/// no base, 3).
struct Linear {
  const Expr *Base = nullptr;
  int64_t Offset = 0;
};

std::optional<int64_t> constantOf(const Expr *E, const ASTContext &Ctx) {
  E = stripImplicit(E);
  Expr::EvalResult R;
  if (!E || E->isValueDependent() ||
      !E->getType()->isIntegralOrEnumerationType() ||
      !E->EvaluateAsInt(R, Ctx) || R.Val.getInt().getSignificantBits() > 63)
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

Linear linear(const Expr *E, const ASTContext &Ctx, unsigned Depth = 0) {
  E = stripImplicit(E);
  if (!E)
    return {};
  if (std::optional<int64_t> K = constantOf(E, Ctx))
    return {nullptr, *K};
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E);
      Cast && Depth < MaxDepth)
    return linear(Cast->getSubExpr(), Ctx, Depth + 1);
  if (const auto *BO = dyn_cast<BinaryOperator>(E);
      BO && Depth < MaxDepth &&
      (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub)) {
    if (std::optional<int64_t> K = constantOf(BO->getRHS(), Ctx)) {
      Linear L = linear(BO->getLHS(), Ctx, Depth + 1);
      L.Offset += BO->getOpcode() == BO_Add ? *K : -*K;
      return L;
    }
    if (BO->getOpcode() == BO_Add)
      if (std::optional<int64_t> K = constantOf(BO->getLHS(), Ctx)) {
        Linear L = linear(BO->getRHS(), Ctx, Depth + 1);
        L.Offset += *K;
        return L;
      }
  }
  return {E, 0};
}

bool sameBase(const Expr *A, const Expr *B, const ASTContext &Ctx) {
  if (!A || !B)
    return !A && !B;
  const auto *DA = dyn_cast<DeclRefExpr>(A);
  const auto *DB = dyn_cast<DeclRefExpr>(B);
  if (DA || DB)
    return DA && DB && DA->getDecl() == DB->getDecl();
  llvm::FoldingSetNodeID IA, IB;
  A->Profile(IA, Ctx, /*Canonical=*/true);
  B->Profile(IB, Ctx, /*Canonical=*/true);
  return IA == IB;
}

const VarDecl *varOf(const Expr *E) {
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(stripImplicit(E));
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

/// A comparison `L op R` (built-in or overloaded) with its operands.
bool comparison(const Expr *E, BinaryOperatorKind &Op, const Expr *&L,
                const Expr *&R) {
  E = stripImplicit(E);
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(E);
      BO && BO->isComparisonOp()) {
    Op = BO->getOpcode();
    L = BO->getLHS();
    R = BO->getRHS();
    return true;
  }
  if (const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(E);
      OC && OC->getNumArgs() == 2 && OC->isInfixBinaryOp()) {
    Op = BinaryOperator::getOverloadedOpcode(OC->getOperator());
    L = OC->getArg(0);
    R = OC->getArg(1);
    return BinaryOperator::isComparisonOp(Op);
  }
  return false;
}

BinaryOperatorKind reversed(BinaryOperatorKind Op) {
  switch (Op) {
  case BO_LT: return BO_GT;
  case BO_GT: return BO_LT;
  case BO_LE: return BO_GE;
  case BO_GE: return BO_LE;
  default: return Op;
  }
}

/// The counting variable of \p Loop and the value it has on the last
/// iteration.
bool lastIteration(const Stmt &Loop, const ASTContext &Ctx,
                   const VarDecl *&Var, Linear &Last) {
  const auto *For = dyn_cast<ForStmt>(&Loop);
  if (!For || !For->getCond() || !For->getInc())
    return false;
  // The step: ++v, v++, v += 1, v = v + 1.
  const Expr *Inc = stripImplicit(For->getInc());
  const Expr *Stepped = nullptr;
  if (const auto *U = dyn_cast<UnaryOperator>(Inc); U && U->isIncrementOp())
    Stepped = U->getSubExpr();
  else if (const auto *CA = dyn_cast<CompoundAssignOperator>(Inc);
           CA && CA->getOpcode() == BO_AddAssign &&
           constantOf(CA->getRHS(), Ctx) == 1)
    Stepped = CA->getLHS();
  else if (const auto *A = dyn_cast<BinaryOperator>(Inc);
           A && A->getOpcode() == BO_Assign) {
    Linear R = linear(A->getRHS(), Ctx);
    if (R.Offset == 1 && varOf(R.Base) && varOf(R.Base) == varOf(A->getLHS()))
      Stepped = A->getLHS();
  }
  Var = varOf(Stepped);
  if (!Var || !Var->getType()->isIntegerType())
    return false;
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (!comparison(For->getCond(), Op, L, R))
    return false;
  if (varOf(L) != Var) {
    std::swap(L, R);
    Op = reversed(Op);
  }
  if (varOf(L) != Var)
    return false;
  Last = linear(R, Ctx);
  if (Last.Base && varOf(Last.Base) == Var)
    return false;
  if (Op == BO_LT || Op == BO_NE)
    Last.Offset -= 1;
  else if (Op != BO_LE)
    return false;
  return true;
}

IterationTest classifyWith(const Expr *Cond, const VarDecl *Var,
                           const Linear &Last, const ASTContext &Ctx,
                           unsigned Depth) {
  IterationTest T;
  Cond = stripImplicit(Cond);
  if (!Cond || Depth > MaxDepth)
    return T;
  auto Negated = [](IterationTest T) {
    std::swap(T.TrueOnlyOnLast, T.FalseOnlyOnLast);
    return T;
  };
  if (const auto *U = dyn_cast<UnaryOperator>(Cond))
    return U->getOpcode() == UO_LNot
               ? Negated(
                     classifyWith(U->getSubExpr(), Var, Last, Ctx, Depth + 1))
               : T;
  if (const auto *BO = dyn_cast<BinaryOperator>(Cond);
      BO && BO->isLogicalOp()) {
    IterationTest A = classifyWith(BO->getLHS(), Var, Last, Ctx, Depth + 1);
    IterationTest B = classifyWith(BO->getRHS(), Var, Last, Ctx, Depth + 1);
    if (BO->getOpcode() == BO_LAnd) // true: both hold
      T.TrueOnlyOnLast = A.TrueOnlyOnLast || B.TrueOnlyOnLast;
    else // false: neither holds
      T.FalseOnlyOnLast = A.FalseOnlyOnLast || B.FalseOnlyOnLast;
    return T;
  }
  BinaryOperatorKind Op;
  const Expr *L, *R;
  if (!comparison(Cond, Op, L, R))
    return T;
  Linear A = linear(L, Ctx), B = linear(R, Ctx);
  if (varOf(A.Base) != Var) {
    std::swap(A, B);
    Op = reversed(Op);
  }
  if (varOf(A.Base) != Var || !sameBase(B.Base, Last.Base, Ctx))
    return T;
  // v op Last + K, where v <= Last on every iteration.
  const int64_t K = B.Offset - A.Offset - Last.Offset;
  switch (Op) {
  case BO_NE:
  case BO_LT:
    T.FalseOnlyOnLast = K == 0;
    break;
  case BO_LE:
    T.FalseOnlyOnLast = K == -1;
    break;
  case BO_EQ:
  case BO_GE:
    T.TrueOnlyOnLast = K == 0;
    break;
  case BO_GT:
    T.TrueOnlyOnLast = K == -1;
    break;
  default:
    break;
  }
  return T;
}

} // namespace

bool testsFiniteness(const Expr *Cond) {
  const Expr *E = Cond ? Cond->IgnoreParenImpCasts() : nullptr;
  if (const auto *Cleanups = dyn_cast_or_null<ExprWithCleanups>(E))
    E = Cleanups->getSubExpr()->IgnoreParenImpCasts();
  if (!E)
    return false;
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_LNot)
    return testsFiniteness(U->getSubExpr());
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isLogicalOp())
    return testsFiniteness(B->getLHS()) && testsFiniteness(B->getRHS());
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return false;
  StringRef Name = methodName(*Call);
  if (Name.empty())
    Name = freeName(*Call);
  if (Name == "isnan" || Name == "isinf" || Name == "isfinite" ||
      Name == "isposinf" || Name == "isneginf")
    return true;
  if ((isRead(Name) || Name == "any" || Name == "all") && callObject(*Call))
    return testsFiniteness(callObject(*Call));
  return false;
}

IterationTest classifyIteration(const Expr *Cond, const Stmt &Loop,
                                const ASTContext &Ctx) {
  const VarDecl *Var = nullptr;
  Linear Last;
  if (!Cond || !lastIteration(Loop, Ctx, Var, Last))
    return {};
  return classifyWith(Cond, Var, Last, Ctx, 0);
}

bool onlyOnLastIteration(const Stmt &S, const Stmt &Loop,
                         const FunctionDecl &Fn, BodyParents &Parents) {
  const ASTContext &Ctx = Fn.getASTContext();
  bool Last = false;
  Parents.walkUp(S, Fn, /*CrossLambdas=*/false, [&](const auto &Step) {
    if (!Step.Parent || !Step.Child || Step.Child == &Loop)
      return false;
    const Stmt &P = *Step.Parent;
    if (const auto *If = dyn_cast<IfStmt>(&P)) {
      IterationTest T = classifyIteration(If->getCond(), Loop, Ctx);
      Last = (Step.Child == If->getThen() && T.TrueOnlyOnLast) ||
             (Step.Child == If->getElse() && T.FalseOnlyOnLast);
    } else if (const auto *CO = dyn_cast<AbstractConditionalOperator>(&P)) {
      IterationTest T = classifyIteration(CO->getCond(), Loop, Ctx);
      Last = (Step.Child == CO->getTrueExpr() && T.TrueOnlyOnLast) ||
             (Step.Child == CO->getFalseExpr() && T.FalseOnlyOnLast);
    } else if (const auto *Block = dyn_cast<CompoundStmt>(&P)) {
      for (const Stmt *B : Block->body()) {
        if (B == Step.Child)
          break;
        const auto *If = dyn_cast<IfStmt>(B);
        if (If && !If->getConditionVariable() && !If->getElse() &&
            exits(If->getThen()) &&
            classifyIteration(If->getCond(), Loop, Ctx).FalseOnlyOnLast) {
          Last = true;
          break;
        }
      }
    }
    return !Last;
  });
  return Last;
}

} // namespace clang::tidy::torch
