//===--- LibTorch.cpp - what torch-tidy knows about LibTorch --------------===//

#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
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
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(namedTypeDecl(T));
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

bool isIValueType(QualType T) {
  return hasQualifiedName(namedTypeDecl(T), {"c10::IValue"});
}

bool isTensorClass(const CXXRecordDecl *RD) {
  return RD && hasQualifiedName(RD, {"at::Tensor", "at::TensorBase"});
}

bool isTensorListType(QualType T) {
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(namedTypeDecl(T));
  if (!Spec || !hasQualifiedName(Spec, {"std::vector", "std::__1::vector",
                                        "c10::ArrayRef", "c10::List",
                                        // at::cat's ITensorListRef (1.13+).
                                        "c10::IListRef"}))
    return false;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  return Args.size() >= 1 && Args[0].getKind() == TemplateArgument::Type &&
         isTensorType(Args[0].getAsType());
}

bool isDeviceType(QualType T) {
  auto IsDeviceOrType = [](QualType Q) {
    return hasQualifiedName(namedTypeDecl(Q),
                            {"c10::Device", "c10::DeviceType"});
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

bool calleeIs(const CallExpr &Call, StringRef QualifiedName) {
  const FunctionDecl *F = Call.getDirectCallee();
  return F && F->getQualifiedNameAsString() == QualifiedName;
}

} // namespace

bool isModuleHolder(const CXXRecordDecl &RD) {
  const ClassTemplateDecl *T = templateOf(RD);
  return T && T->getQualifiedNameAsString() == "torch::nn::ModuleHolder";
}

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

namespace {

/// torch::nn::AnyModule (type-erased, not a torch::nn::Module) and
/// torch::jit::Method (a TorchScript module's method, from get_method()).
bool isForwardingClass(const CXXRecordDecl *RD) {
  return hasQualifiedName(RD, {"torch::nn::AnyModule", "torch::jit::Method"});
}

/// Names of members that only modules have: a dependent object used with one
/// of them is a module as written in a template.
bool isModuleMemberName(StringRef Name) {
  return Name == "forward" || Name == "eval" || Name == "train" ||
         Name == "parameters" || Name == "named_parameters" ||
         Name == "zero_grad" || Name == "is_training";
}

/// The base of a member access through an object of dependent type, as
/// written in a template (`model->f`, `model.f`), with the member's name.
std::pair<const Expr *, StringRef> dependentMemberOf(const Expr *Callee) {
  const auto *Member =
      dyn_cast_or_null<CXXDependentScopeMemberExpr>(stripImplicit(Callee));
  if (!Member || Member->isImplicitAccess())
    return {nullptr, {}};
  return {Member->getBase(), identifierOf(Member->getMember())};
}

/// True if the variable or field \p D is used as a module in the code that
/// can see it (its function's body, or its class's member functions): the
/// object of a dependent `->forward`, `->eval()`, `->parameters()`, ...
bool isUsedAsModule(const ValueDecl &D) {
  llvm::SmallVector<const Stmt *, 4> Bodies;
  if (const auto *Field = dyn_cast<FieldDecl>(&D)) {
    for (const Decl *Member : Field->getParent()->decls())
      if (const auto *Fn = Member->getAsFunction())
        Bodies.push_back(Fn->getBody());
  } else if (isa<VarDecl>(D)) {
    if (const auto *Fn = dyn_cast_or_null<FunctionDecl>(
            D.getDeclContext()->getNonClosureAncestor()))
      Bodies.push_back(Fn->getBody());
  }
  bool Found = false;
  for (const Stmt *Body : Bodies)
    forEachStmt(Body, [&](const Stmt &S) {
      if (Found || !isa<CXXDependentScopeMemberExpr>(S))
        return;
      auto [Base, Name] = dependentMemberOf(cast<Expr>(&S));
      Found = Base && isModuleMemberName(Name) && namedEntity(*Base) == &D;
    });
  return Found;
}

/// A module's forward as written in a template, through an object of
/// dependent type: `model->forward(x)`, and `model(x)` on an object that the
/// template uses as a module elsewhere (isUsedAsModule).
bool isDependentForwardCall(const CallExpr &Call) {
  if (auto [Base, Name] = dependentMemberOf(Call.getCallee()); Base)
    return Name == "forward";
  const Expr *Callee = stripImplicit(Call.getCallee());
  if (!Callee || !Callee->isTypeDependent() || isa<CXXOperatorCallExpr>(Call))
    return false;
  if (const auto *Deref = dyn_cast<UnaryOperator>(Callee);
      Deref && Deref->getOpcode() == UO_Deref)
    Callee = stripImplicit(Deref->getSubExpr());
  // `model(x)`: a variable or a member named as it is (a dependent member
  // access such as `this->f` or an unresolved name is no object).
  if (!Callee || !isa<DeclRefExpr, MemberExpr>(Callee))
    return false;
  const ValueDecl *D = namedEntity(*Callee);
  return D && isUsedAsModule(*D);
}

} // namespace

bool isModuleForwardCall(const CallExpr &Call) {
  auto [Method, Class] = methodAndClass(Call);
  if (!Method || !Class)
    return isDependentForwardCall(Call);
  if (isForwardingClass(Class)) {
    // AnyModule::forward / any_forward, Method::operator().
    return isa<CXXOperatorCallExpr>(Call) ||
           (Method->getIdentifier() && (Method->getName() == "forward" ||
                                        Method->getName() == "any_forward"));
  }
  if (isa<CXXOperatorCallExpr>(Call))
    return isModuleClass(Class);
  if (!Method->getIdentifier())
    return false;
  // A TorchScript module's run_method("name", ...) runs a scripted method.
  if (Method->getName() == "run_method")
    return anyClassInHierarchy(Class, [](const CXXRecordDecl &C) {
      return hasQualifiedName(&C, {"torch::jit::Module", "torch::jit::Object"});
    });
  return Method->getName() == "forward" && isModuleClass(Class);
}

// --- LibTorch's tensor operations
// ---------------------------------------------

namespace {

/// The outermost namespace \p DC lies in, if any.
const NamespaceDecl *outermostNamespace(const DeclContext *DC) {
  const NamespaceDecl *Top = nullptr;
  for (; DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Top = NS;
  return Top;
}

const FunctionDecl *asFunction(const NamedDecl *D) {
  D = D->getUnderlyingDecl();
  if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D))
    D = FT->getTemplatedDecl();
  return dyn_cast<FunctionDecl>(D);
}

bool isTensorMethod(const NamedDecl *D) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(asFunction(D));
  return MD && isTensorClass(MD->getParent());
}

bool inFunctionalNamespace(const DeclContext *DC) {
  for (; DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      if (NS->getName() == "functional")
        return true;
  return false;
}

/// The function's namespace is exactly one of at, torch and (when
/// \p Functional) torch::nn::functional: where LibTorch's tensor operations
/// and losses are declared for users.
bool inTensorOpNamespace(const FunctionDecl &F, bool Functional) {
  const auto *NS = dyn_cast<NamespaceDecl>(F.getDeclContext());
  if (!NS)
    return false;
  std::string Namespace = NS->getQualifiedNameAsString();
  return Namespace == "at" || Namespace == "torch" ||
         (Functional && Namespace == "torch::nn::functional");
}

/// A free function (not a method) with an identifier. In a template, a call
/// still resolved by argument-dependent lookup (`torch::mse_loss(out, y)` with
/// a dependent `out`) gives the first of its candidates when every candidate
/// is a free function of one namespace: the callee is one of them.
const FunctionDecl *namedFreeCallee(const CallExpr &Call) {
  const FunctionDecl *F = Call.getDirectCallee();
  if (!F) {
    const auto *Lookup = dyn_cast_or_null<UnresolvedLookupExpr>(
        Call.getCallee() ? Call.getCallee()->IgnoreParenImpCasts() : nullptr);
    if (!Lookup || Lookup->getNumDecls() == 0)
      return nullptr;
    F = asFunction(*Lookup->decls_begin());
    if (!F || !llvm::all_of(Lookup->decls(), [&](const NamedDecl *D) {
          const FunctionDecl *Candidate = asFunction(D);
          return Candidate && Candidate->getDeclContext()->getRedeclContext() ==
                                  F->getDeclContext()->getRedeclContext();
        }))
      return nullptr;
  }
  if (!F->getIdentifier() || isa<CXXMethodDecl>(F))
    return nullptr;
  return F;
}

/// The name of the at::Tensor method \p Call invokes, or "". In a template,
/// a call with dependent arguments on a tensor (`t.add_(dependent)`) counts
/// when every candidate is a tensor method.
StringRef tensorMethodName(const CallExpr &Call) {
  auto [Method, Class] = methodAndClass(Call);
  if (Method && Method->getIdentifier() && isTensorClass(Class))
    return Method->getName();
  const auto *Member = dyn_cast_or_null<UnresolvedMemberExpr>(
      Call.getCallee() ? Call.getCallee()->IgnoreParenImpCasts() : nullptr);
  if (!Member || Member->getNumDecls() == 0 ||
      !llvm::all_of(Member->decls(), isTensorMethod))
    return {};
  return identifierOf(Member->getMemberName());
}

} // namespace

bool isLibTorchFunction(const NamedDecl *D) {
  const FunctionDecl *FD = D ? asFunction(D) : nullptr;
  if (!FD || isa<CXXMethodDecl>(FD))
    return false;
  const NamespaceDecl *Top = outermostNamespace(FD->getDeclContext());
  return Top && (Top->getName() == "at" || Top->getName() == "torch");
}

const Expr *operandOf(const LibTorchCall &C) {
  if (C.Object)
    return C.Object;
  return C.Args.empty() ? nullptr : C.Args.front();
}

const Expr *argumentAfterOperand(const LibTorchCall &C, unsigned I) {
  unsigned Index = C.Object ? I : I + 1;
  return Index < C.Args.size() ? C.Args[Index] : nullptr;
}

std::optional<LibTorchCall> asLibTorchCall(const Expr *E) {
  E = stripImplicit(E);
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  if (!Call || isa<CXXOperatorCallExpr>(Call))
    return std::nullopt;
  LibTorchCall R;
  R.Call = Call;
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (!M || !M->getIdentifier() || !isTensorClass(M->getParent()))
      return std::nullopt;
    R.Name = M->getName();
    R.Object = MC->getImplicitObjectArgument();
    R.Member = Callee;
  } else if (const auto *ME = dyn_cast<MemberExpr>(Callee);
             ME && isTensorMethod(ME->getMemberDecl())) {
    // In a template, a tensor method with one candidate called with dependent
    // arguments (`x.clamp(0, hi)`): a plain call of the member, not yet a
    // CXXMemberCallExpr.
    if (!ME->getMemberDecl()->getIdentifier())
      return std::nullopt;
    R.Name = ME->getMemberDecl()->getName();
    R.Object = ME->getBase();
    R.Member = ME;
  } else if (const FunctionDecl *FD = Call->getDirectCallee()) {
    if (!FD->getIdentifier() || !isLibTorchFunction(FD))
      return std::nullopt;
    R.Name = FD->getName();
    R.Functional = inFunctionalNamespace(FD->getDeclContext());
  } else if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(Callee)) {
    R.Name = identifierOf(ULE->getName());
    if (R.Name.empty() || ULE->getNumDecls() == 0 ||
        !llvm::all_of(ULE->decls(), isLibTorchFunction))
      return std::nullopt;
    R.Functional =
        inFunctionalNamespace((*ULE->decls_begin())->getDeclContext());
  } else if (const auto *UME = dyn_cast<UnresolvedMemberExpr>(Callee)) {
    R.Name = identifierOf(UME->getMemberName());
    if (R.Name.empty() || UME->isImplicitAccess() || UME->getNumDecls() == 0 ||
        !llvm::all_of(UME->decls(), isTensorMethod))
      return std::nullopt;
    R.Object = UME->getBase();
    R.Member = UME;
  } else if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(Callee)) {
    // `x.norm()` on an operand of dependent type: only its name is known. Used
    // to classify operands, never to decide that a call is LibTorch's.
    R.Name = identifierOf(DM->getMember());
    if (R.Name.empty() || DM->isImplicitAccess())
      return std::nullopt;
    R.Object = DM->getBase();
    R.Member = DM;
  } else {
    return std::nullopt;
  }
  for (const Expr *Arg : Call->arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      break;
    R.Args.push_back(Arg);
  }
  return R;
}

const OpInfo *tensorOpOf(const CallExpr &Call) {
  if (StringRef Method = tensorMethodName(Call); !Method.empty())
    return lookupOp(Method);
  if (const FunctionDecl *F = namedFreeCallee(Call))
    if (isLibTorchFunction(F))
      return lookupOp(F->getName());
  return nullptr;
}

const OpInfo *tensorOpOrDefaultOf(const CallExpr &Call) {
  if (const OpInfo *Info = tensorOpOf(Call))
    return Info;
  StringRef Name = tensorMethodName(Call);
  if (Name.empty())
    if (const FunctionDecl *F = namedFreeCallee(Call);
        F && inTensorOpNamespace(*F, /*Functional=*/true))
      Name = F->getName();
  if (Name.empty() || Name.ends_with("_") || !isTensorType(Call.getType()))
    return nullptr;
  return &generatedOrDefaultOp(Name);
}

bool isNonDifferentiableCall(const CallExpr &Call) {
  const OpInfo *Info = tensorOpOf(Call);
  return Info && (Info->Roles & op::NotDifferentiable);
}

bool setsRequiresGrad(const CallExpr &Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  const CXXMethodDecl *M = Member ? Member->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || !isTensorClass(M->getParent()) ||
      (M->getName() != "requires_grad_" && M->getName() != "set_requires_grad"))
    return false;
  if (Call.getNumArgs() == 0 || isa<CXXDefaultArgExpr>(Call.getArg(0)))
    return true;
  bool Value = false;
  const Expr *Arg = Call.getArg(0);
  return !Arg->isValueDependent() &&
         Arg->EvaluateAsBooleanCondition(Value, M->getASTContext()) && Value;
}

bool requestsGrad(const CallExpr &Call) {
  bool Requests = false;
  for (const Expr *Arg : Call.arguments())
    forEachStmt(Arg, [&](const Stmt &S) {
      const auto *Inner = dyn_cast<CallExpr>(&S);
      const FunctionDecl *F = Inner ? Inner->getDirectCallee() : nullptr;
      if (!F || !F->getIdentifier() || F->getName() != "requires_grad")
        return;
      const Expr *Flag = nullptr;
      for (const Expr *A : Inner->arguments())
        if (!isa<CXXDefaultArgExpr>(A))
          Flag = A;
      bool Value = true;
      if (Flag &&
          (Flag->isValueDependent() ||
           !Flag->EvaluateAsBooleanCondition(Value, F->getASTContext())))
        return;
      Requests |= Value;
    });
  return Requests;
}

namespace {

/// at::Tensor, or a std::tuple or list of tensors.
bool isTensorResultType(QualType T) {
  if (isTensorType(T) || isTensorListType(T))
    return true;
  const auto *Tuple =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(namedTypeDecl(T));
  if (!Tuple || !hasQualifiedName(Tuple, {"std::tuple", "std::__1::tuple"}))
    return false;
  const TemplateArgumentList &Args = Tuple->getTemplateArgs();
  if (Args.size() != 1 || Args[0].getKind() != TemplateArgument::Pack ||
      Args[0].pack_size() == 0)
    return false;
  return llvm::all_of(Args[0].pack_elements(), [](const TemplateArgument &A) {
    return A.getKind() == TemplateArgument::Type && isTensorType(A.getAsType());
  });
}

/// The declarations a LibTorch call may invoke: its callee, or every
/// candidate of a lookup still unresolved in a template.
llvm::SmallVector<const FunctionDecl *, 4> candidatesOf(const LibTorchCall &C) {
  llvm::SmallVector<const FunctionDecl *, 4> Result;
  if (const FunctionDecl *F = C.Call->getDirectCallee()) {
    Result.push_back(F);
    return Result;
  }
  const Expr *Callee = C.Call->getCallee()->IgnoreParenImpCasts();
  if (const auto *Overloads = dyn_cast<OverloadExpr>(Callee))
    for (const NamedDecl *D : Overloads->decls())
      if (const FunctionDecl *F = asFunction(D))
        Result.push_back(F);
  return Result;
}

} // namespace

bool returnsTensors(const LibTorchCall &C) {
  if (!C.Call->getType()->isDependentType())
    return isTensorResultType(C.Call->getType());
  llvm::SmallVector<const FunctionDecl *, 4> Candidates = candidatesOf(C);
  return !Candidates.empty() &&
         llvm::all_of(Candidates, [](const FunctionDecl *F) {
           return isTensorResultType(F->getReturnType());
         });
}

bool declaresSibling(const LibTorchCall &C, StringRef Spelling) {
  llvm::SmallVector<const FunctionDecl *, 4> Candidates = candidatesOf(C);
  if (Candidates.empty())
    return false;
  const FunctionDecl *F = Candidates.front();
  const DeclContext *Home = F->getDeclContext()->getRedeclContext();
  if (C.Object ? !isa<CXXRecordDecl>(Home) : !isa<NamespaceDecl>(Home))
    return false;
  IdentifierInfo &Name = F->getASTContext().Idents.get(Spelling);
  return llvm::any_of(Home->lookup(&Name), [](const NamedDecl *D) {
    return asFunction(D) != nullptr;
  });
}

SourceLocation calleeNameLoc(const LibTorchCall &C) {
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(C.Member))
    return Member->getMemberLoc();
  if (const auto *M = dyn_cast_or_null<CXXDependentScopeMemberExpr>(C.Member))
    return M->getMemberLoc();
  if (const auto *M = dyn_cast_or_null<UnresolvedMemberExpr>(C.Member))
    return M->getMemberLoc();
  const Expr *Callee = C.Call->getCallee()->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Callee))
    return Ref->getLocation();
  if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(Callee))
    return ULE->getNameLoc();
  return {};
}

std::uint64_t savingRolesOf(const CallExpr &Call) {
  constexpr std::uint64_t Saving =
      op::SavesOutput | op::SavesInput | op::SavesOperands;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    if (!isTensorType(Op->getType()))
      return 0;
    StringRef Name = Op->getOperator() == OO_Star    ? "mul"
                     : Op->getOperator() == OO_Slash ? "div"
                                                     : "";
    const OpInfo *Info = Name.empty() ? nullptr : lookupOp(Name);
    return Info ? Info->Roles & Saving : 0;
  }
  const OpInfo *Info = tensorOpOrDefaultOf(Call);
  if (!Info)
    return 0;
  // An in-place form saves what its out-of-place form saves of its result:
  // `x.relu_()` saves x as it leaves it (ReLU's backward reads its result),
  // as `relu(x)` saves its output (derivatives.yaml states the out-of-place
  // formula; the in-place variant is derived from it).
  if ((Info->Roles & op::InPlace) && !(Info->Roles & Saving) &&
      Info->Name.ends_with("_") && !Info->Name.ends_with("__"))
    if (const OpInfo *Functional = lookupOp(Info->Name.drop_back()))
      return Functional->Roles & op::SavesOutput;
  return Info->Roles & Saving;
}

const Expr *inPlaceWriteTarget(const CallExpr &Call) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    if (Op->getNumArgs() != 2 || !isTensorType(Op->getArg(0)->getType()))
      return nullptr;
    switch (Op->getOperator()) {
    case OO_PlusEqual:
    case OO_MinusEqual:
    case OO_StarEqual:
    case OO_SlashEqual:
      return Op->getArg(0);
    case OO_Equal: {
      // Tensor::operator=(...) && writes into the tensor; the lvalue
      // overloads rebind the handle.
      const auto *M = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
      return M && M->getRefQualifier() == RQ_RValue &&
                     isTensorClass(M->getParent())
                 ? Op->getArg(0)
                 : nullptr;
    }
    default:
      return nullptr;
    }
  }
  // Also a call still unresolved in a template (`y.mul_(k)` with a dependent
  // k), when every candidate is LibTorch's; not a member of an operand of
  // dependent type, which may be anything.
  std::optional<LibTorchCall> C = asLibTorchCall(&Call);
  if (!C || isa_and_nonnull<CXXDependentScopeMemberExpr>(C->Member))
    return nullptr;
  const OpInfo *Info = lookupOp(C->Name);
  if (!Info || !(Info->Roles & op::InPlace) ||
      (Info->Roles & (op::KeepsValues | op::RemovesHistory)))
    return nullptr;
  return operandOf(*C);
}

bool isGradientCall(const CallExpr &Call) {
  StringRef Name = tensorMethodName(Call);
  return Name == "grad" || Name == "mutable_grad";
}

bool isHistoryRemovingCall(const CallExpr &Call) {
  StringRef Name = tensorMethodName(Call);
  return !Name.empty() && opHas(Name, op::RemovesHistory);
}

bool isTensorValueReadCall(const CallExpr &Call) {
  StringRef Name = tensorMethodName(Call);
  return !Name.empty() && opHas(Name, op::ReadsValues);
}

bool isTensorFromValuesCall(const CallExpr &Call) {
  const FunctionDecl *F = namedFreeCallee(Call);
  return F && inTensorOpNamespace(*F, /*Functional=*/false) &&
         opHas(F->getName(), op::FromValues);
}

bool isTensorFactoryCall(const CallExpr &Call) {
  const FunctionDecl *F = namedFreeCallee(Call);
  return F && inTensorOpNamespace(*F, /*Functional=*/false) &&
         opHas(F->getName(), op::Fresh);
}

bool isDifferentiableCall(const CallExpr &Call) {
  if (StringRef Method = tensorMethodName(Call); !Method.empty()) {
    if (!isTensorType(Call.getType()))
      return false;
    if (const OpInfo *Info = lookupOp(Method))
      return Info->Roles & op::Differentiable;
    return tensorOpOrDefaultOf(Call) != nullptr; // Not in the table.
  }
  const FunctionDecl *F = namedFreeCallee(Call);
  if (!F || !inTensorOpNamespace(*F, /*Functional=*/true))
    return false;
  if (const OpInfo *Info = lookupOp(F->getName()))
    return Info->Roles & op::Differentiable;
  return tensorOpOrDefaultOf(Call) != nullptr; // Not in the table.
}

// --- Modules, losses, backward passes, optimizers
// ------------------------------

bool isLossCall(const CallExpr &Call) {
  if (isModuleForwardCall(Call)) {
    auto [Method, Class] = methodAndClass(Call);
    return isLossModuleClass(Class);
  }
  const FunctionDecl *F = namedFreeCallee(Call);
  return F && inTensorOpNamespace(*F, /*Functional=*/true) &&
         opHas(F->getName(), op::Loss);
}

const Expr *lossPredictionArg(const CallExpr &Loss) {
  unsigned First = isa<CXXOperatorCallExpr>(Loss) ? 1 : 0;
  return First < Loss.getNumArgs() ? Loss.getArg(First) : nullptr;
}

bool isBackwardCall(const CallExpr &Call) {
  if (tensorMethodName(Call) == "backward")
    return true;
  return calleeIs(Call, "torch::autograd::backward");
}

bool isDependentBackwardCall(const CallExpr &Call) {
  return dependentCalleeName(Call) == "backward" && callObject(Call);
}

bool isAutogradGradCall(const CallExpr &Call) {
  return calleeIs(Call, "torch::autograd::grad");
}

std::optional<PassFlagPositions> passFlagPositions(const CallExpr &Pass) {
  if (!tensorMethodName(Pass).empty() && isBackwardCall(Pass))
    return PassFlagPositions{1, 2}; // backward(gradient, retain, create, ..)
  if (isBackwardCall(Pass))
    return PassFlagPositions{2, 3}; // backward(tensors, grads, retain, ...)
  if (isAutogradGradCall(Pass))
    return PassFlagPositions{3, 4}; // grad(outputs, inputs, grads, retain,..)
  if (isDependentBackwardCall(Pass))
    return PassFlagPositions{1, 2}; // As Tensor::backward, in a template.
  return std::nullopt;
}

bool isOptimizerStepCall(const CallExpr &Call) {
  auto [Method, Class] = methodAndClass(Call);
  return Method && Method->getIdentifier() && Method->getName() == "step" &&
         isOptimizerClass(Class);
}

bool isOptimizerClass(const CXXRecordDecl *RD) {
  return anyClassInHierarchy(RD, [](const CXXRecordDecl &C) {
    return hasQualifiedName(&C, {"torch::optim::Optimizer"});
  });
}

namespace {

/// The name of the method a call invokes on a tensor, also when the callee is
/// still a dependent member inside a template (by name only).
StringRef tensorOrDependentMethodName(const CallExpr &Call) {
  if (StringRef Name = tensorMethodName(Call); !Name.empty())
    return Name;
  return callObject(Call) ? dependentCalleeName(Call) : StringRef();
}

/// `p.grad()` or `p.mutable_grad()`, also through `.data()` / `.detach()`.
bool isGradientExpr(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(stripImplicit(E));
  if (!Call)
    return false;
  StringRef Name = tensorOrDependentMethodName(*Call);
  if (Name == "grad" || Name == "mutable_grad")
    return true;
  return (Name == "data" || Name == "detach") &&
         isGradientExpr(callObject(*Call));
}

} // namespace

bool isGradientClearing(const Stmt &S) {
  if (const auto *Assign = dyn_cast<BinaryOperator>(&S)) // In a template.
    return Assign->getOpcode() == BO_Assign && isGradientExpr(Assign->getLHS());
  const auto *CallP = dyn_cast<CallExpr>(&S);
  if (!CallP)
    return false;
  const CallExpr &Call = *CallP;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call))
    return Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
           isGradientExpr(Op->getArg(0));
  auto [Method, Class] = methodAndClass(Call);
  if (Method && Method->getIdentifier() && Method->getName() == "zero_grad")
    return isOptimizerClass(Class) || isModuleClass(Class);
  if (dependentCalleeName(Call) == "zero_grad")
    return true;
  StringRef Name = tensorOrDependentMethodName(Call);
  return (Name == "zero_" || Name == "reset" || Name == "fill_") &&
         isGradientExpr(callObject(Call));
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

bool isModuleModeCall(const CallExpr &Call, const ASTContext &Ctx,
                      bool WantEval) {
  auto [Method, Class] = methodAndClass(Call);
  StringRef Name;
  if (Method && Method->getIdentifier() && isModuleClass(Class))
    Name = Method->getName();
  else if (auto [Base, Member] = dependentMemberOf(Call.getCallee()); Base)
    Name = Member; // `model->eval()` on a dependent module, in a template.
  else
    return false;
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

} // namespace

bool isModuleEvalCall(const CallExpr &Call, const ASTContext &Ctx) {
  return isModuleModeCall(Call, Ctx, /*WantEval=*/true);
}

bool isModuleTrainCall(const CallExpr &Call, const ASTContext &Ctx) {
  return isModuleModeCall(Call, Ctx, /*WantEval=*/false);
}

bool isModuleForwardMethod(const FunctionDecl &F) {
  const auto *Method = dyn_cast<CXXMethodDecl>(&F);
  return Method && Method->getIdentifier() && Method->getName() == "forward" &&
         isModuleClass(Method->getParent());
}

const Expr *moduleTrainFlag(const CallExpr &Call, const ASTContext &Ctx) {
  auto [Method, Class] = methodAndClass(Call);
  StringRef Name;
  if (Method && Method->getIdentifier() && isModuleClass(Class))
    Name = Method->getName();
  else if (auto [Base, Member] = dependentMemberOf(Call.getCallee()); Base)
    Name = Member;
  if (Name != "train" || Call.getNumArgs() == 0 ||
      isa<CXXDefaultArgExpr>(Call.getArg(0)))
    return nullptr;
  const Expr *Arg = Call.getArg(0);
  bool On = true;
  if (!Arg->isValueDependent() && Arg->EvaluateAsBooleanCondition(On, Ctx))
    return nullptr;
  return Arg;
}

const ValueDecl *moduleObjectEntity(const Expr *Object) {
  while (Object) {
    Object = Object->IgnoreParenImpCasts();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Object);
        Op && (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star) &&
        Op->getNumArgs() == 1)
      Object = Op->getArg(0);
    else if (const auto *U = dyn_cast<UnaryOperator>(Object);
             U && U->getOpcode() == UO_Deref)
      Object = U->getSubExpr();
    else
      return namedEntity(*Object);
  }
  return nullptr;
}

const CXXRecordDecl *forwardModuleClass(const CallExpr &Forward) {
  auto [Method, Class] = methodAndClass(Forward);
  if (!Class)
    return nullptr;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(Class);
      Spec && isModuleHolder(*Spec) && Spec->getTemplateArgs().size() == 1 &&
      Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
    return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  if (const CXXRecordDecl *Def = Class->getDefinition())
    for (const CXXBaseSpecifier &Base : Def->bases())
      if (const CXXRecordDecl *B = Base.getType()->getAsCXXRecordDecl();
          B && isModuleHolder(*B)) {
        const auto *Spec = cast<ClassTemplateSpecializationDecl>(B);
        if (Spec->getTemplateArgs().size() == 1 &&
            Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
          return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
      }
  return Class;
}

const CXXMethodDecl *forwardMethodOf(const CallExpr &Forward) {
  const CXXRecordDecl *Class = forwardModuleClass(Forward);
  if (!Class || !(Class = Class->getDefinition()))
    return nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Forward))
    if (const CXXMethodDecl *M = Member->getMethodDecl();
        M && M->getParent()->getCanonicalDecl() == Class->getCanonicalDecl())
      return M;
  // `model(x)` on a holder: the Impl's forward taking the call's arguments
  // (an operator() call's first argument is the object).
  const unsigned Args = isa<CXXOperatorCallExpr>(Forward) && Forward.getNumArgs()
                            ? Forward.getNumArgs() - 1
                            : Forward.getNumArgs();
  for (const NamedDecl *D :
       Class->lookup(&Class->getASTContext().Idents.get("forward")))
    if (const auto *M = dyn_cast<CXXMethodDecl>(D->getUnderlyingDecl());
        M && M->getNumParams() == Args)
      return M;
  return nullptr;
}

bool isAffineModuleClass(const CXXRecordDecl *RD) {
  return hasQualifiedName(RD,
                          {"torch::nn::LinearImpl", "torch::nn::BilinearImpl"});
}

bool isScoreLayerClass(const CXXRecordDecl *RD) {
  return isAffineModuleClass(RD) ||
         hasQualifiedName(
             RD, {"torch::nn::Conv1dImpl", "torch::nn::Conv2dImpl",
                  "torch::nn::Conv3dImpl", "torch::nn::ConvTranspose1dImpl",
                  "torch::nn::ConvTranspose2dImpl",
                  "torch::nn::ConvTranspose3dImpl"});
}

bool moduleSavesInput(const CXXRecordDecl *RD) {
  if (!RD || !RD->getIdentifier())
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(RD->getDeclContext());
  if (!NS || NS->getQualifiedNameAsString() != "torch::nn")
    return false;
  // LibTorch's layers with learnable weights: the weight's gradient needs
  // the input (linear and convolution layers, recurrent layers and cells,
  // normalisation layers).
  return llvm::StringSwitch<bool>(RD->getName())
      .Cases("LinearImpl", "BilinearImpl", "Conv1dImpl", "Conv2dImpl",
             "Conv3dImpl", true)
      .Cases("ConvTranspose1dImpl", "ConvTranspose2dImpl",
             "ConvTranspose3dImpl", true)
      .Cases("RNNCellImpl", "LSTMCellImpl", "GRUCellImpl", "RNNImpl",
             "LSTMImpl", "GRUImpl", true)
      .Cases("BatchNorm1dImpl", "BatchNorm2dImpl", "BatchNorm3dImpl",
             "LayerNormImpl", "GroupNormImpl", true)
      .Cases("InstanceNorm1dImpl", "InstanceNorm2dImpl", "InstanceNorm3dImpl",
             true)
      .Default(false);
}

namespace {

/// How a class registers one of its tensor members, joined over the
/// assignments to it.
enum class Registration { None, Parameter, Buffer, Unknown };

/// What \p E registers, if it is `register_parameter(...)` or
/// `register_buffer(...)` of torch::nn::Module on the object itself (also
/// `this->register_parameter(...)` still dependent in a class template whose
/// base is dependent, as in LibTorch's NormImplBase and ConvNdImpl).
Registration registrationBy(const Expr *E, const ASTContext &Ctx) {
  E = stripImplicit(E);
  if (const auto *Parens = dyn_cast_or_null<ParenListExpr>(E))
    E = Parens->getNumExprs() == 1 ? stripImplicit(Parens->getExpr(0))
                                   : nullptr;
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  if (!Call)
    return Registration::None;
  StringRef Name;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *M = Member->getMethodDecl();
    if (!M || !M->getIdentifier() ||
        !hasQualifiedName(M->getParent(), {"torch::nn::Module"}))
      return Registration::None;
    Name = M->getName();
  } else {
    Name = dependentCalleeName(*Call);
  }
  const Expr *Object = callObject(*Call);
  if (!Object || !isa<CXXThisExpr>(Object->IgnoreParenImpCasts()))
    return Registration::None;
  if (Name == "register_buffer")
    return Registration::Buffer;
  if (Name != "register_parameter")
    return Registration::None;
  const Expr *Flag = writtenArg(*Call, 2);
  if (!Flag)
    return Registration::Parameter;
  bool RequiresGrad = true;
  if (Flag->isValueDependent() ||
      !Flag->EvaluateAsBooleanCondition(RequiresGrad, Ctx))
    return Registration::Unknown;
  return RequiresGrad ? Registration::Parameter : Registration::Buffer;
}

/// How the methods of \p Field's class register it: the strongest
/// registration of any assignment to it from its own object, in a method's
/// body (`weight = register_parameter(...)`) or a constructor's member
/// initialiser (`w_(register_parameter(...))`). A parameter anywhere wins
/// (NormImplBase registers its weight without requires_grad when it is not
/// affine, and leaves it undefined).
Registration registrationOf(const FieldDecl &Field) {
  const auto *Class = dyn_cast<CXXRecordDecl>(Field.getParent());
  Class = Class ? Class->getDefinition() : nullptr;
  if (!Class)
    return Registration::None;
  const ASTContext &Ctx = Field.getASTContext();
  const FieldDecl *Canonical = Field.getCanonicalDecl();
  bool Parameter = false, Buffer = false, Unknown = false;
  auto Note = [&](Registration R) {
    Parameter |= R == Registration::Parameter;
    Buffer |= R == Registration::Buffer;
    Unknown |= R == Registration::Unknown;
  };
  auto NamesField = [&](const Expr *LHS) {
    const auto *Member =
        dyn_cast_or_null<MemberExpr>(LHS ? LHS->IgnoreParenImpCasts() : nullptr);
    return Member && Member->getMemberDecl()->getCanonicalDecl() == Canonical &&
           isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts());
  };
  for (const CXXMethodDecl *M : Class->methods()) {
    const FunctionDecl *Def = M->getDefinition();
    if (!Def || !Def->getBody())
      continue;
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && Init->getMember() &&
            Init->getMember()->getCanonicalDecl() == Canonical)
          Note(registrationBy(Init->getInit(), Ctx));
    forEachStmt(Def->getBody(), [&](const Stmt &S) {
      if (const auto *Assign = dyn_cast<BinaryOperator>(&S);
          Assign && Assign->getOpcode() == BO_Assign &&
          NamesField(Assign->getLHS()))
        Note(registrationBy(Assign->getRHS(), Ctx));
      else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S);
               Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
               NamesField(Op->getArg(0)))
        Note(registrationBy(Op->getArg(1), Ctx));
    });
  }
  if (Parameter)
    return Registration::Parameter;
  if (Unknown)
    return Registration::Unknown;
  return Buffer ? Registration::Buffer : Registration::None;
}

/// The member of the class template's own code that \p F, a member of an
/// instantiation, was instantiated from (its registration is written there);
/// \p F itself otherwise.
const FieldDecl &writtenField(const FieldDecl &F) {
  const auto *Class = dyn_cast<CXXRecordDecl>(F.getParent());
  const CXXRecordDecl *Pattern =
      Class ? Class->getTemplateInstantiationPattern() : nullptr;
  if (!Pattern || Pattern == Class || !F.getDeclName().isIdentifier())
    return F;
  for (const NamedDecl *D : Pattern->lookup(F.getDeclName()))
    if (const auto *Field = dyn_cast<FieldDecl>(D))
      return *Field;
  return F;
}

} // namespace

ModuleTensorMember moduleTensorMemberOf(const FieldDecl &F) {
  QualType T = F.getType();
  if (T.isNull() || T->isReferenceType() || T->isDependentType() ||
      !isTensorType(T))
    return ModuleTensorMember::NotOne;
  const auto *Class = dyn_cast<CXXRecordDecl>(F.getParent());
  if (!anyClassInHierarchy(Class, [](const CXXRecordDecl &C) {
        return hasQualifiedName(&C, {"torch::nn::Module"});
      }))
    return ModuleTensorMember::NotOne;
  const FieldDecl &Written = writtenField(F);
  switch (registrationOf(Written)) {
  case Registration::Parameter:
    return ModuleTensorMember::Parameter;
  case Registration::Buffer:
    return ModuleTensorMember::Buffer;
  case Registration::Unknown:
    return ModuleTensorMember::Unknown;
  case Registration::None:
    break;
  }
  const SourceManager &SM = F.getASTContext().getSourceManager();
  if (!isInLibTorchHeader(SM.getExpansionLoc(Written.getLocation()), SM))
    return ModuleTensorMember::Unknown;
  // One of LibTorch's modules, registered in the library (reset() in a .cpp
  // file): a loss module's tensors are its options (class weights, a
  // positive weight), registered as buffers; so are FractionalMaxPool's
  // random samples. Every other tensor member of LibTorch's modules is a
  // parameter it registers (weight, bias, weight_ih, in_proj_weight, ...).
  if (isLossModuleClass(Class) ||
      hasQualifiedName(&F,
                       {"torch::nn::FractionalMaxPool2dImpl::_random_samples",
                        "torch::nn::FractionalMaxPool3dImpl::_random_samples"}))
    return ModuleTensorMember::Buffer;
  return ModuleTensorMember::Parameter;
}

const Expr *sequentialLayerOf(const Expr *E, bool Last) {
  for (int Depth = 0; E && Depth < 6; ++Depth) {
    E = stripImplicit(E);
    if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E)) {
      E = List->getSubExpr();
      continue;
    }
    if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = Temp->getSubExpr();
      continue;
    }
    if (const auto *Init = dyn_cast<InitListExpr>(E)) {
      if (Init->getNumInits() == 0)
        return nullptr;
      E = Init->getInit(Last ? Init->getNumInits() - 1 : 0);
      continue;
    }
    const auto *Construct = dyn_cast<CXXConstructExpr>(E);
    const CXXRecordDecl *RD = E->getType()->getAsCXXRecordDecl();
    if (Construct && Construct->getNumArgs() > 0 && RD && RD->getIdentifier() &&
        (RD->getName() == "NamedAnyModule" || RD->getName() == "AnyModule")) {
      E = Construct->getArg(Construct->getNumArgs() - 1);
      continue;
    }
    return E;
  }
  return nullptr;
}

const CXXRecordDecl *moduleImplOf(QualType T) {
  const CXXRecordDecl *RD = T.isNull() ? nullptr : T->getAsCXXRecordDecl();
  for (int Depth = 0; RD && Depth < 4; ++Depth) {
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
        Spec && isModuleHolder(*Spec) && Spec->getTemplateArgs().size() == 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
    if (RD->getNumBases() != 1)
      return RD;
    const CXXRecordDecl *Base =
        RD->bases_begin()->getType()->getAsCXXRecordDecl();
    if (!Base || !isModuleHolder(*Base))
      return RD;
    RD = Base;
  }
  return RD;
}

namespace {

/// The first construction of a module of class \p Impl inside \p From that
/// \p Accept accepts.
const CXXConstructExpr *moduleConstructionIn(
    const Stmt *From, const CXXRecordDecl *Impl,
    llvm::function_ref<bool(const CXXConstructExpr &)> Accept) {
  const CXXConstructExpr *Found = nullptr;
  forEachStmt(From, [&](const Stmt &S) {
    if (const auto *C = dyn_cast<CXXConstructExpr>(&S);
        C && !Found && C->getNumArgs() > 0 &&
        moduleImplOf(C->getType()) == Impl && Accept(*C))
      Found = C;
  });
  return Found;
}

/// The construction \p Accept accepts of the module variable or member whose
/// forward \p Forward runs (see moduleConstructionOf).
const CXXConstructExpr *
constructionOfForwardObject(const CallExpr &Forward, const CXXRecordDecl *Impl,
                            llvm::function_ref<bool(const CXXConstructExpr &)>
                                Accept) {
  const Expr *Object = nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Forward))
    Object = Op->getNumArgs() ? Op->getArg(0) : nullptr;
  else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Forward))
    Object = Member->getImplicitObjectArgument();
  const ValueDecl *Entity = moduleObjectEntity(Object);
  const CXXConstructExpr *Construct = nullptr;
  if (const auto *Var = dyn_cast_or_null<VarDecl>(Entity))
    Construct = moduleConstructionIn(Var->getInit(), Impl, Accept);
  else if (const auto *Field = dyn_cast_or_null<FieldDecl>(Entity)) {
    Construct =
        moduleConstructionIn(Field->getInClassInitializer(), Impl, Accept);
    // Assigned in the constructors: `net = register_module("net",
    // torch::nn::Sequential(...))`, or initialised in their member
    // initialisers; one construction in all of them.
    const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent());
    if (!Construct && Class)
      for (const CXXConstructorDecl *Ctor : Class->ctors()) {
        const CXXConstructExpr *Here = nullptr;
        for (const CXXCtorInitializer *Init : Ctor->inits())
          if (Init->getMember() == Field && Init->isWritten())
            Here = moduleConstructionIn(Init->getInit(), Impl, Accept);
        forEachStmt(Ctor->getBody(), [&](const Stmt &S) {
          const Expr *LHS = nullptr, *RHS = nullptr;
          if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S);
              Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
            LHS = Op->getArg(0);
            RHS = Op->getArg(1);
          } else if (const auto *BO = dyn_cast<BinaryOperator>(&S);
                     BO && BO->getOpcode() == BO_Assign) {
            LHS = BO->getLHS();
            RHS = BO->getRHS();
          }
          if (!Here && LHS && moduleObjectEntity(LHS) == Field)
            Here = moduleConstructionIn(RHS, Impl, Accept);
        });
        // Constructors that build different modules: none is known.
        if (Here && Construct && Here != Construct)
          return nullptr;
        if (Here)
          Construct = Here;
      }
  }
  return Construct;
}

} // namespace

const CXXRecordDecl *sequentialFirstLayer(const CallExpr &Forward) {
  const CXXConstructExpr *Construct = sequentialConstructionOf(Forward);
  return Construct ? moduleImplOf(
                         sequentialLayerOf(Construct->getArg(0), /*Last=*/false)
                             ->getType())
                   : nullptr;
}

const CXXConstructExpr *sequentialConstructionOf(const CallExpr &Forward) {
  const CXXRecordDecl *Impl = forwardModuleClass(Forward);
  if (!Impl || !hasQualifiedName(Impl, {"torch::nn::SequentialImpl"}))
    return nullptr;
  // With layers: not `{nullptr}`, a copy, or a holder made from a pointer to
  // a Sequential.
  return constructionOfForwardObject(
      Forward, Impl, [&](const CXXConstructExpr &C) {
        const Expr *First = sequentialLayerOf(C.getArg(0), /*Last=*/false);
        const CXXRecordDecl *Layer =
            First ? moduleImplOf(First->getType()) : nullptr;
        return Layer && Layer != Impl && isModuleClass(Layer);
      });
}

const CXXConstructExpr *moduleConstructionOf(const CallExpr &Forward) {
  const CXXRecordDecl *Impl = forwardModuleClass(Forward);
  if (!Impl)
    return nullptr;
  // With its arguments: not `{nullptr}`, a copy of another holder, or a
  // holder made from a pointer to the module.
  return constructionOfForwardObject(
      Forward, Impl, [&](const CXXConstructExpr &C) {
        const Expr *First = stripImplicit(C.getArg(0));
        if (!First || isa<CXXDefaultArgExpr>(First) ||
            First->getType()->isNullPtrType() ||
            First->getType()->isPointerType() ||
            First->isTypeDependent())
          return false;
        const CXXRecordDecl *RD = First->getType()->getAsCXXRecordDecl();
        if (RD && hasQualifiedName(RD, {"std::shared_ptr"}))
          return false;
        return !RD || moduleImplOf(First->getType()) != Impl;
      });
}

StringRef lossOpName(const CallExpr &Loss) {
  if (isModuleForwardCall(Loss)) {
    const CXXRecordDecl *Impl = forwardModuleClass(Loss);
    if (!Impl || !isLossImpl(*Impl))
      return "";
    // The loss modules whose forward is a function of the operation table
    // under another spelling.
    return llvm::StringSwitch<StringRef>(Impl->getName())
        .Case("CrossEntropyLossImpl", "cross_entropy")
        .Case("NLLLossImpl", "nll_loss")
        .Case("BCELossImpl", "binary_cross_entropy")
        .Case("BCEWithLogitsLossImpl", "binary_cross_entropy_with_logits")
        .Default("");
  }
  if (isLossCall(Loss))
    return namedFreeCallee(Loss)->getName();
  if (std::optional<LibTorchCall> C = asLibTorchCall(&Loss);
      C && !C->Object && C->is(op::Loss))
    return C->Name;
  return "";
}

bool isIValueToTensorCall(const CallExpr &Call) {
  auto [Method, Class] = methodAndClass(Call);
  return Method && Method->getIdentifier() && Method->getName() == "toTensor" &&
         hasQualifiedName(Class, {"c10::IValue"});
}

// --- Devices, tensor options, data loaders
// --------------------------------------------------

bool isTensorOptionsType(QualType T) {
  return hasQualifiedName(namedTypeDecl(T),
                          {"c10::TensorOptions", "at::TensorOptions"});
}

DeviceConstant deviceConstantOf(const Expr *E) {
  E = E ? E->IgnoreUnlessSpelledInSource() : nullptr;
  if (!E)
    return DeviceConstant::NotConstant;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (!isDeviceClassType(Construct->getType()) ||
        Construct->getNumArgs() == 0)
      return DeviceConstant::NotConstant;
    // Device(kCUDA, 1): the type decides; Device("cuda:0").
    return deviceConstantOf(Construct->getArg(0));
  }
  if (const auto *Literal = dyn_cast<StringLiteral>(E)) {
    if (!Literal->isOrdinary())
      return DeviceConstant::NotConstant;
    StringRef Text = Literal->getString();
    return Text == "cpu" || Text.starts_with("cpu:") ? DeviceConstant::Cpu
                                                     : DeviceConstant::Other;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  if (!Ref || !hasQualifiedName(namedTypeDecl(Ref->getType()),
                                {"c10::DeviceType"}))
    return DeviceConstant::NotConstant;
  const ValueDecl *D = Ref->getDecl();
  if (const auto *Constant = dyn_cast<EnumConstantDecl>(D))
    return Constant->getName() == "CPU" ? DeviceConstant::Cpu
                                        : DeviceConstant::Other;
  // c10::kCPU, c10::kCUDA, ...: constexpr copies of the enumerators.
  const auto *VD = dyn_cast<VarDecl>(D);
  if (!VD || !VD->isConstexpr() || !VD->getIdentifier() ||
      !hasQualifiedName(VD, {"c10::" + VD->getName().str()}))
    return DeviceConstant::NotConstant;
  return VD->getName() == "kCPU" ? DeviceConstant::Cpu : DeviceConstant::Other;
}

const Expr *moduleMoveDevice(const CallExpr &Call) {
  const Expr *First = writtenArg(Call, 0);
  if (!First)
    return nullptr;
  if (auto [Method, Class] = methodAndClass(Call); Method && Class) {
    if (!Method->getIdentifier() || Method->getName() != "to" ||
        !isModuleClass(Class) || Method->getNumParams() == 0 ||
        !isDeviceType(Method->getParamDecl(0)->getType()))
      return nullptr;
    return First;
  }
  // A template's `model->to(device)` on a module of dependent type.
  if (auto [Base, Name] = dependentMemberOf(Call.getCallee());
      Base && Name == "to" && !First->isTypeDependent() &&
      isDeviceType(First->IgnoreUnlessSpelledInSource()->getType()))
    return First;
  return nullptr;
}

std::optional<const Expr *> loadCallDevice(const CallExpr &Call) {
  unsigned PathIndex;
  if (calleeIs(Call, "torch::load"))
    PathIndex = 1;
  else if (calleeIs(Call, "torch::jit::load"))
    PathIndex = 0;
  else
    return std::nullopt;
  for (unsigned I = PathIndex + 1; I < Call.getNumArgs(); ++I) {
    const Expr *Arg = writtenArg(Call, I);
    if (!Arg)
      break;
    if (isDeviceType(Arg->IgnoreUnlessSpelledInSource()->getType()) &&
        !isEmptyOptional(Arg))
      return Arg->IgnoreUnlessSpelledInSource();
  }
  return static_cast<const Expr *>(nullptr);
}

bool isDataLoaderClass(const CXXRecordDecl *RD) {
  return anyClassInHierarchy(RD, [](const CXXRecordDecl &C) {
    return hasQualifiedName(&C, {"torch::data::DataLoaderBase"});
  });
}

bool isDataExampleClass(const CXXRecordDecl *RD) {
  return hasQualifiedName(RD, {"torch::data::Example"});
}

// --- Grad mode
// -------------------------------------------------------------------

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
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(
          VD.getInit() ? VD.getInit()->IgnoreImplicit() : nullptr))
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

bool isGradModeSetCall(const CallExpr &Call) {
  return calleeIs(Call, "c10::GradMode::set_enabled");
}

// --- Memory a tensor wraps, dtypes and devices -------------------------------

std::optional<LibTorchCall> asMemoryWrappingCall(const Expr *E) {
  std::optional<LibTorchCall> C = asLibTorchCall(E);
  if (!C || C->Object || C->Args.empty() || !C->is(op::WrapsMemory))
    return std::nullopt;
  return C;
}

namespace {

bool isCallableType(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  if (T->isFunctionPointerType() || T->isFunctionType())
    return true;
  const NamedDecl *D = namedTypeDecl(T);
  if (const auto *RD = dyn_cast_or_null<CXXRecordDecl>(D))
    if (RD->isLambda())
      return true;
  return hasQualifiedName(D, {"std::function", "std::__1::function"});
}

/// Calls \p Fn on \p S and every expression under it (lambda bodies not).
void forEachSubExpr(const Stmt *S, llvm::function_ref<void(const Expr &)> Fn) {
  if (!S)
    return;
  if (const auto *E = dyn_cast<Expr>(S))
    Fn(*E);
  if (isa<LambdaExpr>(S))
    return;
  for (const Stmt *Child : S->children())
    forEachSubExpr(Child, Fn);
}

bool isScalarTypeType(QualType T) {
  return hasQualifiedName(namedTypeDecl(T), {"c10::ScalarType"});
}

/// The name of the enumerator a constant expression of enumeration type
/// evaluates to.
std::optional<std::string> enumeratorOf(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  const auto *Enum = dyn_cast_or_null<EnumDecl>(namedTypeDecl(E->getType()));
  Expr::EvalResult Result;
  if (!Enum || !E->EvaluateAsRValue(Result, Ctx) || !Result.Val.isInt())
    return std::nullopt;
  for (const EnumConstantDecl *C : Enum->enumerators())
    if (llvm::APSInt::isSameValue(C->getInitVal(), Result.Val.getInt()))
      return C->getName().str();
  return std::nullopt;
}

} // namespace

bool passesDeleter(const LibTorchCall &Wrap) {
  const FunctionDecl *Callee = Wrap.Call->getDirectCallee();
  for (unsigned I = 0; I < Wrap.Args.size(); ++I) {
    if (Callee && I < Callee->getNumParams() &&
        isCallableType(Callee->getParamDecl(I)->getType()))
      return true;
    if (isCallableType(stripImplicit(Wrap.Args[I])->getType()))
      return true;
  }
  return false;
}

std::optional<std::string> scalarTypeConstant(const Expr *E,
                                              const ASTContext &Ctx) {
  E = E ? stripImplicit(E) : nullptr;
  if (!E || !isScalarTypeType(E->getType()))
    return std::nullopt;
  return enumeratorOf(E, Ctx);
}

std::optional<std::string> wrappedScalarType(const LibTorchCall &Wrap,
                                             const ASTContext &Ctx) {
  std::optional<std::string> Found;
  bool Unknown = false;
  for (const Expr *Arg : llvm::ArrayRef(Wrap.Args).drop_front()) {
    QualType T = Arg->getType();
    if (!isScalarTypeType(T) && !isTensorOptionsType(T) &&
        !isScalarTypeType(stripImplicit(Arg)->getType()) &&
        !isTensorOptionsType(stripImplicit(Arg)->getType()))
      continue;
    bool SawScalarType = false;
    forEachSubExpr(Arg, [&](const Expr &E) {
      if (isScalarTypeType(E.getType()) && !SawScalarType &&
          !isa<ImplicitCastExpr>(E)) {
        SawScalarType = true;
        if (std::optional<std::string> Name = scalarTypeConstant(&E, Ctx))
          Found = Name;
        else
          Unknown = true;
      }
      // Options held in a variable: their dtype is not written here.
      if (const auto *Ref = dyn_cast<DeclRefExpr>(&E))
        if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl()))
          if (!VD->isConstexpr() && isTensorOptionsType(VD->getType()))
            Unknown = true;
    });
  }
  if (Unknown)
    return std::nullopt;
  return Found ? Found : std::optional<std::string>("Float");
}

bool isCpuDeviceExpr(const Expr *E, const ASTContext &Ctx) {
  E = E ? stripImplicit(E) : nullptr;
  if (!E)
    return false;
  if (hasQualifiedName(namedTypeDecl(E->getType()), {"c10::DeviceType"})) {
    std::optional<std::string> Name = enumeratorOf(E, Ctx);
    return Name && *Name == "CPU";
  }
  if (!isDeviceClassType(E->getType()))
    return false;
  const auto *Construct = dyn_cast<CXXConstructExpr>(E);
  if (!Construct || Construct->getNumArgs() == 0)
    return false;
  const Expr *First = Construct->getArg(0);
  if (isDeviceClassType(First->getType()))
    return isCpuDeviceExpr(First, Ctx);
  bool Cpu = false;
  forEachSubExpr(First, [&](const Expr &Sub) {
    if (const auto *Str = dyn_cast<StringLiteral>(&Sub))
      Cpu = Str->getString() == "cpu";
  });
  if (Cpu)
    return true;
  std::optional<std::string> Name = enumeratorOf(stripImplicit(First), Ctx);
  return Name && *Name == "CPU" &&
         (Construct->getNumArgs() < 2 ||
          isa<CXXDefaultArgExpr>(Construct->getArg(1)));
}

} // namespace clang::tidy::torch
