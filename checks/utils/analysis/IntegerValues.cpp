//===--- IntegerValues.cpp - the integer values a tensor may hold ---------===//
//
// See IntegerValues.h.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/IntegerValues.h"
#include "utils/analysis/AccessPath.h"
#include "utils/analysis/DevicePlacement.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/PathValues.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include <algorithm>
#include <limits>

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxDepth = 10;
constexpr int64_t Min = std::numeric_limits<int64_t>::min() / 4;
constexpr int64_t Max = std::numeric_limits<int64_t>::max() / 4;
/// Intervals kept before they are merged into their hull.
constexpr size_t MaxRanges = 8;

int64_t sat(__int128 V) {
  return V < Min ? Min : V > Max ? Max : static_cast<int64_t>(V);
}

/// A comparison of a tensor with a constant: `t == k`, `t.gt(k)`,
/// `torch::lt(t, k)`.
struct Comparison {
  const Expr *Tensor = nullptr;
  BinaryOperatorKind Op = BO_EQ;
  const Expr *Bound = nullptr;
};

std::optional<Comparison> comparisonOf(const Expr *E) {
  E = stripImplicit(E);
  if (!E)
    return std::nullopt;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getNumArgs() == 2 && isTensorType(Op->getArg(0)->getType())) {
    BinaryOperatorKind K;
    switch (Op->getOperator()) {
    case OO_EqualEqual: K = BO_EQ; break;
    case OO_ExclaimEqual: K = BO_NE; break;
    case OO_Less: K = BO_LT; break;
    case OO_LessEqual: K = BO_LE; break;
    case OO_Greater: K = BO_GT; break;
    case OO_GreaterEqual: K = BO_GE; break;
    default: return std::nullopt;
    }
    return Comparison{Op->getArg(0), K, Op->getArg(1)};
  }
  std::optional<LibTorchCall> C = asLibTorchCall(E);
  if (!C)
    return std::nullopt;
  static const std::pair<StringRef, BinaryOperatorKind> Names[] = {
      {"eq", BO_EQ}, {"ne", BO_NE}, {"lt", BO_LT},
      {"le", BO_LE}, {"gt", BO_GT}, {"ge", BO_GE}};
  for (auto [Name, K] : Names)
    if (C->Name == Name)
      if (const Expr *Bound = argumentAfterOperand(*C, 0))
        return Comparison{operandOf(*C), K, Bound};
  return std::nullopt;
}

/// The values v of a set for which `v Op K` holds, as one interval.
std::pair<int64_t, int64_t> selected(BinaryOperatorKind Op, int64_t K) {
  switch (Op) {
  case BO_LT: return {Min, K - 1};
  case BO_LE: return {Min, K};
  case BO_GT: return {K + 1, Max};
  case BO_GE: return {K, Max};
  default: return {K, K}; // BO_EQ
  }
}

bool sameLocation(const Expr *A, const Expr *B, const ASTContext &Ctx) {
  A = stripImplicit(A);
  B = stripImplicit(B);
  if (!A || !B)
    return false;
  std::optional<AccessPath> PA = accessPathOf(*A), PB = accessPathOf(*B);
  if (PA && PB)
    return mustAlias(*PA, *PB);
  return sameExpression(A, B, Ctx);
}

/// The integer arguments of a factory call (randint, arange, ...), in order:
/// those of integral or at::Scalar type, not the sizes or the options.
llvm::SmallVector<const Expr *, 3> scalarArguments(const CallExpr &Call) {
  llvm::SmallVector<const Expr *, 3> Out;
  for (const Expr *Arg : Call.arguments()) {
    QualType T = Arg->getType().getNonReferenceType().getUnqualifiedType();
    if (T->isIntegerType() || T->isRealFloatingType()) {
      Out.push_back(Arg);
      continue;
    }
    const auto *RD = T->getAsCXXRecordDecl();
    if (RD && RD->getIdentifier() && RD->getName() == "Scalar")
      Out.push_back(Arg);
  }
  return Out;
}

/// True if the definition of \p Callee in this translation unit only reads
/// its tensor parameter \p Index, taken by non-const reference: no
/// assignment to it or through a subscript, no in-place operation
/// (a method whose name ends in `_`), not handed on to another call by
/// non-const reference or pointer.
bool readsOnly(const FunctionDecl *Callee, unsigned Index) {
  const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
  if (!Def || !Def->getBody() || Def->isDependentContext() ||
      Index >= Def->getNumParams())
    return false;
  const ParmVarDecl *P = Def->getParamDecl(Index);
  if (!isTensorType(P->getType().getNonReferenceType()))
    return false;
  auto IsParam = [&](const Expr *E) {
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripImplicit(E));
    return Ref && Ref->getDecl() == P;
  };
  bool Writes = false;
  forEachStmt(Def->getBody(), [&](const Stmt &S) {
    if (Writes)
      return;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S)) {
      if (Op->isAssignmentOp() && Op->getNumArgs() == 2) {
        const Expr *LHS = stripImplicit(Op->getArg(0));
        if (IsParam(LHS))
          Writes = true;
        if (const auto *Sub = dyn_cast_or_null<CXXOperatorCallExpr>(LHS);
            Sub && Sub->getOperator() == OO_Subscript && IsParam(Sub->getArg(0)))
          Writes = true;
        if (std::optional<LibTorchCall> Index = asLibTorchCall(LHS);
            Index && IsParam(operandOf(*Index)))
          Writes = true;
      }
      return;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&S)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      if (IsParam(Member->getImplicitObjectArgument()) &&
          (!M || !M->getIdentifier() || M->getName().ends_with("_")))
        Writes = true;
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      if (asLibTorchCall(Call) || isModuleForwardCall(*Call))
        return;
      const FunctionDecl *F = Call->getDirectCallee();
      for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
        if (!IsParam(Call->getArg(I)))
          continue;
        QualType T = F && I < F->getNumParams() ? F->getParamDecl(I)->getType()
                                                : QualType();
        if (T.isNull() || T->isPointerType() ||
            (T->isReferenceType() && !T.getNonReferenceType().isConstQualified()))
          Writes = true;
      }
    }
  });
  return !Writes;
}

} // namespace

// --- IntegerSet ---------------------------------------------------------------

IntegerSet IntegerSet::of(int64_t Lo, int64_t Hi, const Expr *Source) {
  IntegerSet S;
  S.Known = true;
  if (Lo <= Hi)
    S.Ranges.push_back({Lo, Hi, Source});
  return S;
}

IntegerSet IntegerSet::join(const IntegerSet &O) const {
  if (!Known || !O.Known)
    return unknown();
  IntegerSet S = *this;
  S.Ranges.append(O.Ranges.begin(), O.Ranges.end());
  if (S.Ranges.size() > MaxRanges) {
    Range Hull = S.Ranges.front();
    for (const Range &R : S.Ranges) {
      Hull.Lo = std::min(Hull.Lo, R.Lo);
      Hull.Hi = std::max(Hull.Hi, R.Hi);
    }
    S.Ranges = {Hull};
  }
  return S;
}

IntegerSet IntegerSet::shifted(int64_t K) const {
  IntegerSet S = *this;
  for (Range &R : S.Ranges) {
    R.Lo = sat(static_cast<__int128>(R.Lo) + K);
    R.Hi = sat(static_cast<__int128>(R.Hi) + K);
  }
  return S;
}

IntegerSet IntegerSet::scaled(int64_t K) const {
  IntegerSet S = *this;
  for (Range &R : S.Ranges) {
    int64_t A = sat(static_cast<__int128>(R.Lo) * K);
    int64_t B = sat(static_cast<__int128>(R.Hi) * K);
    R.Lo = std::min(A, B);
    R.Hi = std::max(A, B);
  }
  return S;
}

IntegerSet IntegerSet::clamped(std::optional<int64_t> Lo,
                               std::optional<int64_t> Hi,
                               const Expr *Source) const {
  if (!Known)
    return *this;
  IntegerSet S;
  S.Known = true;
  for (const Range &R : Ranges) {
    Range C = R;
    if (Lo && C.Hi < *Lo) {
      S.Ranges.push_back({*Lo, *Lo, Source});
      continue;
    }
    if (Hi && C.Lo > *Hi) {
      S.Ranges.push_back({*Hi, *Hi, Source});
      continue;
    }
    if (Lo)
      C.Lo = std::max(C.Lo, *Lo);
    if (Hi)
      C.Hi = std::min(C.Hi, *Hi);
    S.Ranges.push_back(C);
  }
  return S;
}

IntegerSet IntegerSet::restrictedTo(int64_t Lo, int64_t Hi) const {
  if (!Known)
    return *this;
  IntegerSet S;
  S.Known = true;
  for (const Range &R : Ranges) {
    Range C = R;
    C.Lo = std::max(C.Lo, Lo);
    C.Hi = std::min(C.Hi, Hi);
    if (C.Lo <= C.Hi)
      S.Ranges.push_back(C);
  }
  return S;
}

std::optional<std::pair<int64_t, const IntegerSet::Range *>>
IntegerSet::firstOutside(int64_t Lo, int64_t HiExclusive,
                         std::optional<int64_t> Except) const {
  if (!Known)
    return std::nullopt;
  for (const Range &R : Ranges) {
    // Above the range first: labels one too large are the common case.
    for (int64_t V : {R.Hi, R.Lo}) {
      if (V >= Lo && V < HiExclusive)
        continue;
      if (Except && V == *Except) {
        // The next value of the interval in the same direction.
        int64_t Next = V == R.Hi ? V - 1 : V + 1;
        if (Next < R.Lo || Next > R.Hi || (Next >= Lo && Next < HiExclusive))
          continue;
        V = Next;
      }
      return std::make_pair(V, &R);
    }
  }
  return std::nullopt;
}

// --- IntegerValues ----------------------------------------------------------

std::optional<int64_t> IntegerValues::constantOf(const Expr *E) {
  E = stripImplicit(E);
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  // at::Scalar(k), c10::optional<int64_t>(k), int64_t(k).
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 1 ? constantOf(Construct->getArg(0))
                                        : std::nullopt;
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
    return constantOf(Cast->getSubExpr());
  QualType T = E->getType();
  if (T->isIntegerType() || T->isUnscopedEnumerationType()) {
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, Ctx) && R.Val.isInt())
      return R.Val.getInt().getExtValue();
  } else if (T->isRealFloatingType()) {
    llvm::APFloat F(0.0);
    if (E->EvaluateAsFloat(F, Ctx)) {
      double D = F.convertToDouble();
      if (D == static_cast<double>(static_cast<int64_t>(D)))
        return static_cast<int64_t>(D);
    }
    return std::nullopt;
  }
  // A local integer never written after its constant initialiser
  // (`int num_classes = 10;`): clang's ExprMutationAnalyzer says no
  // statement of the function may change it.
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) ||
      VD->getType()->isReferenceType() || !VD->getInit() ||
      !(VD->getType()->isIntegerType() || VD->getType()->isRealFloatingType()))
    return std::nullopt;
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody() || Visiting.contains(VD))
    return std::nullopt;
  ExprMutationAnalyzer Mutations(*Fn->getBody(), Ctx);
  if (Mutations.isMutated(VD))
    return std::nullopt;
  Visiting.insert(VD);
  std::optional<int64_t> V = constantOf(VD->getInit());
  Visiting.erase(VD);
  return V;
}

IntegerSet IntegerValues::values(const Expr *E, unsigned Depth) {
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth || E->isTypeDependent())
    return IntegerSet::unknown();
  QualType T = E->getType().getNonReferenceType();
  if (!isTensorType(T)) {
    if (std::optional<int64_t> V = constantOf(E))
      return IntegerSet::of(*V, *V, E);
    return IntegerSet::unknown();
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const Expr *Arg = boundArgument(Ref->getDecl()))
      return values(Arg, Depth + 1); // The caller's argument.
    const auto *VD =
        dyn_cast_or_null<VarDecl>(DevicePlacement::aliasTarget(Ref->getDecl()));
    if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) ||
        VD->getType()->isReferenceType())
      return IntegerSet::unknown();
    return variableValues(*VD, Depth);
  }
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E))
    return values(Cond->getTrueExpr(), Depth + 1)
        .join(values(Cond->getFalseExpr(), Depth + 1));
  if (std::optional<PathValues> Stored = valuesOfPath(*E)) {
    if (Stored->Values.empty())
      return IntegerSet::unknown();
    IntegerSet S = values(Stored->Values.front(), Depth + 1);
    for (const Expr *V : llvm::ArrayRef(Stored->Values).drop_front())
      S = S.join(values(V, Depth + 1));
    return S;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    const OverloadedOperatorKind K = Op->getOperator();
    if (K == OO_Subscript && Op->getNumArgs() == 2)
      return values(Op->getArg(0), Depth + 1); // A selection keeps values.
    if (K == OO_Minus && Op->getNumArgs() == 1)
      return values(Op->getArg(0), Depth + 1).scaled(-1);
    if ((K == OO_Plus || K == OO_Minus || K == OO_Star) &&
        Op->getNumArgs() == 2) {
      const Expr *L = Op->getArg(0), *R = Op->getArg(1);
      const bool LT = isTensorType(L->getType().getNonReferenceType());
      const Expr *Tensor = LT ? L : R;
      std::optional<int64_t> Scalar = constantOf(LT ? R : L);
      if (!Scalar || !isTensorType(Tensor->getType().getNonReferenceType()))
        return IntegerSet::unknown();
      IntegerSet S = values(Tensor, Depth + 1);
      if (K == OO_Plus)
        return S.shifted(*Scalar);
      if (K == OO_Star)
        return S.scaled(*Scalar);
      return LT ? S.shifted(-*Scalar) : S.scaled(-1).shifted(*Scalar);
    }
    return IntegerSet::unknown();
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return callValues(*Call, E, Depth);
  return IntegerSet::unknown();
}

IntegerSet IntegerValues::callValues(const CallExpr &Call, const Expr *E,
                                     unsigned Depth) {
  std::optional<LibTorchCall> C = asLibTorchCall(E);
  if (!C) {
    // A function or lambda of the user's code: what every return holds.
    const FunctionDecl *Body = calledBody(Call, Ctx);
    if (!Body || Body->isDependentContext())
      return IntegerSet::unknown();
    llvm::SmallVector<const Expr *, 2> Returns = returnedValues(*Body);
    if (Returns.empty())
      return IntegerSet::unknown();
    IntegerSet S = values(Returns.front(), Depth + 1);
    for (const Expr *R : llvm::ArrayRef(Returns).drop_front())
      S = S.join(values(R, Depth + 1));
    return S;
  }
  const StringRef Name = C->Name;
  auto Constants = [&](llvm::ArrayRef<const Expr *> Args)
      -> std::optional<llvm::SmallVector<int64_t, 3>> {
    llvm::SmallVector<int64_t, 3> Out;
    for (const Expr *A : Args) {
      std::optional<int64_t> V = constantOf(A);
      if (!V)
        return std::nullopt;
      Out.push_back(*V);
    }
    return Out;
  };
  if (Name == "randint" || Name == "randint_like") {
    llvm::SmallVector<const Expr *, 3> Args = scalarArguments(Call);
    auto V = Constants(Args);
    if (!V || V->empty() || V->size() > 2)
      return IntegerSet::unknown();
    const int64_t Lo = V->size() == 2 ? (*V)[0] : 0;
    const int64_t Hi = V->back() - 1;
    return IntegerSet::of(Lo, Hi, E);
  }
  if (Name == "arange") {
    llvm::SmallVector<const Expr *, 3> Args = scalarArguments(Call);
    auto V = Constants(Args);
    if (!V || V->empty() || V->size() > 3 || (V->size() == 3 && (*V)[2] <= 0))
      return IntegerSet::unknown();
    const int64_t Lo = V->size() >= 2 ? (*V)[0] : 0;
    const int64_t End = V->size() >= 2 ? (*V)[1] : (*V)[0];
    return IntegerSet::of(Lo, End - 1, E);
  }
  if (Name == "full" || Name == "full_like" || Name == "fill_") {
    const Expr *Fill = Name == "fill_" ? argumentAfterOperand(*C, 0)
                                       : (Call.getNumArgs() >= 2 ? Call.getArg(1)
                                                                 : nullptr);
    std::optional<int64_t> V = Fill ? constantOf(Fill) : std::nullopt;
    return V ? IntegerSet::of(*V, *V, E) : IntegerSet::unknown();
  }
  if (Name == "zeros" || Name == "zeros_like")
    return IntegerSet::of(0, 0, E);
  if (Name == "ones" || Name == "ones_like")
    return IntegerSet::of(1, 1, E);
  if (Name == "tensor" && Call.getNumArgs() >= 1) {
    // torch::tensor({1, 2, 3}): every element a constant.
    const InitListExpr *List = nullptr;
    forEachStmt(Call.getArg(0), [&](const Stmt &S) {
      if (!List)
        List = dyn_cast<InitListExpr>(&S);
    });
    if (!List || List->getNumInits() == 0)
      return IntegerSet::unknown();
    IntegerSet S = IntegerSet::of(1, 0, E); // Known, empty.
    for (const Expr *Init : List->inits()) {
      std::optional<int64_t> V = constantOf(Init);
      if (!V)
        return IntegerSet::unknown();
      S = S.join(IntegerSet::of(*V, *V, Init));
    }
    return S;
  }
  const Expr *Operand = operandOf(*C);
  if (!Operand || !isTensorType(Operand->getType().getNonReferenceType()))
    return IntegerSet::unknown();
  if (Name == "add" || Name == "sub" || Name == "mul") {
    const Expr *Other = argumentAfterOperand(*C, 0);
    if (argumentAfterOperand(*C, 1)) // An alpha.
      return IntegerSet::unknown();
    std::optional<int64_t> K = Other ? constantOf(Other) : std::nullopt;
    if (!K)
      return IntegerSet::unknown();
    IntegerSet S = values(Operand, Depth + 1);
    return Name == "add"   ? S.shifted(*K)
           : Name == "sub" ? S.shifted(-*K)
                           : S.scaled(*K);
  }
  if (Name == "clamp" || Name == "clamp_min" || Name == "clamp_max") {
    const Expr *A = argumentAfterOperand(*C, 0);
    const Expr *B = argumentAfterOperand(*C, 1);
    std::optional<int64_t> Lo, Hi;
    auto Bound = [&](const Expr *X, std::optional<int64_t> &Out) {
      if (!X)
        return true;
      Out = constantOf(X);
      return Out.has_value() || isa<CXXNullPtrLiteralExpr>(stripImplicit(X));
    };
    bool Ok = Name == "clamp"       ? Bound(A, Lo) && Bound(B, Hi)
              : Name == "clamp_min" ? Bound(A, Lo)
                                    : Bound(A, Hi);
    if (!Ok)
      return IntegerSet::unknown();
    return values(Operand, Depth + 1).clamped(Lo, Hi, E);
  }
  if (Name == "masked_fill")
    return filled(values(Operand, Depth + 1), Operand,
                  argumentAfterOperand(*C, 0), argumentAfterOperand(*C, 1), E,
                  Depth);
  if (Name == "where" && Call.getNumArgs() == 3 && !C->Object) {
    std::optional<Comparison> Cmp = comparisonOf(Call.getArg(0));
    std::optional<int64_t> K =
        Cmp ? constantOf(Cmp->Bound) : std::optional<int64_t>();
    auto Branch = [&](const Expr *B, bool Holds) {
      IntegerSet S = values(B, Depth + 1);
      if (!K || !sameLocation(B, Cmp->Tensor, Ctx) || Cmp->Op == BO_NE)
        return S;
      auto [Lo, Hi] = selected(Cmp->Op, *K);
      if (Holds)
        return S.restrictedTo(Lo, Hi);
      // The values the comparison does not select: one side of the bound.
      if (Cmp->Op == BO_EQ)
        return S; // All but K: kept as is (a superset).
      return Lo == Min ? S.restrictedTo(Hi + 1, Max) : S.restrictedTo(Min, Lo - 1);
    };
    return Branch(Call.getArg(1), true).join(Branch(Call.getArg(2), false));
  }
  if (C->is(op::ValuePreserving) || C->is(op::Converts) ||
      C->is(op::Detach) || Name == "long" || Name == "to" || Name == "cuda" ||
      Name == "cpu")
    return values(Operand, Depth + 1);
  return IntegerSet::unknown();
}

IntegerSet IntegerValues::filled(const IntegerSet &Set, const Expr *Target,
                                 const Expr *Mask, const Expr *Fill,
                                 const Expr *Source, unsigned Depth) {
  std::optional<int64_t> V = Fill ? constantOf(Fill) : std::nullopt;
  if (!Set.Known || !V || !Mask)
    return IntegerSet::unknown();
  IntegerSet Kept = Set;
  // A mask that compares the filled tensor itself with a constant replaces
  // exactly the values it selects.
  if (std::optional<Comparison> Cmp = comparisonOf(Mask);
      Cmp && sameLocation(Cmp->Tensor, Target, Ctx)) {
    if (std::optional<int64_t> K = constantOf(Cmp->Bound)) {
      switch (Cmp->Op) {
      case BO_NE: Kept = Set.restrictedTo(*K, *K); break;
      case BO_EQ: break; // Removing one value: kept as a superset.
      case BO_LT: case BO_LE: {
        auto [Lo, Hi] = selected(Cmp->Op, *K);
        (void)Lo;
        Kept = Set.restrictedTo(Hi + 1, Max);
        break;
      }
      default: {
        auto [Lo, Hi] = selected(Cmp->Op, *K);
        (void)Hi;
        Kept = Set.restrictedTo(Min, Lo - 1);
        break;
      }
      }
    }
  }
  return Kept.join(IntegerSet::of(*V, *V, Source));
}

IntegerSet IntegerValues::variableValues(const VarDecl &VD, unsigned Depth) {
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD.getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody() || Visiting.contains(&VD))
    return IntegerSet::unknown();
  Visiting.insert(&VD);
  auto Done = [&](IntegerSet S) {
    Visiting.erase(&VD);
    return S;
  };
  auto IsVar = [&](const Expr *E) {
    E = stripImplicit(E);
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
    return Ref && DevicePlacement::aliasTarget(Ref->getDecl()) == &VD;
  };
  llvm::SmallVector<const Expr *, 2> Defs;
  if (const Expr *Init = VD.getInit()) {
    const auto *Construct = dyn_cast<CXXConstructExpr>(stripImplicit(Init));
    if (!Construct || Construct->getNumArgs() > 0)
      Defs.push_back(Init);
  }
  // In-place updates, in source order: (object or target, call).
  llvm::SmallVector<const Stmt *, 2> Updates;
  bool Unknown = false;
  forEachStmt(Fn->getBody(), [&](const Stmt &S) {
    if (Unknown)
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(&S)) {
      if (BO->isAssignmentOp() && IsVar(BO->getLHS()))
        Unknown = true; // A tensor is never a built-in operand.
      return;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S)) {
      if (Op->getNumArgs() == 2 && Op->isAssignmentOp()) {
        const Expr *LHS = stripImplicit(Op->getArg(0));
        if (IsVar(LHS)) {
          if (Op->getOperator() == OO_Equal)
            Defs.push_back(Op->getArg(1));
          else
            Updates.push_back(Op);
          return;
        }
        // `t[mask] = v`, `t.index({mask}) = v`.
        if (const auto *Sub = dyn_cast_or_null<CXXOperatorCallExpr>(LHS);
            Sub && Sub->getOperator() == OO_Subscript && IsVar(Sub->getArg(0))) {
          Updates.push_back(Op);
          return;
        }
        if (std::optional<LibTorchCall> Index = asLibTorchCall(LHS);
            Index && Index->Name == "index" && IsVar(operandOf(*Index))) {
          Updates.push_back(Op);
          return;
        }
      }
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&S)) {
      if (!IsVar(Member->getImplicitObjectArgument()))
        return;
      const CXXMethodDecl *M = Member->getMethodDecl();
      if (!M || !M->getIdentifier())
        return;
      if (M->getName().ends_with("_"))
        Updates.push_back(Member);
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      // Passed on by non-const reference to a function of the user's code.
      if (asLibTorchCall(Call) || isModuleForwardCall(*Call))
        return;
      const FunctionDecl *Callee = Call->getDirectCallee();
      for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
        if (!IsVar(Call->getArg(I)))
          continue;
        const unsigned Shift = isa<CXXOperatorCallExpr>(Call) &&
                                       isa_and_nonnull<CXXMethodDecl>(Callee)
                                   ? 1
                                   : 0;
        if (I < Shift)
          continue;
        QualType P = Callee && I - Shift < Callee->getNumParams()
                         ? Callee->getParamDecl(I - Shift)->getType()
                         : QualType();
        if (P.isNull() || P->isPointerType() ||
            (P->isReferenceType() &&
             !P.getNonReferenceType().isConstQualified() &&
             !readsOnly(Callee, I - Shift)))
          Unknown = true;
      }
    }
  });
  if (Unknown || Defs.empty())
    return Done(IntegerSet::unknown());
  IntegerSet S = values(Defs.front(), Depth + 1);
  for (const Expr *D : llvm::ArrayRef(Defs).drop_front())
    S = S.join(values(D, Depth + 1));
  const Expr *VarRef = nullptr;
  for (const Stmt *U : Updates) {
    if (!S.Known)
      break;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(U)) {
      const Expr *LHS = stripImplicit(Op->getArg(0));
      std::optional<int64_t> K = constantOf(Op->getArg(1));
      switch (Op->getOperator()) {
      case OO_PlusEqual:
      case OO_MinusEqual:
      case OO_StarEqual:
        if (!K) {
          S = IntegerSet::unknown();
          break;
        }
        S = Op->getOperator() == OO_PlusEqual    ? S.shifted(*K)
            : Op->getOperator() == OO_MinusEqual ? S.shifted(-*K)
                                                 : S.scaled(*K);
        break;
      case OO_Equal: {
        // `t[mask] = v` / `t.index({mask}) = v`.
        const Expr *Mask = nullptr;
        if (const auto *Sub = dyn_cast<CXXOperatorCallExpr>(LHS)) {
          Mask = Sub->getArg(1);
          VarRef = Sub->getArg(0);
        } else if (std::optional<LibTorchCall> Index = asLibTorchCall(LHS)) {
          const Expr *Arg = argumentAfterOperand(*Index, 0);
          const InitListExpr *List = nullptr;
          forEachStmt(Arg, [&](const Stmt &St) {
            if (!List)
              List = dyn_cast<InitListExpr>(&St);
          });
          Mask = List && List->getNumInits() == 1 ? List->getInit(0) : nullptr;
          VarRef = operandOf(*Index);
        }
        S = Mask ? filled(S, VarRef, Mask, Op->getArg(1), Op, Depth)
                 : IntegerSet::unknown();
        break;
      }
      default:
        S = IntegerSet::unknown();
      }
      continue;
    }
    const auto *Member = cast<CXXMemberCallExpr>(U);
    const StringRef Name = Member->getMethodDecl()->getName();
    const Expr *Object = Member->getImplicitObjectArgument();
    const Expr *A0 = Member->getNumArgs() > 0 ? Member->getArg(0) : nullptr;
    const Expr *A1 = Member->getNumArgs() > 1 ? Member->getArg(1) : nullptr;
    std::optional<int64_t> K0 = A0 ? constantOf(A0) : std::nullopt;
    if ((Name == "add_" || Name == "sub_" || Name == "mul_") && K0 && !A1) {
      S = Name == "add_"   ? S.shifted(*K0)
          : Name == "sub_" ? S.shifted(-*K0)
                           : S.scaled(*K0);
    } else if (Name == "clamp_" || Name == "clamp_min_" ||
               Name == "clamp_max_") {
      std::optional<int64_t> K1 = A1 ? constantOf(A1) : std::nullopt;
      if (Name == "clamp_" && K0 && (!A1 || K1))
        S = S.clamped(K0, K1, Member);
      else if (Name == "clamp_min_" && K0)
        S = S.clamped(K0, std::nullopt, Member);
      else if (Name == "clamp_max_" && K0)
        S = S.clamped(std::nullopt, K0, Member);
      else
        S = IntegerSet::unknown();
    } else if (Name == "masked_fill_") {
      S = filled(S, Object, A0, A1, Member, Depth);
    } else if (Name == "index_put_" && A0 && A1) {
      const InitListExpr *List = nullptr;
      forEachStmt(A0, [&](const Stmt &St) {
        if (!List)
          List = dyn_cast<InitListExpr>(&St);
      });
      S = List && List->getNumInits() == 1
              ? filled(S, Object, List->getInit(0), A1, Member, Depth)
              : IntegerSet::unknown();
    } else if (Name == "fill_" && K0) {
      S = IntegerSet::of(*K0, *K0, Member);
    } else {
      S = IntegerSet::unknown(); // Another in-place operation.
    }
  }
  return Done(S);
}

} // namespace clang::tidy::torch
