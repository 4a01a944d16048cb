//===--- LayerWidth.cpp - how many classes, rows, indices a tensor has ----===//
//
// See LayerWidth.h.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/LayerWidth.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/PathValues.h"
#include "utils/analysis/ScoreOrigin.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxDepth = 8;

/// Every expression that constructs or assigns the module \p Entity: a
/// local's initialiser, a member's default initialiser, its constructors'
/// member initialisers and assignments in their bodies.
llvm::SmallVector<const Expr *, 2> constructionsOf(const ValueDecl *Entity) {
  llvm::SmallVector<const Expr *, 2> Out;
  if (const auto *Var = dyn_cast_or_null<VarDecl>(Entity)) {
    if (Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) &&
        !Var->getType()->isReferenceType() && Var->getInit())
      Out.push_back(Var->getInit());
    return Out;
  }
  const auto *Field = dyn_cast_or_null<FieldDecl>(Entity);
  if (!Field)
    return Out;
  if (const Expr *Init = Field->getInClassInitializer())
    Out.push_back(Init);
  const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!Class)
    return Out;
  for (const CXXConstructorDecl *Ctor : Class->ctors()) {
    const FunctionDecl *Def = nullptr;
    if (!Ctor->hasBody(Def))
      continue;
    const auto *CtorDef = cast<CXXConstructorDecl>(Def);
    for (const CXXCtorInitializer *I : CtorDef->inits())
      if (I->getMember() == Field && I->isWritten())
        Out.push_back(I->getInit());
    forEachStmt(CtorDef->getBody(), [&](const Stmt &S) {
      const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S);
      if (!Op || Op->getOperator() != OO_Equal || Op->getNumArgs() != 2)
        return;
      const auto *M = dyn_cast<MemberExpr>(stripImplicit(Op->getArg(0)));
      if (M && M->getMemberDecl() == Field)
        Out.push_back(Op->getArg(1));
    });
  }
  return Out;
}

/// \p Entity, or for a parameter bound at a call (IntegerValues::bind) the
/// module the caller passes.
const ValueDecl *boundEntity(const ValueDecl *Entity, IntegerValues &Ints) {
  if (const Expr *Arg = Entity ? Ints.boundArgument(Entity) : nullptr)
    return moduleObjectEntity(Arg);
  return Entity;
}

/// The arguments a layer of class \p Impl was built with, inside \p From:
/// the layer's own (`Linear(16, 10)`), or its options' (`Linear(
/// LinearOptions(16, 10).bias(false))`).
std::optional<llvm::SmallVector<const Expr *, 3>>
layerArguments(const Expr *From, const CXXRecordDecl *Impl) {
  const CXXConstructExpr *Layer = nullptr;
  forEachStmt(From, [&](const Stmt &S) {
    const auto *C = dyn_cast<CXXConstructExpr>(&S);
    // Built from its sizes or its options, not copied, moved or wrapped
    // from a layer built elsewhere (`Linear(shared_ptr<LinearImpl>)` around
    // `register_module("fc", Linear(16, 10))`).
    if (!Layer && C && C->getNumArgs() > 0 &&
        moduleImplOf(C->getType()) == Impl) {
      QualType A = C->getArg(0)->getType().getNonReferenceType();
      const CXXRecordDecl *RD = A->getAsCXXRecordDecl();
      if (C->getNumArgs() >= 2 || A->isIntegerType() ||
          (RD && RD->getIdentifier() && RD->getName().ends_with("Options")))
        Layer = C;
    }
  });
  if (!Layer)
    return std::nullopt;
  llvm::SmallVector<const Expr *, 3> Args(Layer->arguments());
  // One options argument: its construction's arguments.
  if (Args.size() == 1) {
    const CXXRecordDecl *RD =
        Args[0]->getType().getNonReferenceType()->getAsCXXRecordDecl();
    if (RD && RD->getIdentifier() && RD->getName().ends_with("Options")) {
      const CXXConstructExpr *Options = nullptr;
      forEachStmt(Args[0], [&](const Stmt &S) {
        const auto *C = dyn_cast<CXXConstructExpr>(&S);
        const CXXRecordDecl *CR = C ? C->getType()->getAsCXXRecordDecl() : nullptr;
        if (!Options && C && CR == RD && C->getNumArgs() > 1)
          Options = C;
      });
      if (!Options)
        return std::nullopt;
      Args.assign(Options->arg_begin(), Options->arg_end());
    }
  }
  // A holder's constructor forwards to the Impl's: unwrap a single
  // construction of the Impl itself.
  return Args;
}

/// The constant argument \p Index of every construction of the module a
/// forward call runs, when they agree.
std::optional<LayerWidth> constructedWidth(const CallExpr &Forward,
                                           const CXXRecordDecl *Impl,
                                           unsigned Index, IntegerValues &Ints,
                                           StringRef What) {
  const ValueDecl *Entity = boundEntity(
      moduleObjectEntity(callObject(Forward)), Ints);
  if (!Entity || !Impl)
    return std::nullopt;
  std::optional<LayerWidth> Agreed;
  for (const Expr *Construction : constructionsOf(Entity)) {
    auto Args = layerArguments(Construction, Impl);
    if (!Args || Index >= Args->size())
      return std::nullopt;
    std::optional<int64_t> N = Ints.constantOf((*Args)[Index]);
    if (!N || (Agreed && Agreed->Size != *N))
      return std::nullopt;
    Agreed = LayerWidth{*N, (*Args)[Index],
                        (What + " of '" + Entity->getName() + "'").str()};
  }
  return Agreed;
}

bool implNamed(const CXXRecordDecl *Impl, llvm::ArrayRef<StringRef> Names) {
  const auto *NS =
      Impl ? dyn_cast<NamespaceDecl>(Impl->getDeclContext()) : nullptr;
  return Impl && Impl->getIdentifier() && NS &&
         NS->getQualifiedNameAsString() == "torch::nn" &&
         llvm::is_contained(Names, Impl->getName());
}

std::optional<LayerWidth> classCount(const Expr *E, IntegerValues &Ints,
                                     BoundaryAnalysis &Locals, unsigned Depth);

std::optional<LayerWidth> agreed(llvm::ArrayRef<const Expr *> Values,
                                 IntegerValues &Ints, BoundaryAnalysis &Locals,
                                 unsigned Depth) {
  std::optional<LayerWidth> Result;
  for (const Expr *V : Values) {
    std::optional<LayerWidth> W = classCount(V, Ints, Locals, Depth + 1);
    if (!W || (Result && Result->Size != W->Size))
      return std::nullopt;
    if (!Result)
      Result = W;
  }
  return Result;
}

/// The constant sizes of a factory call's size list (`{N, 10}`).
std::optional<llvm::SmallVector<std::optional<int64_t>, 4>>
factorySizes(const CallExpr &Call, IntegerValues &Ints) {
  for (const Expr *Arg : Call.arguments()) {
    const InitListExpr *List = nullptr;
    forEachStmt(Arg, [&](const Stmt &S) {
      if (!List)
        List = dyn_cast<InitListExpr>(&S);
    });
    if (!List)
      continue;
    llvm::SmallVector<std::optional<int64_t>, 4> Sizes;
    for (const Expr *Init : List->inits())
      Sizes.push_back(Ints.constantOf(Init));
    return Sizes;
  }
  return std::nullopt;
}

std::optional<LayerWidth> classCount(const Expr *E, IntegerValues &Ints,
                                     BoundaryAnalysis &Locals, unsigned Depth) {
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth || E->isTypeDependent())
    return std::nullopt;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const Expr *Arg = Ints.boundArgument(Ref->getDecl()))
      return classCount(Arg, Ints, Locals, Depth + 1); // The caller's.
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    const Expr *Def = VD ? Locals.definitionAt(VD, Ref) : nullptr;
    return Def ? classCount(Def, Ints, Locals, Depth + 1) : std::nullopt;
  }
  // A field or element of a local: every value stored there agrees.
  if (!isa<CallExpr>(E) || isa<CXXOperatorCallExpr>(E))
    if (std::optional<PathValues> Stored = valuesOfPath(*E))
      return Stored->Values.empty()
                 ? std::nullopt
                 : agreed(Stored->Values, Ints, Locals, Depth);
  if (std::optional<LibTorchCall> C = asLibTorchCall(E)) {
    const StringRef Name = C->Name;
    static const StringRef KeepShape[] = {
        "softmax", "log_softmax", "relu", "leaky_relu", "gelu", "sigmoid",
        "tanh", "dropout", "contiguous", "clone", "detach", "to", "float",
        "double", "half"};
    if (llvm::is_contained(KeepShape, Name))
      return classCount(operandOf(*C), Ints, Locals, Depth + 1);
    if (Name == "view" || Name == "reshape") {
      const auto *Call = cast<CallExpr>(E);
      auto Sizes = factorySizes(*Call, Ints);
      if (Sizes && Sizes->size() >= 2 && Sizes->back() && *Sizes->back() > 0)
        return LayerWidth{*Sizes->back(), E, "the last size of the view"};
      return std::nullopt;
    }
    if (C->is(op::Fresh) && !C->Object) {
      auto Sizes = factorySizes(*cast<CallExpr>(E), Ints);
      if (!Sizes || Sizes->empty())
        return std::nullopt;
      const size_t Dim = Sizes->size() >= 2 ? 1 : 0;
      if (!(*Sizes)[Dim])
        return std::nullopt;
      return LayerWidth{*(*Sizes)[Dim], E,
                        Dim ? "dimension 1 of the scores' sizes"
                            : "the scores' size"};
    }
    return std::nullopt;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call || isLossCall(*Call))
    return std::nullopt;
  if (!isModuleForwardCall(*Call)) {
    const FunctionDecl *Body = calledBody(*Call, Ints.context());
    return Body && !Body->isDependentContext()
               ? agreed(returnedValues(*Body), Ints, Locals, Depth)
               : std::nullopt;
  }
  const CXXRecordDecl *Impl = forwardModuleClass(*Call);
  if (implNamed(Impl, {"LinearImpl"}))
    return constructedWidth(*Call, Impl, 1, Ints, "out_features");
  if (implNamed(Impl, {"Conv1dImpl", "Conv2dImpl", "Conv3dImpl"}))
    return constructedWidth(*Call, Impl, 1, Ints, "out_channels");
  if (const FunctionDecl *Forward = userForwardOf(*Call))
    return agreed(returnedValues(*Forward), Ints, Locals, Depth);
  return std::nullopt;
}

/// The constant argument of the `.ignore_index(v)` call inside \p E; -100
/// when there is none; nullopt when it is not a constant.
std::optional<int64_t> ignoreIndexIn(const Expr *E, IntegerValues &Ints) {
  const CXXMemberCallExpr *Set = nullptr;
  forEachStmt(E, [&](const Stmt &S) {
    const auto *M = dyn_cast<CXXMemberCallExpr>(&S);
    const CXXMethodDecl *MD = M ? M->getMethodDecl() : nullptr;
    if (!Set && MD && MD->getIdentifier() &&
        MD->getName() == "ignore_index" && M->getNumArgs() == 1)
      Set = M;
  });
  if (!Set)
    return -100;
  return Ints.constantOf(Set->getArg(0));
}

} // namespace

std::optional<LayerWidth> classCountOf(const Expr *Scores, IntegerValues &Ints,
                                       BoundaryAnalysis &Locals) {
  return classCount(Scores, Ints, Locals, 0);
}

std::optional<LayerWidth> embeddingRowsOf(const CallExpr &Forward,
                                          IntegerValues &Ints) {
  const CXXRecordDecl *Impl = forwardModuleClass(Forward);
  if (!implNamed(Impl, {"EmbeddingImpl"}))
    return std::nullopt;
  return constructedWidth(Forward, Impl, 0, Ints, "num_embeddings");
}

std::optional<int64_t> ignoreIndexOf(const CallExpr &Loss,
                                     IntegerValues &Ints) {
  if (isModuleForwardCall(Loss)) {
    const ValueDecl *Entity =
        boundEntity(moduleObjectEntity(callObject(Loss)), Ints);
    if (!Entity)
      return std::nullopt;
    llvm::SmallVector<const Expr *, 2> Constructions = constructionsOf(Entity);
    // A loss module without a visible construction: a default-constructed
    // local or member has the default; a parameter is unknown.
    if (Constructions.empty()) {
      const auto *Var = dyn_cast<VarDecl>(Entity);
      if (Var && (isa<ParmVarDecl>(Var) || Var->getType()->isReferenceType()))
        return std::nullopt;
      return -100;
    }
    std::optional<int64_t> Agreed;
    for (const Expr *C : Constructions) {
      std::optional<int64_t> V = ignoreIndexIn(C, Ints);
      if (!V || (Agreed && *Agreed != *V))
        return std::nullopt;
      Agreed = V;
    }
    return Agreed;
  }
  std::optional<LibTorchCall> C = asLibTorchCall(&Loss);
  if (!C)
    return std::nullopt;
  if (C->Functional) {
    for (unsigned I = 2; I < Loss.getNumArgs(); ++I)
      if (std::optional<int64_t> V = ignoreIndexIn(Loss.getArg(I), Ints);
          !V || *V != -100)
        return V;
    return -100;
  }
  // at::nll_loss(self, target, weight, reduction, ignore_index),
  // at::cross_entropy_loss(self, target, weight, reduction, ignore_index,
  // label_smoothing).
  if (Loss.getNumArgs() > 4)
    return Ints.constantOf(Loss.getArg(4));
  return -100;
}

} // namespace clang::tidy::torch
