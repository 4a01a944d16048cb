//===--- BoundaryGuard.cpp - is a value kept away from a boundary? --------===//

#include "utils/analysis/BoundaryGuard.h"
#include "utils/analysis/PathValues.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "utils/libtorch/OpTable.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include <cmath>

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxDepth = 12;
/// Calls of zero/unit/denom/reachesOne per query. The largest query in the
/// check's tests takes 17; a function whose locals are assigned from each
/// other many times takes exponentially many (see
/// test/checks/torch-missing-epsilon-crash-many-writes.cpp).
constexpr unsigned MaxSteps = 4096;

struct Arithmetic {
  BinaryOperatorKind Op;
  const Expr *LHS;
  const Expr *RHS;
};

/// `a + b`, `a.add(b)`, `at::add(a, b)` and the like for + - * /.
std::optional<Arithmetic> asArithmetic(const Expr *E) {
  E = stripImplicit(E);
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    switch (BO->getOpcode()) {
    case BO_Add:
    case BO_Sub:
    case BO_Mul:
    case BO_Div:
      return Arithmetic{BO->getOpcode(), BO->getLHS(), BO->getRHS()};
    case BO_AddAssign: // x += e is the value x + e
      return Arithmetic{BO_Add, BO->getLHS(), BO->getRHS()};
    case BO_SubAssign:
      return Arithmetic{BO_Sub, BO->getLHS(), BO->getRHS()};
    case BO_MulAssign:
      return Arithmetic{BO_Mul, BO->getLHS(), BO->getRHS()};
    case BO_DivAssign:
      return Arithmetic{BO_Div, BO->getLHS(), BO->getRHS()};
    default:
      return std::nullopt;
    }
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (OC->getNumArgs() != 2)
      return std::nullopt;
    BinaryOperatorKind Op;
    switch (OC->getOperator()) {
    case OO_Plus:
    case OO_PlusEqual:
      Op = BO_Add;
      break;
    case OO_Minus:
    case OO_MinusEqual:
      Op = BO_Sub;
      break;
    case OO_Star:
    case OO_StarEqual:
      Op = BO_Mul;
      break;
    case OO_Slash:
    case OO_SlashEqual:
      Op = BO_Div;
      break;
    default:
      return std::nullopt;
    }
    return Arithmetic{Op, OC->getArg(0), OC->getArg(1)};
  }
  auto Call = asLibTorchCall(E);
  if (!Call)
    return std::nullopt;
  std::optional<BinaryOperatorKind> Op;
  if (Call->is(op::Add))
    Op = BO_Add;
  else if (Call->is(op::Sub))
    Op = BO_Sub;
  else if (Call->is(op::Mul))
    Op = BO_Mul;
  else if (Call->is(op::Div))
    Op = BO_Div;
  if (!Op)
    return std::nullopt;
  if (Call->Object && !Call->Args.empty())
    return Arithmetic{*Op, Call->Object, Call->Args[0]};
  if (!Call->Object && Call->Args.size() >= 2)
    return Arithmetic{*Op, Call->Args[0], Call->Args[1]};
  return std::nullopt;
}

bool isValuePreserving(StringRef Name) {
  return opHas(Name, op::ValuePreserving);
}
bool isDetach(StringRef Name) { return opHas(Name, op::Detach); }
bool isClamp(StringRef Name) { return opHas(Name, op::Clamp | op::ClampMin); }

/// The bounds a clamp writes (clamp(lo, hi), clamp_min(lo), clamp_max(hi));
/// null for a side it leaves open or an empty optional (`clamp(nullopt, hi)`).
const Expr *lowerClampBound(const LibTorchCall &C) {
  const Expr *B = C.is(op::Clamp | op::ClampMin) ? argumentAfterOperand(C, 0)
                                                 : nullptr;
  return B && !isEmptyOptional(B) ? B : nullptr;
}
const Expr *upperClampBound(const LibTorchCall &C) {
  const Expr *B = C.is(op::Clamp)      ? argumentAfterOperand(C, 1)
                  : C.is(op::ClampMax) ? argumentAfterOperand(C, 0)
                                       : nullptr;
  return B && !isEmptyOptional(B) ? B : nullptr;
}

/// True if a value of type \p T may hold tensors, and so autograd history:
/// not a host scalar, an enum, a pointer, nor a LibTorch value type (Device,
/// TensorOptions, Scalar) that holds no tensor.
bool mayHoldTensors(QualType T) {
  if (T.isNull())
    return true;
  T = T.getNonReferenceType().getCanonicalType();
  if (T->isDependentType() || isTensorType(T) || isTensorListType(T))
    return true;
  if (T->isScalarType() || T->isVoidType())
    return false;
  if (const auto *RD = T->getAsCXXRecordDecl()) {
    const auto *NS = dyn_cast<NamespaceDecl>(RD->getDeclContext());
    if (NS && NS->getName() == "c10") {
      if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
        for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
          if (A.getKind() == TemplateArgument::Type &&
              mayHoldTensors(A.getAsType()))
            return true;
      return false;
    }
  }
  return true;
}

ReachResult make(Reach State, bool NonNegative = false) {
  return ValueRange::of(State, NonNegative);
}

ReachResult combine(const ReachResult &A, const ReachResult &B) {
  return ValueRange::join(A, B);
}

/// True if \p E computes the same value each time it is evaluated: variables,
/// literals, arithmetic and LibTorch's differentiable operations (no
/// factory, no random numbers, no assignment, no user function).
bool isRepeatable(const Expr *E) {
  bool Repeatable = true;
  forEachStmt(E, [&](const Stmt &S) {
    if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
      // Operations the table names: the default for the others
      // (tensorOpOrDefaultOf) says nothing about random draws (dropout).
      if (Op ? Op->isAssignmentOp()
             : !isDifferentiableCall(*Call) || !tensorOpOf(*Call))
        Repeatable = false;
    } else if (isa<BinaryOperator>(S) &&
               cast<BinaryOperator>(S).isAssignmentOp()) {
      Repeatable = false;
    } else if (const auto *U = dyn_cast<UnaryOperator>(&S);
               U && U->isIncrementDecrementOp()) {
      Repeatable = false;
    }
  });
  return Repeatable;
}

/// The same variable, or (`(x - m) * (x - m)`) the same expression written
/// twice whose value cannot differ between the two evaluations.
bool sameVariable(const Expr *A, const Expr *B, const ASTContext &Ctx) {
  return sameExpression(A, B, Ctx) && isRepeatable(stripImplicit(A));
}

/// The variable a local reference names, through chains of references
/// (`auto &x_ref = x;` is x: a reference is never rebound); \p VD otherwise.
const VarDecl *aliasOf(const VarDecl *VD) {
  for (int Depth = 0; VD && Depth < 8; ++Depth) {
    if (!VD->getType()->isReferenceType() || isa<ParmVarDecl>(VD) ||
        !VD->hasLocalStorage() || !VD->getInit() || VD->isCXXForRangeDecl())
      return VD;
    const auto *Ref = dyn_cast<DeclRefExpr>(VD->getInit()->IgnoreParenImpCasts());
    const auto *To = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!To || To == VD)
      return VD;
    VD = To;
  }
  return VD;
}

bool refersTo(const Expr *E, const VarDecl *VD) {
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(stripImplicit(E));
  if (!DRE)
    return false;
  if (DRE->getDecl() == VD)
    return true;
  const auto *Var = dyn_cast<VarDecl>(DRE->getDecl());
  return Var && aliasOf(Var) == VD;
}

/// Collects how a function body writes to \p VD.
class WriteCollector {
public:
  explicit WriteCollector(const VarDecl *VD) : VD(VD) {}

  void visit(const Stmt *S) {
    if (!S || Modified)
      return;
    if (const auto *E = dyn_cast<Expr>(S))
      inspect(E);
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *Other = dyn_cast<VarDecl>(D))
          if (Other != VD && Other->getType()->isReferenceType() &&
              !Other->getType().getNonReferenceType().isConstQualified() &&
              refersTo(Other->getInit(), VD) && aliasOf(Other) != VD)
            Modified = true; // A mutable alias the writes are not seen through.
    for (const Stmt *Child : S->children())
      visit(Child);
  }

  bool Modified = false;
  /// Every write whose place is known: the writing expression, and the value
  /// it leaves (the right-hand side of `=`; the write itself for a compound
  /// assignment or an in-place method, read as `x + e`, `x.clamp_min(e)`).
  llvm::SmallVector<std::pair<const Expr *, const Expr *>, 2> Writes;

private:
  /// `std::get<I>(VD)`: an element of a tuple variable.
  bool isElementOf(const Expr *E) const {
    const auto *Get = dyn_cast_or_null<CallExpr>(E ? E->IgnoreParenImpCasts()
                                                   : nullptr);
    return Get && isStdCall(*Get, "get") && Get->getNumArgs() == 1 &&
           refersTo(Get->getArg(0), VD);
  }

  void inspect(const Expr *E) {
    // A write into an element of the tuple (`std::get<0>(t) = x;`,
    // `std::get<0>(t).add_(1)`) leaves its value unknown; reading one
    // through std::get (which takes the tuple by reference) does not write.
    if (const auto *BO = dyn_cast<BinaryOperator>(E);
        BO && BO->isAssignmentOp() && isElementOf(BO->getLHS()))
      Modified = true;
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
        OC && OC->isAssignmentOp() && OC->getNumArgs() == 2 &&
        isElementOf(OC->getArg(0)))
      Modified = true;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
        MC && isElementOf(MC->getImplicitObjectArgument())) {
      const CXXMethodDecl *M = MC->getMethodDecl();
      if (!M || !M->isConst() ||
          (M->getIdentifier() && M->getName().ends_with("_")))
        Modified = true;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E);
        Call && isStdCall(*Call, "get"))
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->isAssignmentOp() && refersTo(BO->getLHS(), VD)) {
        Writes.push_back(
            {BO, BO->getOpcode() == BO_Assign ? BO->getRHS() : BO});
      }
      return;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if ((UO->getOpcode() == UO_AddrOf || UO->isIncrementDecrementOp()) &&
          refersTo(UO->getSubExpr(), VD))
        Modified = true;
      return;
    }
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (OC->isAssignmentOp() && OC->getNumArgs() == 2 &&
          refersTo(OC->getArg(0), VD)) {
        Writes.push_back(
            {OC, OC->getOperator() == OO_Equal ? OC->getArg(1) : OC});
        return;
      }
      if (OC->getOperator() == OO_Amp && OC->getNumArgs() == 1 &&
          refersTo(OC->getArg(0), VD))
        Modified = true;
      return;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      if (refersTo(MC->getImplicitObjectArgument(), VD)) {
        const CXXMethodDecl *M = MC->getMethodDecl();
        // LibTorch's in-place methods are const and end in '_'; those that
        // only change the shape (unsqueeze_) keep every value.
        StringRef Name = M && M->getIdentifier() ? M->getName() : "";
        bool ShapeOnly = opHas(Name, op::KeepsValues);
        if (!ShapeOnly && (!M || !M->isConst() || Name.ends_with("_")))
          Writes.push_back({MC, MC});
      }
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      unsigned Offset =
          isa<CXXOperatorCallExpr>(Call) && isa_and_nonnull<CXXMethodDecl>(FD)
              ? 1
              : 0;
      for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
        if (!refersTo(Call->getArg(I), VD))
          continue;
        if (isa<CXXOperatorCallExpr>(Call) && I < Offset)
          continue; // The object of a member operator: handled above.
        if (!FD) {
          Modified = true; // An unresolved call may take it by reference.
          return;
        }
        unsigned P = I - Offset;
        if (P >= FD->getNumParams())
          continue; // Variadic: passed by value.
        QualType T = FD->getParamDecl(P)->getType();
        if (T->isLValueReferenceType() &&
            !T.getNonReferenceType().isConstQualified())
          Modified = true;
        if (T->isRValueReferenceType() || T->isPointerType())
          Modified = true;
      }
      return;
    }
    if (const auto *Lambda = dyn_cast<LambdaExpr>(E)) {
      for (const LambdaCapture &C : Lambda->captures())
        if (C.capturesVariable() && C.getCapturedVar() == VD &&
            C.getCaptureKind() == LCK_ByRef)
          Modified = true;
    }
  }

  const VarDecl *VD;
};

/// A default-constructed or empty initializer: `torch::Tensor t;`.
bool isEmptyInit(const Expr *Init) {
  if (!Init)
    return true;
  Init = stripImplicit(Init);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Init))
    return CE->getNumArgs() == 0 ||
           llvm::all_of(CE->arguments(), [](const Expr *A) {
             return isa<CXXDefaultArgExpr>(A);
           });
  if (const auto *IL = dyn_cast<InitListExpr>(Init))
    return IL->getNumInits() == 0;
  return false;
}

bool isTensorTyped(const Expr *E) {
  return E && (isTensorType(E->getType()) || E->isTypeDependent());
}

} // namespace

std::optional<double> BoundaryAnalysis::constantValue(const Expr *E) const {
  E = stripImplicit(E);
  if (!E || E->isValueDependent() || E->isTypeDependent() ||
      E->containsErrors())
    return std::nullopt;
  QualType T = E->getType();
  if (T.isNull() || !T->isArithmeticType())
    return std::nullopt;
  Expr::EvalResult Result;
  if (!E->EvaluateAsRValue(Result, Ctx) || Result.HasSideEffects)
    return std::nullopt;
  if (Result.Val.isInt())
    return static_cast<double>(Result.Val.getInt().getSExtValue());
  if (Result.Val.isFloat())
    return Result.Val.getFloat().convertToDouble();
  return std::nullopt;
}

static bool isEpsilonName(const Expr *E, const llvm::Regex &Names) {
  E = stripImplicit(E);
  StringRef Name;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<VarDecl, FieldDecl, BindingDecl>(DRE->getDecl()))
      Name = identifierOf(DRE->getDecl()->getDeclName());
  } else if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (isa<FieldDecl, VarDecl>(ME->getMemberDecl()))
      Name = identifierOf(ME->getMemberDecl()->getDeclName());
  } else if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E)) {
    Name = identifierOf(DM->getMember());
  } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // An accessor: options.eps(), get_epsilon().
    if (Call->getNumArgs() == 0)
      if (const auto *ND = dyn_cast_or_null<NamedDecl>(Call->getCalleeDecl()))
        Name = identifierOf(ND->getDeclName());
  }
  return !Name.empty() && Names.match(Name);
}

bool BoundaryAnalysis::mentionsEpsilon(const Expr *E) const {
  if (!E)
    return false;
  if (isEpsilonName(E, EpsilonNames))
    return true;
  llvm::SmallVector<const Stmt *, 16> Work{E};
  unsigned Budget = 64;
  while (!Work.empty() && Budget--) {
    const Stmt *S = Work.pop_back_val();
    if (const auto *SE = dyn_cast_or_null<Expr>(S))
      if (isEpsilonName(SE, EpsilonNames))
        return true;
    if (S)
      for (const Stmt *Child : S->children())
        Work.push_back(Child);
  }
  return false;
}

bool BoundaryAnalysis::isPositiveMargin(const Expr *E) const {
  if (std::optional<double> V = constantValue(E))
    return *V > 0;
  return mentionsEpsilon(E);
}

const BoundaryAnalysis::VariableWrites &
BoundaryAnalysis::writesOf(const VarDecl *VD) {
  auto It = Writes.find(VD);
  if (It != Writes.end())
    return It->second;
  VariableWrites Result;
  Result.Known = false;
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  // A parameter taken by value is a local variable whose first value is not
  // visible.
  bool ByValue = !isa<ParmVarDecl>(VD) || !VD->getType()->isReferenceType();
  if (Fn && Fn->getBody() && VD->hasLocalStorage() && ByValue) {
    WriteCollector Collector(VD);
    Collector.visit(Fn->getBody());
    Result.Known = !Collector.Modified;
    Result.Writes = Collector.Writes;
    if (!isEmptyInit(VD->getInit()))
      Result.Init = VD->getInit();
  }
  return Writes[VD] = Result;
}

static bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

static bool within(const SourceManager &SM, SourceRange R, SourceLocation L) {
  return R.isValid() && L.isValid() &&
         !SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
         !SM.isBeforeInTranslationUnit(R.getEnd(), L);
}

bool BoundaryAnalysis::dominates(const Expr *Write, const Expr *Use,
                                 const FunctionDecl &Fn) {
  // The statement the write is: `x = e;`, possibly with cleanups around it.
  const Stmt *S = Write;
  const Stmt *Block = Parents->parentOf(*S, Fn);
  while (
      isa_and_nonnull<ExprWithCleanups, ParenExpr, ImplicitCastExpr,
                      CXXBindTemporaryExpr, MaterializeTemporaryExpr>(Block)) {
    S = Block;
    Block = Parents->parentOf(*S, Fn);
  }
  if (!isa_and_nonnull<CompoundStmt>(Block))
    return false;
  // The statement of that block the use is in.
  const Stmt *Cur = Use;
  for (const Stmt *P = Parents->parentOf(*Cur, Fn); P != Block;
       P = Parents->parentOf(*Cur, Fn)) {
    if (!P || isa<LambdaExpr>(P))
      return false;
    Cur = P;
  }
  bool After = false;
  for (const Stmt *Child : cast<CompoundStmt>(Block)->body()) {
    if (After && isa<SwitchCase, LabelStmt>(Child))
      return false; // A jump may enter between the write and the use.
    if (Child == Cur)
      return After;
    if (Child == S)
      After = true;
  }
  return false;
}

llvm::SmallVector<const Expr *, 2>
BoundaryAnalysis::definitionsAt(const VarDecl *VD, const Expr *Use) {
  llvm::SmallVector<const Expr *, 2> Defs;
  const VariableWrites &W = writesOf(VD);
  if (!W.Known)
    return Defs;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation UseLoc = Use ? beginLoc(*Use) : SourceLocation();
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (UseLoc.isInvalid() || !Parents || !Fn) {
    if (isa<ParmVarDecl>(VD))
      return Defs;
    if (W.Init)
      Defs.push_back(W.Init);
    for (const auto &[Write, Value] : W.Writes)
      Defs.push_back(Value);
    return Defs;
  }
  // The write the use is part of (`g = g / g.sum()`, `k /= k.sum()`)
  // happens after the use is read.
  auto Contains = [&](const Expr *Write) {
    return within(SM, SourceRange(beginLoc(*Write), endLoc(*Write)), UseLoc);
  };
  auto Before = [&](const Expr *Write) {
    return SM.isBeforeInTranslationUnit(endLoc(*Write), UseLoc);
  };
  // The last write that every path to the use passes kills the earlier ones.
  const Expr *Kill = nullptr;
  for (const auto &[Write, Value] : W.Writes)
    if (!Contains(Write) && Before(Write) &&
        (!Kill ||
         SM.isBeforeInTranslationUnit(beginLoc(*Kill), beginLoc(*Write))) &&
        dominates(Write, Use, *Fn))
      Kill = Write;
  SourceLocation KillLoc = Kill ? beginLoc(*Kill) : VD->getLocation();
  // The outermost loop around the use that the kill is not in: the writes
  // after the use in it reach the use on the next iteration.
  SourceRange Carried;
  Parents->walkUp(*Use, *Fn, /*CrossLambdas=*/true,
                  [&](const BodyParents::Step &Step) {
                    if (Step.Parent && isLoop(Step.Parent) &&
                        !within(SM, Step.Parent->getSourceRange(), KillLoc))
                      Carried = Step.Parent->getSourceRange();
                    return true;
                  });
  if (!Kill && isa<ParmVarDecl>(VD))
    return {}; // The caller's value reaches the use.
  if (!Kill && W.Init)
    Defs.push_back(W.Init);
  for (const auto &[Write, Value] : W.Writes) {
    if (Contains(Write))
      continue;
    if (Before(Write)) {
      if (!Kill || !SM.isBeforeInTranslationUnit(beginLoc(*Write), KillLoc))
        Defs.push_back(Value);
    } else if (within(SM, Carried, beginLoc(*Write))) {
      Defs.push_back(Value);
    }
  }
  return Defs;
}

const Expr *BoundaryAnalysis::definitionOf(const VarDecl *VD) {
  llvm::SmallVector<const Expr *, 2> Defs = definitionsAt(VD, nullptr);
  return Defs.size() == 1 ? Defs.front() : nullptr;
}

const Expr *BoundaryAnalysis::definitionAt(const VarDecl *VD, const Expr *Use) {
  llvm::SmallVector<const Expr *, 2> Defs = definitionsAt(VD, Use);
  return Defs.size() == 1 ? Defs.front() : nullptr;
}

bool BoundaryAnalysis::holdsArgumentAt(const ParmVarDecl *P, const Expr *Use) {
  return Parents && writesOf(P).Known && definitionsAt(P, Use).empty();
}

ReachResult BoundaryAnalysis::nearZero(const Expr *E) {
  Visiting.clear();
  StepsLeft = MaxSteps;
  ReachResult R = zero(E, 0);
  // No gradient flows through a value without history (a distance grid of
  // aranges): only the value of an operation on it matters.
  if (!R.Detached && R.State != Reach::Guarded && withoutHistory(E))
    R.Detached = true;
  return R;
}

bool BoundaryAnalysis::fromData(const Expr *E, unsigned Depth) {
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth)
    return false;
  // A field or element of a local: what is stored there (PathValues.h).
  if (!isa<DeclRefExpr>(E))
    if (std::optional<PathValues> Stored = valuesOfPath(*E))
      return llvm::any_of(Stored->Values, [&](const Expr *V) {
        return fromData(V, Depth + 1);
      });
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (!VD || !isTensorTyped(E))
      return false;
    if (!VD->hasLocalStorage() || isa<ParmVarDecl>(VD) ||
        VD->getType()->isReferenceType())
      return true; // A parameter, a member, a global: data.
    llvm::SmallVector<const Expr *, 2> Defs = definitionsAt(VD, E);
    return llvm::any_of(Defs, [&](const Expr *D) {
      return D != E && fromData(D, Depth + 1);
    });
  }
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (isa<FieldDecl>(ME->getMemberDecl()))
      return isTensorTyped(E); // A tensor member: data.
    return fromData(ME->getBase(), Depth + 1); // `t.sum`: the object.
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // A fresh tensor (rand, zeros, linspace, torch::tensor(...)) is not data.
    if (isTensorFactoryCall(*Call))
      return false;
    if (!asLibTorchCall(E) && !isa<CXXOperatorCallExpr>(Call))
      return isTensorTyped(E); // A forward, a user function.
  }
  bool Found = false;
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child); CE && !Found)
      Found = fromData(CE, Depth + 1);
  return Found;
}

bool BoundaryAnalysis::computedHere(const Expr *E, unsigned Depth) {
  // Values made only of fresh tensors and constants (`acos(1 - 2 *
  // torch::rand({n}))`, sampling on a sphere) are not a cosine of data.
  if (Depth == 0 && !fromData(E, 0))
    return false;
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth || !isTensorTyped(E))
    return false;
  if (!isa<DeclRefExpr>(E))
    if (std::optional<PathValues> Stored = valuesOfPath(*E))
      return !Stored->Values.empty() &&
             llvm::all_of(Stored->Values, [&](const Expr *V) {
               return computedHere(V, Depth + 1);
             });
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) ||
        VD->getType()->isReferenceType())
      return false;
    llvm::SmallVector<const Expr *, 2> Defs = definitionsAt(VD, E);
    return !Defs.empty() && llvm::all_of(Defs, [&](const Expr *D) {
      return D != E && computedHere(D, Depth + 1);
    });
  }
  if (asArithmetic(E))
    return true;
  if (std::optional<LibTorchCall> C = asLibTorchCall(E)) {
    if (isValuePreserving(C->Name) || isDetach(C->Name))
      return computedHere(operandOf(*C), Depth + 1);
    // A matrix product of vectors not normalised (unit() knows normalised
    // ones) is not a cosine.
    return !C->is(op::InPlace) && !C->is(op::UnitSum);
  }
  return false;
}

ReachResult BoundaryAnalysis::nearUnit(const Expr *E) {
  Visiting.clear();
  StepsLeft = MaxSteps;
  ReachResult R = unit(E, 0);
  // No gradient flows through a value without history: only the value of
  // an operation on it matters (as after detach()).
  if (!R.Detached && R.State != Reach::Guarded && withoutHistory(E))
    R.Detached = true;
  return R;
}

void BoundaryAnalysis::unitSides(const Expr *E, unsigned Depth, bool &Lower,
                                 bool &Upper) {
  Lower = Upper = false;
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth || !takeStep())
    return;
  if (std::optional<double> V = constantValue(E)) {
    Lower = Upper = std::abs(*V) < 1;
    return;
  }
  if (std::optional<LibTorchCall> C = asLibTorchCall(E)) {
    if (C->is(op::Clamp | op::ClampMin | op::ClampMax)) {
      // A bound inside (-1, 1) keeps its side (a non-constant bound is the
      // user's margin); a side left open is what the operand's is.
      auto Inside = [&](const Expr *B) {
        std::optional<double> V = constantValue(B);
        return !V || !clampBoundReachesOne(*V);
      };
      const Expr *Lo = lowerClampBound(*C);
      const Expr *Hi = upperClampBound(*C);
      bool OperandLower = false, OperandUpper = false;
      if (!Lo || !Hi)
        unitSides(operandOf(*C), Depth + 1, OperandLower, OperandUpper);
      Lower = Lo ? Inside(Lo) : OperandLower;
      Upper = Hi ? Inside(Hi) : OperandUpper;
      return;
    }
    if (isValuePreserving(C->Name) || isDetach(C->Name)) {
      unitSides(operandOf(*C), Depth + 1, Lower, Upper);
      return;
    }
  } else if (isa<DeclRefExpr>(E)) {
    const VarDecl *Through = nullptr;
    llvm::SmallVector<const Expr *, 2> Defs = followVariable(E, Through);
    if (!Defs.empty()) {
      Lower = Upper = true;
      for (const Expr *Def : Defs) {
        bool L = false, U = false;
        Visiting.insert(Def);
        unitSides(Def, Depth + 1, L, U);
        Visiting.erase(Def);
        Lower = Lower && L;
        Upper = Upper && U;
      }
      return;
    }
  }
  // A value >= 0 (|x|, x * x, a norm) is kept above -1.
  Lower = zero(E, Depth + 1).NonNegative;
}

bool BoundaryAnalysis::withoutHistory(const Expr *E) {
  unsigned Budget = 512;
  llvm::SmallPtrSet<const Expr *, 8> Seen;
  return !mayHaveHistory(E, 0, Budget, Seen);
}

bool BoundaryAnalysis::mayHaveHistory(const Expr *E, unsigned Depth,
                                      unsigned &Budget,
                                      llvm::SmallPtrSetImpl<const Expr *> &Seen) {
  E = stripImplicit(E);
  if (!E)
    return false;
  if (Depth > MaxDepth || !Budget || E->containsErrors())
    return true;
  --Budget;
  if (!E->isTypeDependent() && !mayHoldTensors(E->getType()))
    return false; // A host scalar, a dtype, a device, options.
  auto AnyChild = [&](const Stmt *S) {
    for (const Stmt *Child : S->children())
      if (const auto *CE = dyn_cast_or_null<Expr>(Child))
        if (mayHaveHistory(CE, Depth + 1, Budget, Seen))
          return true;
    return false;
  };
  if (!isa<DeclRefExpr>(E))
    if (std::optional<PathValues> Stored = valuesOfPath(*E)) {
      if (Stored->Values.empty())
        return true; // No value visible.
      for (const Expr *V : Stored->Values)
        if (Seen.insert(V).second &&
            mayHaveHistory(V, Depth + 1, Budget, Seen))
          return true;
      return false;
    }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (!VD) // A structured binding may hold anything; a function does not.
      return isa<BindingDecl>(Ref->getDecl());
    if (!VD->hasLocalStorage() || isa<ParmVarDecl>(VD) ||
        VD->getType()->isReferenceType() || !writesOf(VD).Known)
      return true; // A parameter, a global, an alias: the caller's tensor.
    const auto *Fn =
        dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
    if (!Fn || !Fn->getBody())
      return true;
    // `x.requires_grad_()` anywhere makes it a leaf that requires grad.
    bool Leaf = false;
    forEachStmt(Fn->getBody(), [&](const Stmt &S) {
      if (const auto *Call = dyn_cast<CallExpr>(&S);
          Call && !Leaf && setsRequiresGrad(*Call))
        if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
          Leaf = refersTo(Member->getImplicitObjectArgument(), VD);
    });
    if (Leaf)
      return true;
    llvm::SmallVector<const Expr *, 2> Defs = definitionsAt(VD, E);
    if (Defs.empty())
      return true; // No value visible.
    for (const Expr *Def : Defs) {
      if (Def == E || !Seen.insert(Def).second)
        continue; // Being followed already: it adds nothing new.
      if (mayHaveHistory(Def, Depth + 1, Budget, Seen))
        return true;
    }
    return false;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E);
      Member && isa<CXXMethodDecl>(Member->getMemberDecl()))
    return mayHaveHistory(Member->getBase(), Depth + 1, Budget, Seen);
  if (isa<MemberExpr>(E) || isa<CXXThisExpr>(E) || isa<LambdaExpr>(E))
    return true; // A member (a module's parameter), a captured value.
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (isTensorFactoryCall(*Call) || isTensorFromValuesCall(*Call))
      return requestsGrad(*Call);
    if (setsRequiresGrad(*Call))
      return true;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Op->getOperator() == OO_Call || Op->isAssignmentOp())
        return true; // A callable out of sight; a write.
      return AnyChild(Call);
    }
    if (std::optional<LibTorchCall> C = asLibTorchCall(E)) {
      if (C->is(op::RemovesHistory | op::NotDifferentiable))
        return false; // detach(), item(), argmax(): no history.
      if (C->is(op::InPlace))
        return true; // Its object, which it writes.
      return AnyChild(Call);
    }
    // std::get<0>(t), std::make_tuple(a, b): their arguments.
    if (const FunctionDecl *F = Call->getDirectCallee();
        F && F->isInStdNamespace() && F->getDeclName().isIdentifier() &&
        llvm::is_contained({"get", "make_pair", "make_tuple", "move"},
                           F->getName()))
      return AnyChild(Call);
    return true; // A forward, a user function.
  }
  return AnyChild(E);
}

DenominatorInfo BoundaryAnalysis::denominator(const Expr *E) {
  Visiting.clear();
  StepsLeft = MaxSteps;
  return denom(E, 0);
}

/// Follows a reference to a local variable to its definitions.
llvm::SmallVector<const Expr *, 2>
BoundaryAnalysis::followVariable(const Expr *E, const VarDecl *&Through) {
  // A field or element of a local (`box.f`, `terms[0]`, `std::get<1>(t)`):
  // every value stored there (PathValues.h), flow-insensitively.
  if (!isa<DeclRefExpr>(E))
    if (std::optional<PathValues> Stored = valuesOfPath(*E)) {
      llvm::SmallVector<const Expr *, 2> Defs;
      for (const Expr *V : Stored->Values)
        if (!Visiting.count(stripImplicit(V)) && !Visiting.count(V))
          Defs.push_back(stripImplicit(V));
      if (!Defs.empty())
        Through = Stored->Path.Root;
      return Defs;
    }
  // The first element of an operation that returns a tuple described by its
  // first element: `auto [var, mean] = torch::var_mean(x);`,
  // `std::get<0>(torch::std_mean(x))`. Other elements stay unknown.
  if (std::optional<TupleElement> Element = tupleElementOf(E)) {
    if (Element->Index != 0)
      return {};
    // The tuple itself may be a local: `auto vm = torch::var_mean(x);`.
    llvm::SmallVector<const Expr *, 2> Tuples{Element->Tuple};
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Element->Tuple))
      if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl()))
        Tuples = definitionsAt(VD, Element->Tuple);
    llvm::SmallVector<const Expr *, 2> Defs;
    for (const Expr *Tuple : Tuples) {
      std::optional<LibTorchCall> C = asLibTorchCall(stripImplicit(Tuple));
      if (!C || !C->is(op::TupleFirst))
        return {};
      Defs.push_back(stripImplicit(Tuple));
    }
    return Defs;
  }
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  if (!DRE)
    return {};
  const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
  if (!VD)
    return {};
  // A local reference is its target, read here.
  VD = aliasOf(VD);
  llvm::SmallVector<const Expr *, 2> Defs = definitionsAt(VD, E);
  // A definition being followed already reaches this use around a loop: the
  // other definitions tell what it can add.
  llvm::erase_if(Defs, [&](const Expr *D) { return Visiting.count(D); });
  if (!Defs.empty())
    Through = VD;
  return Defs;
}

ReachResult BoundaryAnalysis::zero(const Expr *E, unsigned Depth) {
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth || !takeStep())
    return make(Reach::Unknown);
  if (std::optional<double> V = constantValue(E))
    return ValueRange::constant(*V);
  if (isEpsilonName(E, EpsilonNames))
    return make(Reach::Guarded);
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E))
    return combine(zero(CO->getTrueExpr(), Depth + 1),
                   zero(CO->getFalseExpr(), Depth + 1));
  if (std::optional<Arithmetic> A = asArithmetic(E))
    return zeroArithmetic(A->Op, A->LHS, A->RHS, Depth);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E))
    if (OC->getOperator() == OO_Subscript && OC->getNumArgs() == 2) {
      // An element of a local container whose stored values are known:
      // those values; else nothing is known of it (like a parameter).
      if (!isTensorTyped(OC->getArg(0)))
        return valuesOfPath(*E) ? zeroVariable(E, Depth)
                                : make(Reach::Unknown);
      return zero(OC->getArg(0), Depth + 1);
    }
  if (std::optional<LibTorchCall> C = asLibTorchCall(E))
    return zeroOperation(*C, Depth);
  return zeroVariable(E, Depth);
}

bool BoundaryAnalysis::expandedSquaredDistance(BinaryOperatorKind Op,
                                               const Expr *LHS,
                                               const Expr *RHS,
                                               unsigned Depth) {
  // A squared distance expanded as |a|^2 + |b|^2 - 2 a.b, in any order of
  // its terms (`sq.unsqueeze(1) - 2 * mm(a, a.t()) + sq.unsqueeze(0)`): a
  // sum of magnitudes minus one matrix product, exactly 0 on the diagonal,
  // and rounding takes it below.
  // (A matrix product, possibly scaled by a positive constant:
  // `2 * torch::matmul(a, b.t())`.)
  auto IsProductTerm = [&](auto &&Self, const Expr *E) -> bool {
    E = stripImplicit(E);
    if (std::optional<Arithmetic> A = asArithmetic(E); A && A->Op == BO_Mul) {
      std::optional<double> L = constantValue(A->LHS);
      std::optional<double> R = constantValue(A->RHS);
      if (L && *L > 0)
        return Self(Self, A->RHS);
      if (R && *R > 0)
        return Self(Self, A->LHS);
      return false;
    }
    std::optional<LibTorchCall> C = asLibTorchCall(E);
    return C && C->is(op::Product) && !C->is(op::InPlace);
  };
  // The terms with their signs, through nested + and -.
  llvm::SmallVector<std::pair<const Expr *, bool>, 4> Terms;
  auto Collect = [&](auto &&Self, const Expr *E, bool Negative) -> void {
    E = stripImplicit(E);
    if (std::optional<Arithmetic> A = asArithmetic(E);
        A && (A->Op == BO_Add || A->Op == BO_Sub) && Terms.size() < 6) {
      Self(Self, A->LHS, Negative);
      Self(Self, A->RHS, A->Op == BO_Sub ? !Negative : Negative);
      return;
    }
    Terms.push_back({E, Negative});
  };
  Collect(Collect, LHS, false);
  Collect(Collect, RHS, Op == BO_Sub);
  unsigned Products = 0, Magnitudes = 0;
  // `-2 * mm(a, b.t())` written as a term with a negative factor.
  auto IsNegatedProduct = [&](const Expr *E) {
    std::optional<Arithmetic> A = asArithmetic(stripImplicit(E));
    if (!A || A->Op != BO_Mul)
      return false;
    std::optional<double> L = constantValue(A->LHS);
    std::optional<double> R = constantValue(A->RHS);
    return (L && *L < 0 && IsProductTerm(IsProductTerm, A->RHS)) ||
           (R && *R < 0 && IsProductTerm(IsProductTerm, A->LHS));
  };
  for (const auto &[Term, Negative] : Terms) {
    if (!Negative && IsNegatedProduct(Term)) {
      ++Products;
      continue;
    }
    if (Negative) {
      if (!IsProductTerm(IsProductTerm, Term))
        return false;
      ++Products;
      continue;
    }
    ReachResult R = zero(Term, Depth + 1);
    if (R.State != Reach::Reaches || !R.NonNegative)
      return false;
    ++Magnitudes;
  }
  return Products == 1 && Magnitudes >= 1;
}

ReachResult BoundaryAnalysis::zeroArithmetic(BinaryOperatorKind Op,
                                             const Expr *LHS, const Expr *RHS,
                                             unsigned Depth) {
  switch (Op) {
  case BO_Add:
    if (isPositiveMargin(LHS) || isPositiveMargin(RHS))
      return make(Reach::Guarded);
    if (expandedSquaredDistance(BO_Add, LHS, RHS, Depth))
      return make(Reach::Reaches);
    return ValueRange::add(zero(LHS, Depth + 1), zero(RHS, Depth + 1));
  case BO_Sub: {
    if (expandedSquaredDistance(BO_Sub, LHS, RHS, Depth))
      return make(Reach::Reaches);
    // 1 - p reaches 0 when p saturates at 1 (sigmoid, softmax, c * c of a
    // cosine).
    std::optional<double> Minuend = constantValue(LHS);
    if (!Minuend || *Minuend != 1.0)
      return make(Reach::Unknown);
    if (reachesOne(RHS, Depth + 1))
      return make(Reach::Reaches);
    return ValueRange::oneMinus(zero(RHS, Depth + 1));
  }
  case BO_Mul:
    if (sameVariable(LHS, RHS, Ctx))
      return magnitude(LHS, Depth + 1);
    return ValueRange::multiply(zero(LHS, Depth + 1), zero(RHS, Depth + 1));
  case BO_Div: {
    ReachResult L = zero(LHS, Depth + 1);
    if (L.State == Reach::Reaches) {
      L.Softmax = false;
      L.ReachesOne = false;
      return L;
    }
    if (L.State == Reach::Guarded) {
      std::optional<double> D = constantValue(RHS);
      // A positive value over a positive constant, a scalar (2 sigma^2) or
      // a guarded tensor.
      if ((D && *D > 0) || !isTensorTyped(stripImplicit(RHS)) ||
          zero(RHS, Depth + 1).State == Reach::Guarded)
        return make(Reach::Guarded);
    }
    return make(Reach::Unknown);
  }
  default:
    return make(Reach::Unknown);
  }
}

ReachResult BoundaryAnalysis::zeroOperation(const LibTorchCall &C,
                                            unsigned Depth) {
  StringRef Name = C.Name;
  const Expr *X = operandOf(C);
  if (C.is(op::Positive)) {
    ReachResult R = make(Reach::Guarded);
    R.Sigmoid = Name == "sigmoid" && !C.is(op::InPlace);
    return R;
  }
  if (C.is(op::ClampMax) ||
      (C.is(op::Clamp) && !lowerClampBound(C) && upperClampBound(C))) {
    const Expr *Max = upperClampBound(C);
    return Max ? zeroClampMax(X, Max, Depth) : make(Reach::Unknown);
  }
  if (isClamp(Name)) {
    const Expr *Min = argumentAfterOperand(C, 0);
    if (!Min || isEmptyOptional(Min))
      return make(Reach::Unknown);
    std::optional<double> V = constantValue(Min);
    if (V && *V == 0)
      return ValueRange::relu(zero(X, Depth + 1));
    if (V && *V < 0)
      return make(Reach::Reaches);
    return make(Reach::Guarded); // A positive or epsilon-like lower bound.
  }
  if (C.is(op::Max)) {
    const Expr *Other = argumentAfterOperand(C, 0);
    if (!Other || !isTensorTyped(stripImplicit(Other)))
      return make(Reach::Unknown); // A reduction, not an elementwise max.
    ReachResult L = zero(X, Depth + 1);
    ReachResult R = zero(Other, Depth + 1);
    if (L.State == Reach::Guarded || R.State == Reach::Guarded ||
        mentionsEpsilon(Other))
      return make(Reach::Guarded);
    if (L.State == Reach::Reaches && R.State == Reach::Reaches)
      return make(Reach::Reaches);
    return make(Reach::Unknown);
  }
  if (C.is(op::Relu))
    return ValueRange::relu(zero(X, Depth + 1));
  if (C.is(op::Magnitude))
    return magnitude(X, Depth + 1);
  if (C.is(op::Pow))
    return zeroPow(C, Depth);
  if (C.is(op::Sqrt))
    return ValueRange::root(zero(X, Depth + 1));
  if (C.is(op::Norm | op::DistanceLoss | op::Spread))
    return make(Reach::Reaches, /*NonNegative=*/true);
  if (C.is(op::SumLike))
    return ValueRange::reduce(zero(X, Depth + 1));
  if (C.is(op::Probability)) {
    ReachResult R = make(Reach::Reaches, /*NonNegative=*/true);
    R.Softmax = true;
    return R;
  }
  if (isDetach(Name)) {
    ReachResult R = zero(X, Depth + 1);
    R.Detached = true;
    return R;
  }
  if (C.is(op::MaskedFill)) {
    std::optional<double> Fill = constantValue(argumentAfterOperand(C, 1));
    ReachResult R = zero(X, Depth + 1);
    if (Fill && *Fill == 0) {
      R.State = Reach::Reaches;
      return R;
    }
    if (Fill && *Fill > 0 && R.State == Reach::Guarded)
      return R;
    return make(Reach::Unknown);
  }
  if (C.is(op::Product)) {
    const Expr *Other = argumentAfterOperand(C, 0);
    if (!Other)
      return make(Reach::Unknown);
    return ValueRange::product(zero(X, Depth + 1), zero(Other, Depth + 1));
  }
  // Exactly 0: a sum of non-negative terms seeded with it still reaches 0.
  if (Name == "zeros" || Name == "zeros_like")
    return make(Reach::Reaches, /*NonNegative=*/true);
  if (isValuePreserving(Name))
    return zero(X, Depth + 1);
  return make(Reach::Unknown);
}

ReachResult BoundaryAnalysis::zeroClampMax(const Expr *X, const Expr *Max,
                                           unsigned Depth) {
  // min(x, hi) with hi > 0 is as far from 0 as x is: `(d + eps).clamp_max(M)`
  // stays guarded, `d.clamp_max(M)` of a norm still reaches 0. It is no
  // longer a softmax or a sigmoid (their stable log forms do not apply), and
  // a bound below 1 keeps it from saturating at 1.
  std::optional<double> V = constantValue(Max);
  if (isPositiveMargin(Max)) {
    ReachResult R = zero(X, Depth + 1);
    R.Softmax = false;
    R.Sigmoid = false;
    if (!V || *V < 1)
      R.ReachesOne = false;
    return R;
  }
  if (V && *V == 0)
    return make(Reach::Reaches); // <= 0, and 0 wherever x >= 0.
  return make(Reach::Unknown);
}

ReachResult BoundaryAnalysis::zeroPow(const LibTorchCall &C, unsigned Depth) {
  const Expr *X = operandOf(C);
  std::optional<double> Base = constantValue(X);
  if (Base && *Base > 0)
    return make(Reach::Guarded); // 2^t
  std::optional<double> Exp = constantValue(argumentAfterOperand(C, 0));
  if (!Exp || *Exp < 0) {
    // |x|^p is still a magnitude.
    return make(Reach::Unknown, zero(X, Depth + 1).NonNegative);
  }
  if (*Exp == 0)
    return make(Reach::Guarded);
  bool Even = std::floor(*Exp) == *Exp && std::fmod(*Exp, 2.0) == 0;
  if (Even)
    return magnitude(X, Depth + 1);
  ReachResult R = zero(X, Depth + 1);
  if (std::floor(*Exp) != *Exp)
    return ValueRange::root(R);
  R.Softmax = false;
  R.ReachesOne = false;
  return R;
}

ReachResult BoundaryAnalysis::zeroVariable(const Expr *E, unsigned Depth) {
  const VarDecl *Through = nullptr;
  llvm::SmallVector<const Expr *, 2> Defs = followVariable(E, Through);
  if (Defs.empty())
    return make(Reach::Unknown);
  std::optional<ReachResult> R;
  for (const Expr *Def : Defs) {
    Visiting.insert(Def);
    ReachResult D = zero(Def, Depth + 1);
    Visiting.erase(Def);
    R = R ? combine(*R, D) : D;
  }
  ReachResult Result = *R;
  Result.Through = Through; // The outermost variable: the one the user sees.
  return Result;
}

ReachResult BoundaryAnalysis::magnitude(const Expr *X, unsigned Depth) {
  ReachResult Base = zero(X, Depth);
  if (Base.State == Reach::Guarded)
    return Base;
  bool Difference = false;
  const Expr *Written = stripImplicit(X);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Written))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (const Expr *Def = definitionAt(VD, Written))
        Written = stripImplicit(Def);
  if (std::optional<Arithmetic> A = asArithmetic(Written))
    Difference =
        A->Op == BO_Sub && !constantValue(A->LHS) && !constantValue(A->RHS);
  return ValueRange::magnitudeOf(Base, Difference, reachesUnit(X, Depth + 1));
}

bool BoundaryAnalysis::reachesOne(const Expr *E, unsigned Depth) {
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth || !takeStep())
    return false;
  if (std::optional<Arithmetic> A = asArithmetic(E))
    return A->Op == BO_Mul && sameVariable(A->LHS, A->RHS, Ctx) &&
           reachesUnit(A->LHS, Depth + 1);
  if (std::optional<LibTorchCall> C = asLibTorchCall(E)) {
    if (C->is(op::SaturatesAtOne))
      return true;
    if (isValuePreserving(C->Name) || isDetach(C->Name))
      return reachesOne(operandOf(*C), Depth + 1);
    // |c| and c^2 of a cosine reach 1 at parallel vectors.
    if (C->is(op::Magnitude))
      return reachesUnit(operandOf(*C), Depth + 1);
    if (C->is(op::Pow)) {
      std::optional<double> Exp = constantValue(argumentAfterOperand(*C, 0));
      return Exp && *Exp == 2 && reachesUnit(operandOf(*C), Depth + 1);
    }
    return false;
  }
  const VarDecl *Through = nullptr;
  llvm::SmallVector<const Expr *, 2> Defs = followVariable(E, Through);
  bool Result = !Defs.empty();
  for (const Expr *Def : Defs) {
    Visiting.insert(Def);
    Result = Result && reachesOne(Def, Depth + 1);
    Visiting.erase(Def);
  }
  return Result;
}

ReachResult BoundaryAnalysis::unit(const Expr *E, unsigned Depth) {
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth || !takeStep())
    return make(Reach::Unknown);
  if (std::optional<double> V = constantValue(E))
    return make(std::abs(*V) < 1 ? Reach::Guarded : Reach::Reaches);
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E))
    return combine(unit(CO->getTrueExpr(), Depth + 1),
                   unit(CO->getFalseExpr(), Depth + 1));

  if (std::optional<Arithmetic> A = asArithmetic(E)) {
    if (A->Op == BO_Mul) {
      // Shrinking by a factor below 1 ((1 - eps) * c) keeps it inside.
      for (const Expr *Side : {A->LHS, A->RHS}) {
        std::optional<double> V = constantValue(Side);
        if ((V && std::abs(*V) < 1 && *V != 0) ||
            (!isTensorTyped(stripImplicit(Side)) && mentionsEpsilon(Side)))
          return make(Reach::Guarded);
      }
      ReachResult L = unit(A->LHS, Depth + 1);
      ReachResult R = unit(A->RHS, Depth + 1);
      if (L.State == Reach::Reaches || R.State == Reach::Reaches)
        return L.State == Reach::Reaches ? L : R;
      return make(Reach::Unknown);
    }
    if (A->Op == BO_Div) {
      // Dividing by a norm normalises: a cosine-like value.
      if (!denom(A->RHS, Depth + 1).What.empty())
        return make(Reach::Reaches);
      // x / (|x| + eps)-style denominators still give values near -1 and 1.
      if (std::optional<Arithmetic> D = asArithmetic(A->RHS))
        if (D->Op == BO_Add && (!denom(D->LHS, Depth + 1).What.empty() ||
                                !denom(D->RHS, Depth + 1).What.empty()))
          return make(Reach::Reaches);
      return make(Reach::Unknown);
    }
    return make(Reach::Unknown);
  }

  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E))
    if (OC->getOperator() == OO_Subscript && OC->getNumArgs() == 2)
      return unit(OC->getArg(0), Depth + 1);

  if (std::optional<LibTorchCall> C = asLibTorchCall(E)) {
    StringRef Name = C->Name;
    const Expr *X = operandOf(*C);
    if (C->is(op::Clamp | op::ClampMin | op::ClampMax)) {
      std::optional<double> L, H;
      if (const Expr *Lo = lowerClampBound(*C))
        L = constantValue(Lo);
      if (const Expr *Hi = upperClampBound(*C))
        H = constantValue(Hi);
      // clamp(-1 + 1e-8, 1 - 1e-8) is clamp(-1, 1) in float32.
      if ((L && clampBoundReachesOne(*L)) || (H && clampBoundReachesOne(*H))) {
        ReachResult R = make(Reach::Reaches);
        R.FromClamp = true;
        return R;
      }
      // Each side is kept by a bound inside (-1, 1) or by what the operand
      // already is: `|c|.clamp_max(1 - eps)` is in [0, 1 - eps].
      bool Lower = false, Upper = false;
      unitSides(E, Depth, Lower, Upper);
      if (Lower && Upper)
        return make(Reach::Guarded);
      // One side open: a cosine bounded above still reaches -1.
      ReachResult R = unit(X, Depth + 1);
      if (R.State == Reach::Reaches)
        return R;
      return make(Reach::Unknown);
    }
    if (C->is(op::BoundedUnit))
      return make(Reach::Reaches);
    if (C->is(op::UnitSum)) {
      ReachResult R = unit(X, Depth + 1);
      if (R.State == Reach::Reaches)
        return R;
      for (const Expr *Arg : C->Args)
        if (Arg != X && isTensorTyped(stripImplicit(Arg))) {
          ReachResult Other = unit(Arg, Depth + 1);
          if (Other.State == Reach::Reaches)
            return Other;
        }
      return make(Reach::Unknown);
    }
    if (isDetach(Name)) {
      ReachResult R = unit(X, Depth + 1);
      R.Detached = true;
      return R;
    }
    if (isValuePreserving(Name))
      return unit(X, Depth + 1);
    return make(Reach::Unknown);
  }

  const VarDecl *Through = nullptr;
  llvm::SmallVector<const Expr *, 2> Defs = followVariable(E, Through);
  if (Defs.empty())
    return make(Reach::Unknown);
  std::optional<ReachResult> R;
  for (const Expr *Def : Defs) {
    Visiting.insert(Def);
    ReachResult D = unit(Def, Depth + 1);
    Visiting.erase(Def);
    R = R ? combine(*R, D) : D;
  }
  R->Through = Through; // The outermost variable: the one the user sees.
  return *R;
}

/// A product of two denominators that can be 0.
static DenominatorInfo productOf(const DenominatorInfo &L,
                                 const DenominatorInfo &R) {
  DenominatorInfo P;
  P.What = "a product of norms or reductions";
  P.Guarded = L.Guarded && R.Guarded;
  P.NonNegative = L.NonNegative && R.NonNegative;
  P.Through = L.Through ? L.Through : R.Through;
  P.OperandUnknown = L.OperandUnknown || R.OperandUnknown;
  return P;
}

DenominatorInfo BoundaryAnalysis::denom(const Expr *E, unsigned Depth) {
  E = stripImplicit(E);
  DenominatorInfo None;
  if (!E || Depth > MaxDepth || !takeStep())
    return None;

  if (std::optional<Arithmetic> A = asArithmetic(E)) {
    // A sum of two reductions (`p.sum(1) + t.sum(1)`, a Dice denominator):
    // 0 where both are, unless one is kept away from it (a positive
    // reduction plus a non-negative one).
    if (A->Op == BO_Add) {
      DenominatorInfo L = denom(A->LHS, Depth + 1);
      DenominatorInfo R = denom(A->RHS, Depth + 1);
      if (L.What.empty() || R.What.empty())
        return None;
      DenominatorInfo D;
      D.What = "a sum of reductions";
      D.Guarded = (L.Guarded && R.NonNegative) || (R.Guarded && L.NonNegative);
      D.NonNegative = L.NonNegative && R.NonNegative;
      D.OperandUnknown = L.OperandUnknown && R.OperandUnknown;
      D.Through = L.Through ? L.Through : R.Through;
      return D;
    }
    if (A->Op != BO_Mul)
      return None;
    DenominatorInfo L = denom(A->LHS, Depth + 1);
    DenominatorInfo R = denom(A->RHS, Depth + 1);
    auto IsScale = [&](const Expr *Side) {
      std::optional<double> V = constantValue(Side);
      return (V && *V > 0) || !isTensorTyped(stripImplicit(Side));
    };
    if (!L.What.empty() && !R.What.empty())
      return productOf(L, R);
    if (!L.What.empty() && IsScale(A->RHS))
      return L;
    if (!R.What.empty() && IsScale(A->LHS))
      return R;
    return None;
  }

  if (std::optional<LibTorchCall> C = asLibTorchCall(E)) {
    StringRef Name = C->Name;
    const Expr *X = operandOf(*C);
    DenominatorInfo D;
    if (C->is(op::Norm)) {
      D.What = "a norm";
      D.NonNegative = true;
      return D;
    }
    if (C->is(op::Spread)) {
      D.What = Name.starts_with("std") ? "a standard deviation" : "a variance";
      D.NonNegative = true;
      return D;
    }
    if (C->is(op::Sum)) {
      D.What = Name.ends_with("sum")      ? "a sum"
               : Name.starts_with("prod") ? "a product"
                                          : "a mean";
      // Terms not known to be strictly positive may cancel or all be 0
      // (an empty mask, a zero weight vector): only a sum of strictly
      // positive terms (exp, softplus, + eps, clamp_min(eps)) is not 0.
      ReachResult R = zero(X, Depth + 1);
      D.Guarded = R.State == Reach::Guarded;
      D.NonNegative = R.NonNegative;
      if (R.State == Reach::Unknown)
        D.SumTerms = X;
      return D;
    }
    bool IsSqrt = C->is(op::Sqrt) && !C->is(op::InPlace);
    if (C->is(op::Pow))
      if (std::optional<double> Exp =
              constantValue(argumentAfterOperand(*C, 0)))
        IsSqrt = *Exp == 0.5;
    if (IsSqrt) {
      // Only a square root of something that can reach 0 (a sum of squares,
      // a variance): sqrt(alpha) of a noise schedule is not a norm.
      ReachResult R = zero(X, Depth + 1);
      if (R.State == Reach::Guarded)
        return None;
      D.OperandUnknown = R.State != Reach::Reaches;
      D.What = "a square root";
      D.NonNegative = true;
      return D;
    }
    // mm(na, nb.t()), outer(na, nb): the products of norms of a pairwise
    // cosine matrix.
    if (C->is(op::Product))
      if (const Expr *Other = argumentAfterOperand(*C, 0)) {
        DenominatorInfo L = denom(X, Depth + 1);
        DenominatorInfo R = denom(Other, Depth + 1);
        if (!L.What.empty() && !R.What.empty())
          return productOf(L, R);
      }
    if (isValuePreserving(Name) || isDetach(Name))
      return denom(X, Depth + 1);
    return None;
  }

  const VarDecl *Through = nullptr;
  llvm::SmallVector<const Expr *, 2> Defs = followVariable(E, Through);
  if (Defs.empty())
    return None;
  // Every definition must be of such a form; the first one names it.
  Visiting.insert(Defs.front());
  DenominatorInfo D = denom(Defs.front(), Depth + 1);
  Visiting.erase(Defs.front());
  for (const Expr *Def : llvm::ArrayRef(Defs).drop_front()) {
    Visiting.insert(Def);
    DenominatorInfo Other = denom(Def, Depth + 1);
    Visiting.erase(Def);
    if (Other.What.empty())
      D.What = "";
    D.Guarded = D.Guarded && Other.Guarded;
    D.NonNegative = D.NonNegative && Other.NonNegative;
    D.OperandUnknown = D.OperandUnknown || Other.OperandUnknown;
    if (Other.SumTerms != D.SumTerms)
      D.SumTerms = nullptr;
  }
  if (D.What.empty())
    return None;
  D.Through = Through; // The outermost variable: the one the user sees.
  return D;
}

} // namespace clang::tidy::torch
