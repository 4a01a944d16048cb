//===--- ScoreOrigin.cpp - what kind of scores a tensor holds -------------===//
//
// See ScoreOrigin.h.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/ScoreOrigin.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/PathValues.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include <functional>

namespace clang::tidy::torch {

/// The definition of the forward a call of a user module runs
/// (`criterion(pred, label)` on a holder, `criterion->forward(...)`).
const FunctionDecl *userForwardOf(const CallExpr &Forward) {
  const CXXMethodDecl *Method = forwardMethodOf(Forward);
  const FunctionDecl *Def = nullptr;
  if (!Method || !Method->hasBody(Def) || !Def->getBody() ||
      isInLibTorchHeader(Def->getLocation(),
                         Def->getASTContext().getSourceManager()))
    return nullptr;
  return Def;
}


namespace {

constexpr unsigned MaxDepth = 8;

/// The return values of the forward a user module's forward call runs.
llvm::SmallVector<const Expr *, 2> forwardReturns(const CallExpr &Forward) {
  if (const FunctionDecl *Def = userForwardOf(Forward))
    return returnedValues(*Def);
  return {};
}

/// Every value a call returns agrees on what it is (Unknown when not).
ScoreOrigin agreedOrigin(llvm::ArrayRef<const Expr *> Values,
                    BoundaryAnalysis &Locals, unsigned Depth);

const CXXRecordDecl *implOf(QualType T) { return moduleImplOf(T); }


/// What LibTorch's layer \p Impl outputs: Softmax probabilities, LogSoftmax
/// log-probabilities, Linear raw scores.
Scores scoresOfLayer(const CXXRecordDecl *Impl) {
  const auto *NS =
      Impl ? dyn_cast<NamespaceDecl>(Impl->getDeclContext()) : nullptr;
  if (!Impl || !Impl->getIdentifier() || !NS ||
      NS->getQualifiedNameAsString() != "torch::nn")
    return Scores::Unknown;
  if (Impl->getName() == "SoftmaxImpl")
    return Scores::Probabilities;
  if (Impl->getName() == "LogSoftmaxImpl")
    return Scores::LogProbabilities;
  if (Impl->getName() == "SigmoidImpl")
    return Scores::UnitInterval;
  if (Impl->getName() == "TanhImpl" || Impl->getName() == "HardtanhImpl")
    return Scores::Signed;
  if (isScoreLayerClass(Impl))
    return Scores::Logits;
  return Scores::Unknown;
}

/// The layer the last `push_back` into \p Entity appends in \p Body, when
/// every `push_back` into it there runs unconditionally (not in a branch or a
/// loop): `net->push_back(torch::nn::Softmax(1));`. Null otherwise.
const Expr *lastAppendedLayer(const Stmt *Body, const ValueDecl *Entity) {
  const Expr *Last = nullptr;
  bool Conditional = false;
  std::function<void(const Stmt *, bool)> Walk = [&](const Stmt *S,
                                                     bool InBranch) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *M = Call->getMethodDecl();
      if (M && M->getIdentifier() && M->getName() == "push_back" &&
          Call->getNumArgs() >= 1 &&
          moduleObjectEntity(Call->getImplicitObjectArgument()) == Entity) {
        Conditional |= InBranch;
        Last = Call->getArg(Call->getNumArgs() - 1);
      }
    }
    const bool Branches =
        isa<IfStmt, ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, SwitchStmt,
            AbstractConditionalOperator>(S);
    for (const Stmt *Child : S->children())
      Walk(Child, InBranch || Branches);
  };
  Walk(Body, false);
  return Conditional ? nullptr : Last;
}

/// The last layer \p E, a Sequential's constructor argument, names.
const Expr *lastLayerOf(const Expr *E) {
  return sequentialLayerOf(E, /*Last=*/true);
}

/// For the forward of a torch::nn::Sequential declared with its layers
/// (`torch::nn::Sequential net(torch::nn::Linear(4, 3),
/// torch::nn::Softmax(1));`, a variable or a member initialised in place):
/// what its last layer outputs.
Scores scoresOfSequential(const CallExpr &Forward) {
  const CXXRecordDecl *Impl = forwardModuleClass(Forward);
  if (!Impl || !Impl->getIdentifier() || Impl->getName() != "SequentialImpl")
    return Scores::Unknown;
  const Expr *Object = nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Forward))
    Object = Op->getNumArgs() ? Op->getArg(0) : nullptr;
  else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Forward))
    Object = Member->getImplicitObjectArgument();
  const ValueDecl *Entity = moduleObjectEntity(Object);
  const Expr *Init = nullptr;
  if (const auto *Var = dyn_cast_or_null<VarDecl>(Entity))
    Init = Var->getInit();
  else if (const auto *Field = dyn_cast_or_null<FieldDecl>(Entity))
    Init = Field->getInClassInitializer();
  auto ConstructedLast = [&](const Expr *From) -> const Expr * {
    const CXXConstructExpr *Construct = nullptr;
    forEachStmt(From, [&](const Stmt &S) {
      if (const auto *C = dyn_cast<CXXConstructExpr>(&S);
          C && !Construct && C->getNumArgs() > 0 &&
          implOf(C->getType()) == Impl)
        Construct = C;
    });
    return Construct ? Construct->getArg(Construct->getNumArgs() - 1)
                     : nullptr;
  };
  // Built in place with its layers: a variable, a member's default
  // initialiser, or a member its class's constructors assign
  // (`net = register_module("net", torch::nn::Sequential(...))`).
  const CXXConstructExpr *InPlace = sequentialConstructionOf(Forward);
  const Expr *Last =
      InPlace ? InPlace->getArg(InPlace->getNumArgs() - 1) : nullptr;
  // Made by a factory of the user's code (`auto model = build_model(...)`):
  // what every return of it builds, in place or in a local it returns.
  if (const auto *Factory = dyn_cast_or_null<CallExpr>(stripImplicit(Init));
      !Last && Factory && Entity) {
    const FunctionDecl *Body =
        calledBody(*Factory, Entity->getASTContext());
    llvm::SmallVector<const Expr *, 2> Returns =
        Body ? returnedValues(*Body) : llvm::SmallVector<const Expr *, 2>();
    std::optional<Scores> Agreed;
    for (const Expr *Returned : Returns) {
      const Expr *R = stripImplicit(Returned);
      const Expr *L = ConstructedLast(R);
      if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(R))
        if (const auto *Local = dyn_cast<VarDecl>(Ref->getDecl());
            Local && Local->hasLocalStorage()) {
          L = ConstructedLast(Local->getInit());
          if (const Expr *Appended = lastAppendedLayer(Body->getBody(), Local))
            L = Appended;
        }
      L = lastLayerOf(L);
      const Scores Each = L ? scoresOfLayer(implOf(L->getType())) : Scores::Unknown;
      if (Each == Scores::Unknown || (Agreed && *Agreed != Each))
        return Scores::Unknown;
      Agreed = Each;
    }
    return Agreed ? *Agreed : Scores::Unknown;
  }
  // Built layer by layer (`net->push_back(...)`): in the function that
  // declares it, or in the constructors of the class that holds it.
  if (const auto *Var = dyn_cast_or_null<VarDecl>(Entity);
      Var && Var->hasLocalStorage())
    if (const auto *Fn = dyn_cast<FunctionDecl>(Var->getDeclContext()))
      if (const Expr *Appended = lastAppendedLayer(Fn->getBody(), Var))
        Last = Appended;
  if (const auto *Field = dyn_cast_or_null<FieldDecl>(Entity))
    if (const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent()))
      for (const CXXConstructorDecl *Ctor : Class->ctors())
        if (const Expr *Appended = lastAppendedLayer(Ctor->getBody(), Field))
          Last = Appended;
  Last = lastLayerOf(Last);
  if (!Last)
    return Scores::Unknown;
  return scoresOfLayer(implOf(Last->getType()));
}

/// The values element \p Index of \p Whole can hold (a struct's field in
/// declaration order, a tuple's element), when \p Whole is (a local defined
/// as) a call of the user's code, a module's forward included, whose every
/// return builds it in place: `return {logits, torch::softmax(logits, 1)};`,
/// `return std::make_tuple(logits, probs);`. Empty otherwise.
llvm::SmallVector<const Expr *, 2> elementValues(const Expr *Whole,
                                                 unsigned Index,
                                                 const ASTContext &Ctx,
                                                 BoundaryAnalysis &Locals) {
  Whole = stripImplicit(Whole);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Whole))
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl()))
      Whole = stripImplicit(Locals.definitionAt(VD, Ref));
  const auto *Call = dyn_cast_or_null<CallExpr>(Whole);
  if (!Call)
    return {};
  llvm::SmallVector<const Expr *, 2> Returns;
  if (isModuleForwardCall(*Call))
    Returns = forwardReturns(*Call);
  else if (const FunctionDecl *Body = calledBody(*Call, Ctx))
    Returns = returnedValues(*Body);
  llvm::SmallVector<const Expr *, 2> Values;
  for (const Expr *Returned : Returns) {
    Returned = stripImplicit(Returned);
    const Expr *Element = nullptr;
    if (const auto *Init = dyn_cast_or_null<InitListExpr>(Returned)) {
      if (Index < Init->getNumInits())
        Element = Init->getInit(Index);
    } else if (const auto *Construct =
                   dyn_cast_or_null<CXXConstructExpr>(Returned)) {
      if (Index < Construct->getNumArgs() && Construct->getNumArgs() > 1)
        Element = Construct->getArg(Index);
    } else if (const auto *Make = dyn_cast_or_null<CallExpr>(Returned);
               Make && (isStdCall(*Make, "make_tuple") ||
                        isStdCall(*Make, "make_pair")) &&
               Index < Make->getNumArgs()) {
      Element = Make->getArg(Index);
    }
    if (!Element)
      return {};
    Values.push_back(Element);
  }
  return Values;
}

/// What \p E is: softmax or log_softmax output, raw scores of a linear layer,
/// or unknown; through local variables with one definition, views, and the
/// return values of a user module's forward.
ScoreOrigin originOf(const Expr *E, BoundaryAnalysis &Locals, unsigned Depth) {
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth)
    return {};
  // A field or element of a local (`box.scores`, `outs[0]`): every value
  // stored there (PathValues.h).
  if (!isa<DeclRefExpr>(E))
    if (std::optional<PathValues> Stored = valuesOfPath(*E);
        Stored && !Stored->Values.empty()) {
      ScoreOrigin O = agreedOrigin(Stored->Values, Locals, Depth);
      O.Inline = false;
      return O;
    }
  // A field or element of a struct or tuple a function built and returned:
  // `out.probs`, `std::get<1>(out)`, `auto [logits, probs] = model(x);`.
  std::optional<TupleElement> Element = tupleElementOf(E);
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
        Field && !Field->getParent()->isUnion())
      Element = TupleElement{Member->getBase(), Field->getFieldIndex()};
  if (Element) {
    ScoreOrigin O = agreedOrigin(elementValues(Element->Tuple, Element->Index,
                                          Locals.context(), Locals),
                            Locals, Depth);
    O.Inline = false;
    return O;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    const Expr *Def = VD ? Locals.definitionAt(VD, Ref) : nullptr;
    ScoreOrigin O = Def ? originOf(Def, Locals, Depth + 1) : ScoreOrigin{};
    O.Inline = false;
    return O;
  }
  if (std::optional<LibTorchCall> C = asLibTorchCall(E)) {
    if (C->is(op::Softmax))
      return {Scores::Probabilities, E, true};
    if (C->is(op::LogSoftmax))
      return {Scores::LogProbabilities, E, true};
    if (C->is(op::Affine))
      return {Scores::Logits, E, true};
    // sigmoid (and the like): in [0, 1]; tanh, hardtanh: in [-1, 1]; a draw
    // from a normal distribution: any sign.
    if (C->is(op::SaturatesAtOne) && C->is(op::Positive))
      return {Scores::UnitInterval, E, true};
    if (C->is(op::BoundedUnit))
      return {Scores::Signed, E, true};
    if (C->Name == "randn" || C->Name == "randn_like" || C->Name == "normal")
      return {Scores::Signed, E, true};
    if (C->is(op::Sub) && !C->is(op::InPlace))
      return {Scores::Signed, E, true};
    if (C->is(op::ValuePreserving) && !C->is(op::Detach)) {
      ScoreOrigin O = originOf(operandOf(*C), Locals, Depth + 1);
      O.Inline = false;
      return O;
    }
    return {};
  }
  // A difference of tensors can be negative whatever its operands are.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Minus && Op->getNumArgs() == 2 &&
      isTensorType(Op->getType()))
    return {Scores::Signed, E, true};
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call || isLossCall(*Call))
    return {};
  if (!isModuleForwardCall(*Call)) {
    // A function, lambda or callable of the user's code: what it returns.
    const Decl *Callee = Call->getCalleeDecl();
    const FunctionDecl *Body =
        Callee ? calledBody(*Call, Callee->getASTContext()) : nullptr;
    return Body ? agreedOrigin(returnedValues(*Body), Locals, Depth)
                : ScoreOrigin{};
  }
  if (isScoreLayerClass(forwardModuleClass(*Call)))
    return {Scores::Logits, E, true};
  // torch::nn::Softmax / LogSoftmax as modules, and a Sequential whose last
  // layer is one of them.
  if (Scores Layer = scoresOfLayer(forwardModuleClass(*Call));
      Layer != Scores::Unknown)
    return {Layer, E, false};
  if (Scores Last = scoresOfSequential(*Call); Last != Scores::Unknown)
    return {Last, E, false};
  // A user module: what every return of its forward is.
  return agreedOrigin(forwardReturns(*Call), Locals, Depth);
}

ScoreOrigin agreedOrigin(llvm::ArrayRef<const Expr *> Values,
                    BoundaryAnalysis &Locals, unsigned Depth) {
  ScoreOrigin Result;
  bool First = true;
  for (const Expr *Value : Values) {
    ScoreOrigin O = originOf(Value, Locals, Depth + 1);
    if (First)
      Result = O;
    else if (O.Kind != Result.Kind)
      return {};
    First = false;
  }
  Result.Inline = false;
  return Result;
}


} // namespace

ScoreOrigin scoreOriginOf(const Expr *E, BoundaryAnalysis &Locals) {
  return originOf(E, Locals, 0);
}

} // namespace clang::tidy::torch
