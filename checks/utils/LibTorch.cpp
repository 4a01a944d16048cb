//===--- LibTorch.cpp - what torch-tidy knows about LibTorch --------------===//

#include "utils/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include <optional>

namespace clang::tidy::torch {

namespace {

/// An include root holds LibTorch if it has one of LibTorch's umbrella headers.
bool holdsLibTorch(StringRef Root, llvm::vfs::FileSystem &FS) {
  static const char *const Markers[] = {"torch/torch.h", "torch/script.h",
                                        "ATen/ATen.h"};
  for (const char *Marker : Markers) {
    llvm::SmallString<256> Path(Root);
    llvm::sys::path::append(Path, Marker);
    if (FS.exists(Path))
      return true;
  }
  return false;
}

bool isLibTorchPath(StringRef File, llvm::vfs::FileSystem &FS) {
  // Memoised per directory: a translation unit sees a few hundred directories.
  static thread_local llvm::StringMap<bool> Cache;
  StringRef Dir = llvm::sys::path::parent_path(File);
  auto [It, Inserted] = Cache.try_emplace(Dir, false);
  if (!Inserted)
    return It->second;
  bool Result = false;
  for (StringRef D = Dir; !D.empty(); D = llvm::sys::path::parent_path(D)) {
    StringRef Name = llvm::sys::path::filename(D);
    if ((Name == "torch" || Name == "ATen" || Name == "c10" ||
         Name == "caffe2") &&
        holdsLibTorch(llvm::sys::path::parent_path(D), FS)) {
      Result = true;
      break;
    }
    if (D == llvm::sys::path::parent_path(D))
      break;
  }
  It->second = Result;
  return Result;
}

/// Strips references, cv-qualifiers and sugar, and returns the record or enum
/// declaration behind \p T, if any.
const NamedDecl *namedTypeDecl(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (const auto *TT = T->getAs<TagType>())
    return TT->getDecl();
  return nullptr;
}

bool hasQualifiedName(const NamedDecl *D,
                      std::initializer_list<StringRef> Names) {
  if (!D)
    return false;
  std::string Qualified = D->getQualifiedNameAsString();
  for (StringRef N : Names)
    if (Qualified == N)
      return true;
  return false;
}

/// c10::optional is its own class in LibTorch 1.x and an alias of std::optional
/// in 2.x; libstdc++ keeps std::optional's declaration in std (not std::__1).
bool isOptionalOf(QualType T, llvm::function_ref<bool(QualType)> Inner) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      namedTypeDecl(T));
  if (!Spec || !hasQualifiedName(Spec, {"c10::optional", "std::optional",
                                        "std::__1::optional"}))
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  return Args.size() == 1 && Args[0].getKind() == TemplateArgument::Type &&
         Inner(Args[0].getAsType());
}

} // namespace

bool isInLibTorchHeader(SourceLocation Loc, const SourceManager &SM) {
  if (Loc.isInvalid())
    return false;
  SourceLocation Expansion = SM.getExpansionLoc(Loc);
  FileID FID = SM.getFileID(Expansion);
  if (FID == SM.getMainFileID())
    return false;
  OptionalFileEntryRef Entry = SM.getFileEntryRefForID(FID);
  if (!Entry)
    return false;
  return isLibTorchPath(Entry->getName(),
                        SM.getFileManager().getVirtualFileSystem());
}

bool isInUserCode(SourceLocation Loc, const SourceManager &SM) {
  if (Loc.isInvalid())
    return false;
  return !SM.isInSystemHeader(SM.getExpansionLoc(Loc)) &&
         !isInLibTorchHeader(Loc, SM);
}

bool isTensorType(QualType T) {
  return hasQualifiedName(namedTypeDecl(T), {"at::Tensor", "at::TensorBase"});
}

bool isDeviceType(QualType T) {
  auto IsDeviceOrType = [](QualType Q) {
    return hasQualifiedName(namedTypeDecl(Q), {"c10::Device", "c10::DeviceType"});
  };
  return IsDeviceOrType(T) || isOptionalOf(T, IsDeviceOrType);
}

bool isDeviceClassType(QualType T) {
  return hasQualifiedName(namedTypeDecl(T), {"c10::Device"});
}

bool isNullOptType(QualType T) {
  return hasQualifiedName(namedTypeDecl(T), {"c10::nullopt_t", "std::nullopt_t",
                                             "std::__1::nullopt_t"});
}

bool isEmptyOptional(const Expr *E) {
  if (!E)
    return false;
  E = E->IgnoreUnlessSpelledInSource();
  if (isNullOptType(E->getType()))
    return true;
  if (const auto *Init = dyn_cast<InitListExpr>(E))
    return Init->getNumInits() == 0;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 0 &&
           isOptionalOf(Construct->getType(), [](QualType) { return true; });
  return false;
}

namespace {

/// Calls \p Consider on the declarations that a statement \p Child sees from
/// its parent statement \p Parent: those of the block before it, a for-init,
/// a range-for variable, an if-init or condition variable, a while condition
/// variable.
void considerScopeLevel(const Stmt &Parent, const Stmt *Child,
                        llvm::function_ref<void(const Decl *)> Consider) {
  auto ConsiderStmt = [&](const Stmt *St) {
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(St))
      for (const Decl *D : DS->decls())
        Consider(D);
  };
  if (const auto *Block = dyn_cast<CompoundStmt>(&Parent)) {
    for (const Stmt *St : Block->body()) {
      if (St == Child)
        break;
      ConsiderStmt(St);
    }
  } else if (const auto *For = dyn_cast<ForStmt>(&Parent)) {
    ConsiderStmt(For->getInit());
  } else if (const auto *RangeFor = dyn_cast<CXXForRangeStmt>(&Parent)) {
    ConsiderStmt(RangeFor->getLoopVarStmt());
  } else if (const auto *If = dyn_cast<IfStmt>(&Parent)) {
    ConsiderStmt(If->getInit());
    Consider(If->getConditionVariable());
  } else if (const auto *While = dyn_cast<WhileStmt>(&Parent)) {
    Consider(While->getConditionVariable());
  }
}

/// Collects the variables satisfying a predicate one scope level at a time,
/// innermost (and latest) first.
class ScopeCollector {
public:
  explicit ScopeCollector(llvm::function_ref<bool(const VarDecl &)> Pred)
      : Pred(Pred) {}
  void consider(const Decl *D) {
    if (const auto *VD = dyn_cast_or_null<VarDecl>(D))
      if (Pred(*VD))
        Level.push_back(VD);
  }
  void considerParameters(const FunctionDecl &Fn) {
    for (const ParmVarDecl *P : Fn.parameters())
      consider(P);
  }
  /// Ends one scope level: its declarations, in source order, are appended in
  /// reverse.
  void flushLevel() {
    Found.append(Level.rbegin(), Level.rend());
    Level.clear();
  }
  llvm::SmallVector<const VarDecl *, 4> take() {
    flushLevel();
    return std::move(Found);
  }

private:
  llvm::function_ref<bool(const VarDecl &)> Pred;
  llvm::SmallVector<const VarDecl *, 4> Found;
  llvm::SmallVector<const VarDecl *, 4> Level;
};

} // namespace

llvm::SmallVector<const VarDecl *, 4>
visibleLocalVariables(const Stmt &S, ASTContext &Ctx,
                      llvm::function_ref<bool(const VarDecl &)> Pred,
                      bool CrossLambdas) {
  ScopeCollector Scopes(Pred);
  auto Consider = [&](const Decl *D) { Scopes.consider(D); };
  DynTypedNode Child = DynTypedNode::create(S);
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(Child);
    if (Parents.empty())
      break;
    const DynTypedNode &Parent = Parents[0];
    if (const auto *Fn = Parent.get<FunctionDecl>()) {
      Scopes.considerParameters(*Fn);
      // A lambda's call operator: continue into the enclosing function only
      // when asked to.
      const auto *Method = dyn_cast<CXXMethodDecl>(Fn);
      if (!CrossLambdas || !Method || !Method->getParent()->isLambda())
        break;
    } else if (const auto *Lambda = Parent.get<LambdaExpr>()) {
      Scopes.considerParameters(*Lambda->getCallOperator());
      // The enclosing function's locals are usable only if captured.
      if (!CrossLambdas)
        break;
    } else if (const auto *ParentStmt = Parent.get<Stmt>()) {
      considerScopeLevel(*ParentStmt, Child.get<Stmt>(), Consider);
    }
    Scopes.flushLevel();
    Child = Parent;
  }
  return Scopes.take();
}

// --- Autograd -------------------------------------------------------------------

namespace {

/// Calls \p Pred on \p RD and every base class (with a definition); true if
/// any call returns true.
bool anyClassInHierarchy(const CXXRecordDecl *RD,
                         llvm::function_ref<bool(const CXXRecordDecl &)> Pred) {
  if (!RD)
    return false;
  if (Pred(*RD))
    return true;
  RD = RD->getDefinition();
  if (!RD)
    return false;
  for (const CXXBaseSpecifier &Base : RD->bases())
    if (anyClassInHierarchy(Base.getType()->getAsCXXRecordDecl(), Pred))
      return true;
  return false;
}

/// The template a class specialisation was instantiated from, or null.
const ClassTemplateDecl *templateOf(const CXXRecordDecl &RD) {
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(&RD))
    return Spec->getSpecializedTemplate();
  return nullptr;
}

bool isModuleHolder(const CXXRecordDecl &RD) {
  const ClassTemplateDecl *T = templateOf(RD);
  return T && T->getQualifiedNameAsString() == "torch::nn::ModuleHolder";
}

bool isLossImpl(const CXXRecordDecl &RD) {
  if (!RD.getIdentifier() || !RD.getName().ends_with("LossImpl"))
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(RD.getDeclContext());
  return NS && NS->getQualifiedNameAsString() == "torch::nn";
}

const CXXRecordDecl *recordOf(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (const auto *PT = T->getAs<PointerType>())
    T = PT->getPointeeType();
  return T->getAsCXXRecordDecl();
}

/// The method a call invokes on an object, and the object's class: member
/// calls (`a.f()`, `a->f()`) and overloaded operator() (`a(x)`).
std::pair<const CXXMethodDecl *, const CXXRecordDecl *>
methodAndClass(const CallExpr &Call) {
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const CXXMethodDecl *M = Member->getMethodDecl();
    return {M, M ? M->getParent() : nullptr};
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call))
    if (Op->getOperator() == OO_Call && Op->getNumArgs() > 0)
      return {dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee()),
              recordOf(Op->getArg(0)->getType())};
  return {nullptr, nullptr};
}

bool isTensorClass(const CXXRecordDecl *RD) {
  return RD && hasQualifiedName(RD, {"at::Tensor", "at::TensorBase"});
}

bool calleeIs(const CallExpr &Call, StringRef QualifiedName) {
  const FunctionDecl *F = Call.getDirectCallee();
  return F && F->getQualifiedNameAsString() == QualifiedName;
}

} // namespace

bool isModuleClass(const CXXRecordDecl *RD) {
  return anyClassInHierarchy(RD, [](const CXXRecordDecl &C) {
    return hasQualifiedName(&C, {"torch::nn::Module", "torch::jit::Module"}) ||
           isModuleHolder(C);
  });
}

bool isLossModuleClass(const CXXRecordDecl *RD) {
  return anyClassInHierarchy(RD, [](const CXXRecordDecl &C) {
    if (isLossImpl(C))
      return true;
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(&C);
    if (!Spec || !isModuleHolder(C) || Spec->getTemplateArgs().size() != 1 ||
        Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
      return false;
    const CXXRecordDecl *Impl =
        Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
    return Impl && isLossImpl(*Impl);
  });
}

bool isModuleForwardCall(const CallExpr &Call) {
  auto [Method, Class] = methodAndClass(Call);
  if (!Method || !Class)
    return false;
  if (isa<CXXOperatorCallExpr>(Call))
    return isModuleClass(Class);
  return Method->getIdentifier() && Method->getName() == "forward" &&
         isModuleClass(Class);
}

bool isLossCall(const CallExpr &Call) {
  if (isModuleForwardCall(Call)) {
    auto [Method, Class] = methodAndClass(Call);
    return isLossModuleClass(Class);
  }
  const FunctionDecl *F = Call.getDirectCallee();
  if (!F || !F->getIdentifier() || isa<CXXMethodDecl>(F))
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(F->getDeclContext());
  if (!NS)
    return false;
  std::string Namespace = NS->getQualifiedNameAsString();
  if (Namespace != "at" && Namespace != "torch" &&
      Namespace != "torch::nn::functional")
    return false;
  StringRef Name = F->getName();
  return Name.contains("loss") || Name.contains("entropy") || Name == "kl_div";
}

bool isBackwardCall(const CallExpr &Call) {
  auto [Method, Class] = methodAndClass(Call);
  if (Method && Method->getIdentifier() && Method->getName() == "backward" &&
      isTensorClass(Class))
    return true;
  return calleeIs(Call, "torch::autograd::backward");
}

bool isAutogradGradCall(const CallExpr &Call) {
  return calleeIs(Call, "torch::autograd::grad");
}

bool isOptimizerStepCall(const CallExpr &Call) {
  auto [Method, Class] = methodAndClass(Call);
  return Method && Method->getIdentifier() && Method->getName() == "step" &&
         anyClassInHierarchy(Class, [](const CXXRecordDecl &C) {
           return hasQualifiedName(&C, {"torch::optim::Optimizer"});
         });
}

bool isHistoryRemovingCall(const CallExpr &Call) {
  auto [Method, Class] = methodAndClass(Call);
  if (!Method || !Method->getIdentifier() || !isTensorClass(Class))
    return false;
  StringRef Name = Method->getName();
  return Name == "detach" || Name == "detach_" || Name == "item" ||
         Name == "data" || Name == "data_ptr";
}

GradModeEffect gradModeEffectOf(const VarDecl &VD) {
  const NamedDecl *Type = namedTypeDecl(VD.getType());
  const bool IsNoGrad = hasQualifiedName(Type, {"c10::NoGradGuard"});
  const bool IsInference = hasQualifiedName(Type, {"c10::InferenceMode"});
  const bool IsAutoGrad = hasQualifiedName(Type, {"c10::AutoGradMode"});
  if (!IsNoGrad && !IsInference && !IsAutoGrad)
    return GradModeEffect::None;
  if (IsNoGrad)
    return GradModeEffect::Disables;
  // The constructor's argument says which way the guard goes.
  const Expr *Arg = nullptr;
  if (const auto *Construct =
          dyn_cast_or_null<CXXConstructExpr>(VD.getInit() ? VD.getInit()->IgnoreImplicit() : nullptr))
    if (Construct->getNumArgs() > 0 &&
        !isa<CXXDefaultArgExpr>(Construct->getArg(0)))
      Arg = Construct->getArg(0);
  if (!Arg)
    return IsInference ? GradModeEffect::Disables : GradModeEffect::Unknown;
  bool Enabled = false;
  if (Arg->isValueDependent() ||
      !Arg->EvaluateAsBooleanCondition(Enabled, VD.getASTContext()))
    return GradModeEffect::Unknown;
  if (IsInference)
    return Enabled ? GradModeEffect::Disables : GradModeEffect::None;
  return Enabled ? GradModeEffect::Enables : GradModeEffect::Disables;
}

namespace {
bool declaresGradModeGuard(const FunctionDecl &Fn, BodyParents &Parents);
} // namespace

bool hasNoGradGuardInScope(const Stmt &S, const FunctionDecl &Fn,
                           BodyParents &Parents) {
  // Most training functions declare no guard at all: say so without scanning
  // every statement before \p S, once per query.
  const FunctionDecl *Outer = outermostFunction(S, Fn, Parents);
  if (Outer && !declaresGradModeGuard(*Outer, Parents))
    return false;
  const auto Guards = visibleLocalVariables(
      S, Fn, Parents,
      [](const VarDecl &VD) {
        return gradModeEffectOf(VD) != GradModeEffect::None;
      },
      /*CrossLambdas=*/true);
  if (Guards.empty())
    return false;
  return gradModeEffectOf(*Guards.front()) != GradModeEffect::Enables;
}

// --- Values read out of tensors, and tensors built from host values ------------

bool isTensorValueReadCall(const CallExpr &Call) {
  auto [Method, Class] = methodAndClass(Call);
  if (!Method || !Method->getIdentifier() || !isTensorClass(Class))
    return false;
  StringRef Name = Method->getName();
  return Name == "item" || Name == "data_ptr" || Name == "const_data_ptr" ||
         Name == "mutable_data_ptr" || Name == "accessor" ||
         Name == "packed_accessor32" || Name == "packed_accessor64" ||
         Name == "generic_packed_accessor";
}

bool isTensorFromValuesCall(const CallExpr &Call) {
  return calleeIs(Call, "torch::tensor") || calleeIs(Call, "at::tensor") ||
         calleeIs(Call, "torch::from_blob") || calleeIs(Call, "at::from_blob");
}

bool isTensorFactoryCall(const CallExpr &Call) {
  const FunctionDecl *F = Call.getDirectCallee();
  if (!F || !F->getIdentifier() || isa<CXXMethodDecl>(F))
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(F->getDeclContext());
  if (!NS || NS->getParent()->isNamespace() ||
      (NS->getName() != "at" && NS->getName() != "torch"))
    return false;
  const StringRef Name = F->getName();
  return Name.ends_with("_like") ||
         llvm::is_contained(
             std::initializer_list<StringRef>{
                 "zeros", "ones", "full", "empty", "empty_strided", "rand",
                 "randn", "randint", "randperm", "arange", "range", "linspace",
                 "logspace", "eye"},
             Name);
}

bool isTensorListType(QualType T) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(namedTypeDecl(T));
  if (!Spec || !hasQualifiedName(Spec, {"std::vector", "std::__1::vector",
                                        "c10::ArrayRef", "c10::List"}))
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  return Args.size() >= 1 && Args[0].getKind() == TemplateArgument::Type &&
         isTensorType(Args[0].getAsType());
}

// --- Training loops, evaluation mode and autograd history ----------------------

namespace {

/// Calls \p Fn on every statement under \p S (\p S included), lambda bodies
/// included.
void forEachStmt(const Stmt *S, llvm::function_ref<void(const Stmt &)> Fn) {
  if (!S)
    return;
  Fn(*S);
  for (const Stmt *Child : S->children())
    forEachStmt(Child, Fn);
}

/// The name a still-dependent callee will be looked up by, if any.
StringRef dependentCalleeName(const CallExpr &Call) {
  const Expr *Callee = Call.getCallee();
  if (!Callee)
    return {};
  Callee = Callee->IgnoreParenImpCasts();
  DeclarationName Name;
  if (const auto *M = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
    Name = M->getMember();
  else if (const auto *M = dyn_cast<UnresolvedMemberExpr>(Callee))
    Name = M->getMemberName();
  else if (const auto *L = dyn_cast<UnresolvedLookupExpr>(Callee))
    Name = L->getName();
  else if (const auto *D = dyn_cast<DependentScopeDeclRefExpr>(Callee))
    Name = D->getDeclName();
  if (const IdentifierInfo *II = Name.getAsIdentifierInfo())
    return II->getName();
  return {};
}

/// The object a member call is made on (`x` in `x.f()`, `x->f()`, `x(...)`),
/// through parentheses and implicit casts; null for other calls.
const Expr *callObject(const CallExpr &Call) {
  const Expr *Object = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
    Object = Member->getImplicitObjectArgument();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
           Op && Op->getOperator() == OO_Call && Op->getNumArgs() > 0)
    Object = Op->getArg(0);
  else if (const auto *Callee = Call.getCallee()) {
    Callee = Callee->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
      Object = M->isImplicitAccess() ? nullptr : M->getBase();
    else if (const auto *M = dyn_cast<UnresolvedMemberExpr>(Callee))
      Object = M->isImplicitAccess() ? nullptr : M->getBase();
  }
  return Object ? Object->IgnoreParenImpCasts() : nullptr;
}

bool isModuleModeCall(const CallExpr &Call, const ASTContext &Ctx,
                      bool WantEval) {
  auto [Method, Class] = methodAndClass(Call);
  if (!Method || !Method->getIdentifier() || !isModuleClass(Class))
    return false;
  StringRef Name = Method->getName();
  if (Name == "eval")
    return WantEval;
  if (Name != "train")
    return false;
  bool On = true;
  if (Call.getNumArgs() > 0 && !isa<CXXDefaultArgExpr>(Call.getArg(0))) {
    const Expr *Arg = Call.getArg(0);
    if (Arg->isValueDependent() || !Arg->EvaluateAsBooleanCondition(On, Ctx))
      return false; // train(flag): unknown either way.
  }
  return WantEval ? !On : On;
}

/// Strips what does not change which tensor an expression denotes: parens,
/// implicit casts, temporaries, copies and moves of a tensor.
const Expr *stripTensorCopies(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Next))
      Next = Cleanups->getSubExpr();
    if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = Temp->getSubExpr();
    if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = Bind->getSubExpr();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Next))
      Next = Cast->getSubExpr();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Next);
        Construct && Construct->getNumArgs() == 1 &&
        (Construct->getConstructor()->isCopyOrMoveConstructor() ||
         isTensorType(Construct->getArg(0)->getType())))
      Next = Construct->getArg(0);
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

/// Tensor operations that keep the autograd history of their operands.
bool isDifferentiableOpName(StringRef Name) {
  static const llvm::StringSet<> Names = {
      "sum",     "mean",        "add",        "sub",       "mul",
      "div",     "neg",         "abs",        "pow",       "sqrt",
      "exp",     "log",         "view",       "reshape",   "squeeze",
      "unsqueeze", "to",        "cpu",        "cuda",      "clone",
      "contiguous", "flatten",  "select",     "narrow",    "index",
      "index_select", "transpose", "t",       "permute",   "expand",
      "matmul",  "mm",          "bmm",        "norm",      "square",
      "relu",    "sigmoid",     "tanh",       "softmax",   "log_softmax",
      "stack",   "cat",         "squeeze_",   "unsqueeze_"};
  return Names.contains(Name);
}

bool isTensorLibraryFunction(const FunctionDecl &F) {
  const auto *NS = dyn_cast<NamespaceDecl>(F.getDeclContext());
  if (!NS)
    return false;
  std::string Namespace = NS->getQualifiedNameAsString();
  return Namespace == "at" || Namespace == "torch" ||
         Namespace == "torch::nn::functional";
}

/// A definition of a variable's value found in its function: what was stored
/// into it (initializer, `=`, `+=`, add_, push_back, ...).
struct Definitions {
  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<const Expr *, 2>> Values;
  /// Variables on which backward() is called.
  llvm::SmallPtrSet<const ValueDecl *, 4> Backpropagated;
  /// What the backward passes differentiate.
  llvm::SmallVector<const Expr *, 4> PassRoots;
};

Definitions collectDefinitions(const Stmt *Body) {
  Definitions Defs;
  forEachStmt(Body, [&](const Stmt &S) {
    if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit())
          Defs.Values[VD].push_back(VD->getInit());
      return;
    }
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (!Call)
      return;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      switch (Op->getOperator()) {
      case OO_Equal:
      case OO_PlusEqual:
      case OO_MinusEqual:
      case OO_StarEqual:
      case OO_SlashEqual:
        if (Op->getNumArgs() == 2)
          if (const ValueDecl *D = namedEntity(*Op->getArg(0)))
            Defs.Values[D].push_back(Op->getArg(1));
        return;
      default:
        break;
      }
    }
    const Expr *Object = callObject(*Call);
    const ValueDecl *ObjectEntity = Object ? namedEntity(*Object) : nullptr;
    if (isBackwardCall(*Call) || isAutogradGradCall(*Call) ||
        dependentCalleeName(*Call) == "backward") {
      if (isa<CXXMemberCallExpr>(Call) ||
          (Object && !isa<CXXOperatorCallExpr>(Call))) {
        if (Object)
          Defs.PassRoots.push_back(Object);
        if (ObjectEntity)
          Defs.Backpropagated.insert(ObjectEntity);
      } else {
        // torch::autograd::backward(tensors, ...) / grad(outputs, ...).
        if (Call->getNumArgs() > 0)
          Defs.PassRoots.push_back(Call->getArg(0));
      }
      return;
    }
    if (!ObjectEntity || isa<CXXOperatorCallExpr>(Call))
      return;
    const FunctionDecl *Callee = Call->getDirectCallee();
    StringRef Name = Callee && Callee->getIdentifier() ? Callee->getName()
                                                       : dependentCalleeName(*Call);
    if (Name == "add_" || Name == "sub_" || Name == "mul_" || Name == "div_" ||
        Name == "copy_" || Name == "push_back" || Name == "emplace_back")
      for (const Expr *Arg : Call->arguments())
        if (!isa<CXXDefaultArgExpr>(Arg))
          Defs.Values[ObjectEntity].push_back(Arg);
  });
  return Defs;
}

/// Calls \p Fn on every variable or field named in \p E, except inside
/// detach(), item() and data() (their values carry no history).
void forEachNamedEntity(const Expr *E,
                        llvm::function_ref<void(const ValueDecl &)> Fn) {
  if (!E)
    return;
  forEachStmt(E, [&](const Stmt &S) {
    // forEachStmt cannot prune; history-removing calls are rare enough that
    // a second walk is acceptable.
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S))
      Fn(*Ref->getDecl());
    else if (const auto *Member = dyn_cast<MemberExpr>(&S))
      Fn(*Member->getMemberDecl());
  });
}

bool containsHistoryRemovingCallOn(const Expr *E, const ValueDecl &D) {
  bool Found = false;
  forEachStmt(E, [&](const Stmt &S) {
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (Found || !Call || !isHistoryRemovingCall(*Call))
      return;
    if (const Expr *Object = callObject(*Call))
      if (namedEntity(*Object) == &D)
        Found = true;
  });
  return Found;
}

} // namespace

struct BodyParents::Facts {
  /// The body (with its lambdas) or a parameter declares a grad-mode guard.
  std::optional<bool> DeclaresGuard;
  std::optional<Definitions> Defs;
  /// The variables and fields that reach a backward pass (isBackpropagatedIn).
  std::optional<llvm::SmallPtrSet<const ValueDecl *, 16>> Backpropagated;
};

namespace {

/// True if \p Fn, a lambda in its body, or a declaration in its body is a
/// grad-mode guard (NoGradGuard, InferenceMode, AutoGradMode).
bool declaresGradModeGuard(const FunctionDecl &Fn, BodyParents &Parents) {
  BodyParents::Facts &F = Parents.factsOf(Fn);
  if (F.DeclaresGuard)
    return *F.DeclaresGuard;
  auto IsGuard = [](const VarDecl *VD) {
    return VD && gradModeEffectOf(*VD) != GradModeEffect::None;
  };
  bool Found = llvm::any_of(Fn.parameters(), IsGuard);
  if (!Found && Fn.getBody())
    forEachStmt(Fn.getBody(), [&](const Stmt &S) {
      if (Found)
        return;
      if (const auto *DS = dyn_cast<DeclStmt>(&S))
        Found = llvm::any_of(DS->decls(), [&](const Decl *D) {
          return IsGuard(dyn_cast<VarDecl>(D));
        });
      else if (const auto *Lambda = dyn_cast<LambdaExpr>(&S))
        Found = llvm::any_of(Lambda->getCallOperator()->parameters(), IsGuard);
    });
  F.DeclaresGuard = Found;
  return Found;
}

const Definitions &definitionsOf(const FunctionDecl &Fn, BodyParents &Parents) {
  BodyParents::Facts &F = Parents.factsOf(Fn);
  if (!F.Defs)
    F.Defs = collectDefinitions(Fn.getBody());
  return *F.Defs;
}

class HistoryEvidence {
public:
  explicit HistoryEvidence(BodyParents &Parents) : Parents(Parents) {}

  /// \p E is in the body of \p Fn.
  bool of(const Expr *E, const FunctionDecl &Fn, unsigned Depth = 0) {
    E = stripTensorCopies(E);
    if (!E || Depth > 16)
      return false;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
      return VD && VD->isLocalVarDeclOrParm() && ofVariable(*VD, Depth + 1);
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return false;
    if (isHistoryRemovingCall(*Call))
      return false;
    if (isModuleForwardCall(*Call) || isLossCall(*Call))
      return !hasNoGradGuardInScope(*Call, Fn, Parents);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      switch (Op->getOperator()) {
      case OO_Plus:
      case OO_Minus:
      case OO_Star:
      case OO_Slash:
      case OO_Subscript:
        if (!isTensorType(Op->getType()))
          return false;
        return llvm::any_of(Op->arguments(),
                            [&](const Expr *A) { return of(A, Fn, Depth + 1); });
      default:
        return false;
      }
    }
    auto [Method, Class] = methodAndClass(*Call);
    if (Method && Method->getIdentifier()) {
      // A TorchScript module's output: module.forward({x}).toTensor().
      if (Method->getName() == "toTensor" &&
          hasQualifiedName(Class, {"c10::IValue"}))
        return of(callObject(*Call), Fn, Depth + 1);
      if (isTensorClass(Class) && isTensorType(Call->getType()) &&
          isDifferentiableOpName(Method->getName()))
        return of(callObject(*Call), Fn, Depth + 1) ||
               llvm::any_of(Call->arguments(), [&](const Expr *A) {
                 return isTensorType(A->getType()) && of(A, Fn, Depth + 1);
               });
      return false;
    }
    const FunctionDecl *F = Call->getDirectCallee();
    if (F && F->getIdentifier() && isTensorLibraryFunction(*F) &&
        isDifferentiableOpName(F->getName()))
      return llvm::any_of(Call->arguments(),
                          [&](const Expr *A) { return of(A, Fn, Depth + 1); });
    return false;
  }

private:
  bool ofVariable(const VarDecl &VD, unsigned Depth) {
    auto [It, Inserted] = Known.try_emplace(&VD, false);
    if (!Inserted)
      return It->second; // Known, or being computed (a cycle: no evidence).
    const auto *Fn =
        dyn_cast_or_null<FunctionDecl>(VD.getParentFunctionOrMethod());
    if (!Fn || !Fn->getBody())
      return false;
    const Definitions &Defs = definitionsOf(*Fn, Parents);
    bool Result = Defs.Backpropagated.contains(&VD);
    if (!Result)
      if (auto ValuesIt = Defs.Values.find(&VD); ValuesIt != Defs.Values.end())
        for (const Expr *Value : ValuesIt->second)
          if (of(Value, *Fn, Depth)) {
            Result = true;
            break;
          }
    Known[&VD] = Result;
    return Result;
  }

  BodyParents &Parents;
  llvm::DenseMap<const VarDecl *, bool> Known;
};

} // namespace

bool isLoopStmt(const Stmt &S) {
  return isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S);
}

bool isTrainingCall(const CallExpr &Call) {
  if (isBackwardCall(Call) || isAutogradGradCall(Call) ||
      isOptimizerStepCall(Call))
    return true;
  StringRef Name = dependentCalleeName(Call);
  return Name == "backward" || Name == "grad" || Name == "step";
}

bool containsTrainingCall(const Stmt &S) {
  bool Found = false;
  forEachStmt(&S, [&](const Stmt &Child) {
    if (!Found)
      if (const auto *Call = dyn_cast<CallExpr>(&Child))
        Found = isTrainingCall(*Call);
  });
  return Found;
}

namespace {

/// True if \p Child is the part of \p Loop that runs on every iteration: the
/// body, the condition or the increment (not a for-init or a range-for's
/// range).
bool isRepeatedPartOf(const Stmt &Loop, const Stmt &Child) {
  const Stmt *C = &Child;
  if (const auto *For = dyn_cast<ForStmt>(&Loop))
    return C == For->getBody() || C == For->getCond() || C == For->getInc();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(&Loop))
    return C == Range->getBody();
  if (const auto *While = dyn_cast<WhileStmt>(&Loop))
    return C == While->getBody() || C == While->getCond() ||
           C == While->getConditionVariableDeclStmt();
  if (const auto *Do = dyn_cast<DoStmt>(&Loop))
    return C == Do->getBody() || C == Do->getCond();
  return false;
}

} // namespace

llvm::SmallVector<const Stmt *, 4> enclosingLoops(const Stmt &S,
                                                  const FunctionDecl &Fn,
                                                  BodyParents &Parents,
                                                  bool CrossLambdas) {
  llvm::SmallVector<const Stmt *, 4> Loops;
  Parents.walkUp(S, Fn, CrossLambdas, [&](const BodyParents::Step &Step) {
    if (Step.Parent && isLoopStmt(*Step.Parent) &&
        isRepeatedPartOf(*Step.Parent, *Step.Child))
      Loops.push_back(Step.Parent);
    return true;
  });
  return Loops;
}

const FunctionDecl *outermostFunction(const Stmt &S, const FunctionDecl &Fn,
                                      BodyParents &Parents) {
  return Parents.walkUp(S, Fn, /*CrossLambdas=*/true,
                        [](const BodyParents::Step &) { return true; });
}

bool isModuleEvalCall(const CallExpr &Call, const ASTContext &Ctx) {
  return isModuleModeCall(Call, Ctx, /*WantEval=*/true);
}

bool isModuleTrainCall(const CallExpr &Call, const ASTContext &Ctx) {
  return isModuleModeCall(Call, Ctx, /*WantEval=*/false);
}

bool isGradModeSetCall(const CallExpr &Call) {
  return calleeIs(Call, "c10::GradMode::set_enabled");
}

const ValueDecl *namedEntity(const Expr &E) {
  const Expr *Stripped = E.IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Stripped))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast<MemberExpr>(Stripped))
    return Member->getMemberDecl();
  return nullptr;
}

bool hasAutogradHistory(const Expr &E, const FunctionDecl &Fn,
                        BodyParents &Parents) {
  return HistoryEvidence(Parents).of(&E, Fn);
}

bool isBackpropagatedIn(const ValueDecl &D, const FunctionDecl &Fn,
                        BodyParents &Parents) {
  if (!Fn.getBody())
    return false;
  BodyParents::Facts &F = Parents.factsOf(Fn);
  if (F.Backpropagated)
    return F.Backpropagated->contains(&D);
  const Definitions &Defs = definitionsOf(Fn, Parents);
  auto &Reached = F.Backpropagated.emplace();
  llvm::SmallVector<const ValueDecl *, 16> Work;
  auto Reach = [&](const Expr *E) {
    forEachNamedEntity(E, [&](const ValueDecl &V) {
      if (!containsHistoryRemovingCallOn(E, V) && Reached.insert(&V).second)
        Work.push_back(&V);
    });
  };
  for (const Expr *Root : Defs.PassRoots)
    Reach(Root);
  while (!Work.empty()) {
    const ValueDecl *V = Work.pop_back_val();
    if (auto It = Defs.Values.find(V); It != Defs.Values.end())
      for (const Expr *Value : It->second)
        Reach(Value);
  }
  return Reached.contains(&D);
}

// --- Parents inside function bodies ---------------------------------------------

struct BodyParents::Body {
  std::unique_ptr<ParentMap> Map;
  /// The lambda expressions in the body, by closure class: where a lambda's
  /// call operator (also an instantiated generic one) is written.
  llvm::DenseMap<const CXXRecordDecl *, const LambdaExpr *> Lambdas;
  Facts Evidence;
};

BodyParents::BodyParents() = default;
BodyParents::~BodyParents() = default;

void BodyParents::clear() { Bodies.clear(); }

BodyParents::Body &BodyParents::bodyOf(const FunctionDecl &Fn) {
  std::unique_ptr<Body> &Slot = Bodies[&Fn];
  if (!Slot) {
    Slot = std::make_unique<Body>();
    if (Stmt *Root = Fn.getBody()) {
      Slot->Map = std::make_unique<ParentMap>(Root);
      forEachStmt(Root, [&](const Stmt &S) {
        if (const auto *Lambda = dyn_cast<LambdaExpr>(&S))
          Slot->Lambdas.try_emplace(Lambda->getLambdaClass(), Lambda);
      });
    }
  }
  return *Slot;
}

BodyParents::Facts &BodyParents::factsOf(const FunctionDecl &Fn) {
  return bodyOf(Fn).Evidence;
}

const Stmt *BodyParents::parentOf(const Stmt &S, const FunctionDecl &Fn) {
  const Body &B = bodyOf(Fn);
  return B.Map ? B.Map->getParent(&S) : nullptr;
}

bool BodyParents::isOwnCode(const Stmt &S, const FunctionDecl &Fn) {
  const Stmt *Child = &S;
  while (const Stmt *Parent = parentOf(*Child, Fn)) {
    if (isa<LambdaExpr>(Parent))
      return false;
    Child = Parent;
  }
  return Child == Fn.getBody();
}

const FunctionDecl *
BodyParents::walkUp(const Stmt &S, const FunctionDecl &Fn, bool CrossLambdas,
                    llvm::function_ref<bool(const Step &)> Visit) {
  const FunctionDecl *Current = &Fn;
  const Stmt *Child = &S;
  while (true) {
    if (const Stmt *Parent = parentOf(*Child, *Current)) {
      if (!Visit({Parent, Child, Current}))
        return Current;
      if (const auto *Lambda = dyn_cast<LambdaExpr>(Parent);
          Lambda && !CrossLambdas)
        return Lambda->getCallOperator();
      Child = Parent;
      continue;
    }
    // Child is the body of Current. A lambda's call operator continues at its
    // lambda expression in the enclosing function.
    const auto *Method = dyn_cast<CXXMethodDecl>(Current);
    const CXXRecordDecl *Closure =
        Method && Method->getParent()->isLambda() ? Method->getParent()
                                                  : nullptr;
    const auto *Enclosing =
        Closure ? dyn_cast<FunctionDecl>(Closure->getDeclContext()) : nullptr;
    const LambdaExpr *Lambda =
        Enclosing ? bodyOf(*Enclosing).Lambdas.lookup(Closure) : nullptr;
    if (!Lambda) {
      Visit({nullptr, Child, Current});
      return Current;
    }
    if (!Visit({Lambda, Child, Enclosing}) || !CrossLambdas)
      return Current;
    Child = Lambda;
    Current = Enclosing;
  }
}

llvm::SmallVector<const VarDecl *, 4>
visibleLocalVariables(const Stmt &S, const FunctionDecl &Fn,
                      BodyParents &Parents,
                      llvm::function_ref<bool(const VarDecl &)> Pred,
                      bool CrossLambdas) {
  ScopeCollector Scopes(Pred);
  Parents.walkUp(S, Fn, CrossLambdas, [&](const BodyParents::Step &Step) {
    if (!Step.Parent)
      Scopes.considerParameters(*Step.Function);
    else if (const auto *Lambda = dyn_cast<LambdaExpr>(Step.Parent))
      Scopes.considerParameters(*Lambda->getCallOperator());
    else
      considerScopeLevel(*Step.Parent, Step.Child,
                         [&](const Decl *D) { Scopes.consider(D); });
    Scopes.flushLevel();
    return true;
  });
  return Scopes.take();
}

} // namespace clang::tidy::torch
