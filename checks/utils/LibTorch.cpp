//===--- LibTorch.cpp - what torch-tidy knows about LibTorch --------------===//

#include "utils/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

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

llvm::SmallVector<const VarDecl *, 4>
visibleLocalVariables(const Stmt &S, ASTContext &Ctx,
                      llvm::function_ref<bool(const VarDecl &)> Pred,
                      bool CrossLambdas) {
  llvm::SmallVector<const VarDecl *, 4> Found;
  // Declarations of one scope level, in source order; appended to Found in
  // reverse so that the result is innermost (and latest) first.
  llvm::SmallVector<const VarDecl *, 4> Level;
  auto Consider = [&](const Decl *D) {
    if (const auto *VD = dyn_cast_or_null<VarDecl>(D))
      if (Pred(*VD))
        Level.push_back(VD);
  };
  auto ConsiderStmt = [&](const Stmt *St) {
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(St))
      for (const Decl *D : DS->decls())
        Consider(D);
  };
  auto FlushLevel = [&] {
    Found.append(Level.rbegin(), Level.rend());
    Level.clear();
  };

  DynTypedNode Child = DynTypedNode::create(S);
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(Child);
    if (Parents.empty())
      break;
    const DynTypedNode &Parent = Parents[0];
    if (const auto *Block = Parent.get<CompoundStmt>()) {
      const Stmt *ChildStmt = Child.get<Stmt>();
      for (const Stmt *St : Block->body()) {
        if (St == ChildStmt)
          break;
        ConsiderStmt(St);
      }
    } else if (const auto *For = Parent.get<ForStmt>()) {
      ConsiderStmt(For->getInit());
    } else if (const auto *RangeFor = Parent.get<CXXForRangeStmt>()) {
      ConsiderStmt(RangeFor->getLoopVarStmt());
    } else if (const auto *If = Parent.get<IfStmt>()) {
      ConsiderStmt(If->getInit());
      Consider(If->getConditionVariable());
    } else if (const auto *While = Parent.get<WhileStmt>()) {
      Consider(While->getConditionVariable());
    } else if (const auto *Fn = Parent.get<FunctionDecl>()) {
      for (const ParmVarDecl *P : Fn->parameters())
        Consider(P);
      // A lambda's call operator: continue into the enclosing function only
      // when asked to.
      const auto *Method = dyn_cast<CXXMethodDecl>(Fn);
      if (!CrossLambdas || !Method || !Method->getParent()->isLambda()) {
        FlushLevel();
        break;
      }
    } else if (const auto *Lambda = Parent.get<LambdaExpr>()) {
      for (const ParmVarDecl *P : Lambda->getCallOperator()->parameters())
        Consider(P);
      // The enclosing function's locals are usable only if captured.
      if (!CrossLambdas) {
        FlushLevel();
        break;
      }
    }
    FlushLevel();
    Child = Parent;
  }
  return Found;
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

bool hasNoGradGuardInScope(const Stmt &S, ASTContext &Ctx) {
  const auto Guards = visibleLocalVariables(
      S, Ctx,
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

} // namespace clang::tidy::torch
