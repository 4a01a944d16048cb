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
                      llvm::function_ref<bool(const VarDecl &)> Pred) {
  llvm::SmallVector<const VarDecl *, 4> Found;
  auto Consider = [&](const Decl *D) {
    if (const auto *VD = dyn_cast_or_null<VarDecl>(D))
      if (Pred(*VD))
        Found.push_back(VD);
  };
  auto ConsiderStmt = [&](const Stmt *St) {
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(St))
      for (const Decl *D : DS->decls())
        Consider(D);
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
      break;
    } else if (const auto *Lambda = Parent.get<LambdaExpr>()) {
      // The enclosing function's locals are usable only if captured: stop at
      // the lambda's own parameters.
      for (const ParmVarDecl *P : Lambda->getCallOperator()->parameters())
        Consider(P);
      break;
    }
    Child = Parent;
  }
  return Found;
}

} // namespace clang::tidy::torch
