//===--- BatchShape.cpp - a tensor's batch dimension and rank -------------===//
//
// See BatchShape.h.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/BatchShape.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/PathValues.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSet.h"

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxDepth = 16;

/// The spellings of BatchLayout.def's operations.
bool keepsBatchLayout(StringRef Name) {
  static const llvm::StringSet<> Ops = {
#define BATCH_LAYOUT_OP(Name) #Name,
#include "utils/libtorch/BatchLayout.def"
#undef BATCH_LAYOUT_OP
  };
  return Ops.contains(Name) ||
         (Name.ends_with("_") && Ops.contains(Name.drop_back()));
}

/// A layer of BatchLayout.def: LibTorch's torch::nn::<Impl>.
bool isBatchLayoutLayer(const CXXRecordDecl *Impl) {
  static const llvm::StringSet<> Layers = {
#define BATCH_LAYOUT_LAYER(Name) #Name,
#include "utils/libtorch/BatchLayout.def"
#undef BATCH_LAYOUT_LAYER
  };
  if (!Impl || !Impl->getIdentifier())
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(Impl->getDeclContext());
  return NS && NS->getQualifiedNameAsString() == "torch::nn" &&
         Layers.contains(Impl->getName());
}

bool isQualified(const CXXRecordDecl *RD, StringRef Name) {
  return RD && RD->getQualifiedNameAsString() == Name;
}

/// The value of the integer constant \p E, when it is one.
std::optional<int64_t> intConstant(const Expr *E, const ASTContext &Ctx) {
  E = E ? stripImplicit(E) : nullptr;
  if (!E || isa<CXXDefaultArgExpr>(E) || E->isTypeDependent() ||
      E->isValueDependent() || !E->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx) || R.Val.getInt().getSignificantBits() > 63)
    return std::nullopt;
  return R.Val.getInt().getSExtValue();
}

/// The braced list of sizes a view or reshape takes (`{n, -1}`), through the
/// IntArrayRef, std::vector or initializer_list made from it.
const InitListExpr *sizeList(const Expr *E) {
  for (int Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Init = dyn_cast<InitListExpr>(E))
      return Init->isSemanticForm() && Init->getSyntacticForm()
                 ? Init->getSyntacticForm()
                 : Init;
    if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
      E = List->getSubExpr();
    else if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temp->getSubExpr();
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      E = Bind->getSubExpr();
    else if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
      E = Cast->getSubExpr();
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
             Construct && Construct->getNumArgs() >= 1)
      E = Construct->getArg(0);
    else
      return nullptr;
  }
  return nullptr;
}

/// `t.size(0)` on a tensor: the object t; null otherwise.
const Expr *sizeZeroOf(const Expr *E, const ASTContext &Ctx) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(
      E ? stripImplicit(E) : nullptr);
  const CXXMethodDecl *M = Call ? Call->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || M->getName() != "size" ||
      Call->getNumArgs() != 1)
    return nullptr;
  const Expr *Object = Call->getImplicitObjectArgument();
  if (!Object || !isTensorType(Object->getType()))
    return nullptr;
  std::optional<int64_t> Dim = intConstant(Call->getArg(0), Ctx);
  return Dim && *Dim == 0 ? Object : nullptr;
}

/// The layers a Sequential's construction names, in order; empty when one is
/// not a layer expression.
llvm::SmallVector<const Expr *, 4>
sequentialLayers(const CXXConstructExpr &Construct) {
  llvm::SmallVector<const Expr *, 4> Layers;
  for (const Expr *Arg : Construct.arguments()) {
    const InitListExpr *Named = nullptr;
    const Expr *E = stripImplicit(Arg);
    if (const auto *List = dyn_cast_or_null<CXXStdInitializerListExpr>(E)) {
      const Expr *Sub = List->getSubExpr()->IgnoreImplicit();
      if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(Sub))
        Sub = Temp->getSubExpr()->IgnoreImplicit();
      Named = dyn_cast<InitListExpr>(Sub);
    }
    if (Named) {
      for (const Expr *Init : Named->inits())
        if (const Expr *Layer = sequentialLayerOf(Init, /*Last=*/false))
          Layers.push_back(Layer);
        else
          return {};
      continue;
    }
    const Expr *Layer = sequentialLayerOf(Arg, /*Last=*/false);
    if (!Layer)
      return {};
    Layers.push_back(Layer);
  }
  return Layers;
}

} // namespace

BatchShapeAnalysis::Shape BatchShapeAnalysis::join(const Shape &A,
                                                   const Shape &B) {
  if (A.K == Shape::Unknown || B.K == Shape::Unknown)
    return {};
  if (A.K == Shape::Pending)
    return B;
  if (B.K == Shape::Pending)
    return A;
  Shape R = A;
  R.S.MinRank = std::min(A.S.MinRank, B.S.MinRank);
  if (A.S.Rank != B.S.Rank)
    R.S.Rank.reset();
  return R;
}

BatchShapeAnalysis::Shape
BatchShapeAnalysis::withRank(const Shape &In, unsigned MinRank,
                             std::optional<unsigned> Rank) {
  Shape R = In;
  R.K = Shape::Batched;
  R.S.MinRank = Rank ? *Rank : MinRank;
  R.S.Rank = Rank;
  return R;
}

std::optional<BatchShape> BatchShapeAnalysis::batchShapeOf(const Expr *E) {
  Visiting.clear();
  Shape S = shape(E, 0);
  if (S.K != Shape::Batched)
    return std::nullopt;
  return S.S;
}

BatchShapeAnalysis::Shape BatchShapeAnalysis::shape(const Expr *E,
                                                    unsigned Depth) {
  E = E ? stripImplicit(E) : nullptr;
  if (!E || Depth > MaxDepth || E->isTypeDependent() ||
      E->isValueDependent() || !isTensorType(E->getType()))
    return {};
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD =
        dyn_cast_or_null<VarDecl>(DevicePlacement::aliasTarget(Ref->getDecl()));
    return VD ? variableShape(*VD, Depth + 1) : Shape{};
  }
  if (Places.isLoaderBatchField(E)) {
    // Stacked examples: the data are at least vectors, the targets may be
    // scalar labels.
    const auto *Field = cast<MemberExpr>(E)->getMemberDecl();
    BatchShape S;
    S.MinRank = Field->getName() == "data" ? 2 : 1;
    S.Kind = BatchShape::Source::LoaderBatch;
    S.Evidence = E;
    return batched(S);
  }
  // A field or element of a local: every value stored there.
  if (std::optional<PathValues> Stored = valuesOfPath(*E)) {
    if (Stored->Values.empty())
      return {};
    Shape R{Shape::Pending, {}};
    for (const Expr *Value : Stored->Values)
      R = join(R, shape(Value, Depth + 1));
    return R.K == Shape::Pending ? Shape{} : R;
  }
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E))
    return join(shape(Cond->getTrueExpr(), Depth + 1),
                shape(Cond->getFalseExpr(), Depth + 1));
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    switch (Op->getOperator()) {
    case OO_Plus:
    case OO_Minus:
    case OO_Star:
    case OO_Slash:
      break;
    case OO_Call:
      return callShape(*Op, Depth);
    default:
      return {};
    }
    // Arithmetic: a batched operand, the others batched too or broadcast
    // onto it (a bias, a scale); scalars change nothing.
    Shape R{Shape::Pending, {}};
    bool AnyBatched = false, OnlyTensor = true;
    unsigned Tensors = 0;
    for (const Expr *Arg : Op->arguments()) {
      if (!isTensorType(Arg->getType()))
        continue;
      ++Tensors;
      Shape S = shape(Arg, Depth + 1);
      if (S.K == Shape::Batched) {
        if (AnyBatched && R.K == Shape::Batched) {
          R.S.MinRank = std::max(R.S.MinRank, S.S.MinRank);
          if (R.S.Rank != S.S.Rank)
            R.S.Rank.reset();
        } else {
          R = S;
        }
        AnyBatched = true;
      } else if (S.K == Shape::Unknown) {
        OnlyTensor = false;
      }
    }
    if (!AnyBatched)
      return R.K == Shape::Pending && OnlyTensor && Tensors ? R : Shape{};
    if (!OnlyTensor)
      R.S.Rank.reset();
    return R;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return callShape(*Call, Depth);
  return {};
}

BatchShapeAnalysis::Shape BatchShapeAnalysis::variableShape(const VarDecl &VD,
                                                            unsigned Depth) {
  if (Visiting.contains(&VD))
    return {Shape::Pending, {}};
  const DevicePlacement::Definitions &D = Places.definitionsOf(VD);
  if (!D.Known || !D.Loads.empty() || D.LoopRange || reshapedInPlace(VD))
    return {};
  Shape R{Shape::Pending, {}};
  if (D.Param) {
    const auto *Param = dyn_cast<ParmVarDecl>(&VD);
    auto It = Param ? Bound.find(Param) : Bound.end();
    if (It == Bound.end())
      return {};
    R = It->second;
  } else if (D.Values.empty()) {
    return {};
  }
  Visiting.insert(&VD);
  for (const Expr *Value : D.Values) {
    R = join(R, shape(Value, Depth + 1));
    if (R.K == Shape::Unknown)
      break;
  }
  Visiting.erase(&VD);
  return R;
}

BatchShapeAnalysis::Shape BatchShapeAnalysis::callShape(const CallExpr &Call,
                                                        unsigned Depth) {
  if (isModuleForwardCall(Call))
    return isLossCall(Call) ? Shape{} : forwardShape(Call, Depth);
  std::optional<LibTorchCall> C = asLibTorchCall(&Call);
  if (!C)
    return {};
  const Expr *Operand = operandOf(*C);
  if (!Operand)
    return {};
  if (C->Name == "flatten") {
    // Every dimension but the first: `[batch, features]`.
    std::optional<int64_t> Start =
        intConstant(argumentAfterOperand(*C, 0), Ctx);
    const Expr *EndArg = argumentAfterOperand(*C, 1);
    std::optional<int64_t> End = intConstant(EndArg, Ctx);
    const bool ToLast = !EndArg || isa<CXXDefaultArgExpr>(EndArg) ||
                        (End && *End == -1);
    if (!Start || *Start != 1 || !ToLast)
      return {};
    Shape In = shape(Operand, Depth + 1);
    if (In.K != Shape::Batched) {
      In.S = BatchShape{};
      In.S.Kind = BatchShape::Source::Flatten;
      In.S.Evidence = &Call;
    }
    return withRank(In, 2, 2);
  }
  if (C->Name == "view" || C->Name == "reshape")
    return viewShape(Call, Operand, argumentAfterOperand(*C, 0), Depth);
  if (!keepsBatchLayout(C->Name))
    return {};
  // Arithmetic in function or method spelling broadcasts its tensor
  // operands as the operators do; everything else keeps its operand's
  // layout.
  if (C->is(op::Add | op::Sub | op::Mul | op::Div)) {
    Shape R = shape(Operand, Depth + 1);
    for (const Expr *Arg : C->Args) {
      if (Arg == Operand || !isTensorType(Arg->getType()))
        continue;
      Shape Other = shape(Arg, Depth + 1);
      if (R.K != Shape::Batched && Other.K == Shape::Batched)
        R = Other;
      if (Other.K != Shape::Batched || Other.S.Rank != R.S.Rank)
        R.S.Rank.reset();
    }
    return R;
  }
  return shape(Operand, Depth + 1);
}

BatchShapeAnalysis::Shape
BatchShapeAnalysis::viewShape(const Expr &View, const Expr *Operand,
                              const Expr *Sizes, unsigned Depth) {
  const InitListExpr *List = sizeList(Sizes);
  if (!List || List->getNumInits() < 2)
    return {};
  const unsigned Rank = List->getNumInits();
  const Expr *Lead = List->getInit(0);
  Shape In = shape(Operand, Depth + 1);
  bool KeepsBatch = false;
  // `x.view({x.size(0), -1})`: dimension 0 kept as it is, on any operand.
  if (const Expr *Of = sizeZeroOf(Lead, Ctx);
      Of && sameExpression(Of, Operand, Ctx))
    KeepsBatch = true;
  // The batch size of a batched tensor.
  else if (isBatchSize(Lead, Depth + 1))
    KeepsBatch = true;
  // `-1` on a batch: the other sizes are one sample's.
  else if (std::optional<int64_t> V = intConstant(Lead, Ctx);
           V && *V == -1 && In.K != Shape::Unknown)
    KeepsBatch = true;
  if (!KeepsBatch)
    return {};
  if (In.K != Shape::Batched) {
    In.S = BatchShape{};
    In.S.Kind = BatchShape::Source::View;
    In.S.Evidence = &View;
  }
  return withRank(In, Rank, Rank);
}

bool BatchShapeAnalysis::isBatchSize(const Expr *E, unsigned Depth) {
  E = E ? stripImplicit(E) : nullptr;
  if (!E || Depth > MaxDepth)
    return false;
  if (const Expr *Of = sizeZeroOf(E, Ctx))
    return shape(Of, Depth + 1).K != Shape::Unknown;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || !VD->getType()->isIntegerType() || Visiting.contains(VD))
    return false;
  const DevicePlacement::Definitions &D = Places.definitionsOf(*VD);
  if (!D.Known || D.Param || D.Values.empty())
    return false;
  Visiting.insert(VD);
  const bool All = llvm::all_of(
      D.Values, [&](const Expr *V) { return isBatchSize(V, Depth + 1); });
  Visiting.erase(VD);
  return All;
}

BatchShapeAnalysis::Shape
BatchShapeAnalysis::forwardShape(const CallExpr &Forward, unsigned Depth) {
  if (!isTensorType(Forward.getType()))
    return {};
  const unsigned First = isa<CXXOperatorCallExpr>(Forward) ? 1 : 0;
  if (Forward.getNumArgs() <= First)
    return {};
  Shape In = shape(Forward.getArg(First), Depth + 1);
  if (In.K != Shape::Batched)
    return In.K == Shape::Pending ? In : Shape{};
  const CXXRecordDecl *Impl = forwardModuleClass(Forward);
  if (!Impl)
    return {};
  if (isBatchLayoutLayer(Impl))
    return In;
  // The rule for modules: the batch stays in the first position; the rank
  // is what the layers or the forward's returns say, else unknown.
  const Shape Kept = withRank(In, 1, std::nullopt);
  if (isQualified(Impl, "torch::nn::SequentialImpl")) {
    const CXXConstructExpr *Construct = sequentialConstructionOf(Forward);
    llvm::SmallVector<const Expr *, 4> Layers =
        Construct ? sequentialLayers(*Construct)
                  : llvm::SmallVector<const Expr *, 4>();
    if (Layers.empty())
      return Kept;
    for (const Expr *Layer : Layers)
      if (!isBatchLayoutLayer(moduleImplOf(Layer->getType())))
        return Kept;
    return In;
  }
  const CXXMethodDecl *Method = forwardMethodOf(Forward);
  const FunctionDecl *Def = nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Method || !Method->hasBody(Def) || !Def || !Def->getBody() ||
      isInLibTorchHeader(Def->getLocation(), SM))
    return {}; // LibTorch's other modules (Embedding, Flatten, LSTM, ...).
  if (Def->getNumParams() < 1 || Evaluating.contains(Def))
    return Kept;
  // A module of the user's: its returns, with its input bound.
  const ParmVarDecl *Param = Def->getParamDecl(0);
  std::optional<Shape> Saved;
  if (auto It = Bound.find(Param); It != Bound.end())
    Saved = It->second;
  Bound[Param] = In;
  Evaluating.insert(Def);
  llvm::SmallPtrSet<const VarDecl *, 4> OuterVisiting = Visiting;
  Visiting.clear();
  Shape R{Shape::Pending, {}};
  for (const Expr *Returned : returnedValues(*Def))
    R = join(R, Returned ? shape(Returned, Depth + 1) : Shape{});
  Visiting = std::move(OuterVisiting);
  Evaluating.erase(Def);
  if (Saved)
    Bound[Param] = *Saved;
  else
    Bound.erase(Param);
  return R.K == Shape::Batched ? R : Kept;
}

void BatchShapeAnalysis::bindArgument(const ParmVarDecl *P, const Expr *Arg) {
  if (!P || !Arg || !isTensorType(P->getType().getNonReferenceType()))
    return;
  // Bound only when the helper leaves the parameter as it came in.
  Bound[P] = shape(Arg, 0);
}

bool BatchShapeAnalysis::reshapedInPlace(const VarDecl &VD) {
  if (auto It = InPlaceReshapes.find(&VD); It != InPlaceReshapes.end())
    return It->second;
  bool Reshaped = false;
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD.getParentFunctionOrMethod());
  auto Names = [&](const Expr *E) {
    const auto *Ref =
        dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
    return Ref && DevicePlacement::aliasTarget(Ref->getDecl()) == &VD;
  };
  if (Fn && Fn->getBody())
    forEachStmt(Fn->getBody(), [&](const Stmt &S) {
      const auto *Call = dyn_cast<CallExpr>(&S);
      std::optional<LibTorchCall> C =
          Call ? asLibTorchCall(Call) : std::nullopt;
      if (!C || !C->Name.ends_with("_") || keepsBatchLayout(C->Name))
        return;
      const Expr *Object = operandOf(*C);
      if (Names(Object))
        Reshaped = true;
    });
  return InPlaceReshapes[&VD] = Reshaped;
}

} // namespace clang::tidy::torch
