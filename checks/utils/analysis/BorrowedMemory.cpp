//===--- BorrowedMemory.cpp - tensors over memory a function owns ---------===//

#include "utils/analysis/BorrowedMemory.h"
#include "utils/analysis/AccessPath.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/Analysis/Analyses/PostOrderCFGView.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <algorithm>
#include <map>
#include <set>

namespace clang::tidy::torch {

namespace {

// --- What owns memory
// ---------------------------------------------------------

/// True if \p D is declared in namespace \p NS at the top level (inline
/// namespaces such as std::__1 or std::__cxx11 skipped).
bool inTopNamespace(const Decl *D, StringRef NS) {
  const DeclContext *DC = D->getDeclContext();
  while (DC && DC->isInlineNamespace())
    DC = DC->getParent();
  const auto *N = dyn_cast_or_null<NamespaceDecl>(DC);
  return N && N->getName() == NS &&
         N->getParent()->getRedeclContext()->isTranslationUnit();
}

/// How a type holds the memory it exposes.
enum class Holding {
  None,
  /// The object owns its memory and copies it when copied (std::vector,
  /// std::array, std::string, std::unique_ptr, arrays, scalars).
  Owns,
  /// A reference-counted handle that copies share (cv::Mat).
  SharedHandle
};

/// The class template (or class) a type names, also when its arguments are
/// still dependent.
const NamedDecl *classTemplateOf(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (const auto *RD = T->getAsCXXRecordDecl()) {
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
      return Spec->getSpecializedTemplate();
    if (!RD->isDependentContext())
      return RD;
  }
  // Still dependent (std::vector<T> in a template).
  if (const auto *TST = T->getAs<TemplateSpecializationType>())
    return TST->getTemplateName().getAsTemplateDecl();
  return nullptr;
}

Holding holdingOf(QualType T) {
  if (T.isNull() || T->isReferenceType())
    return Holding::None;
  if (T->isConstantArrayType() || T->isArithmeticType())
    return Holding::Owns;
  const NamedDecl *D = classTemplateOf(T);
  if (!D || !D->getIdentifier())
    return Holding::None;
  StringRef Name = D->getName();
  if (inTopNamespace(D, "std") &&
      (Name == "vector" || Name == "array" || Name == "basic_string" ||
       Name == "unique_ptr"))
    return Holding::Owns;
  if (inTopNamespace(D, "cv") && (Name == "Mat" || Name == "Mat_"))
    return Holding::SharedHandle;
  return Holding::None;
}

const Expr *ignoreWrappers(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParens();
    if (const auto *C = dyn_cast<ExprWithCleanups>(Next))
      Next = C->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = B->getSubExpr();
    else if (const auto *I = dyn_cast<ImplicitCastExpr>(Next))
      Next = I->getSubExpr();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

/// `std::move(x)` / `std::forward<T>(x)`: x.
const Expr *movedFrom(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  if (!Call || Call->getNumArgs() != 1)
    return nullptr;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (FD && FD->getIdentifier() && inTopNamespace(FD, "std") &&
      (FD->getName() == "move" || FD->getName() == "forward"))
    return Call->getArg(0);
  if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(
          Call->getCallee()->IgnoreParenImpCasts())) {
    StringRef Name = identifierOf(ULE->getName());
    if ((Name == "move" || Name == "forward") && ULE->getNumDecls() > 0 &&
        inTopNamespace(*ULE->decls_begin(), "std"))
      return Call->getArg(0);
  }
  return nullptr;
}

/// A variable of \p Fn whose storage ends when \p Fn returns: a local with
/// automatic storage or a by-value parameter, not a reference.
bool isFunctionLocal(const VarDecl *V, const FunctionDecl &Fn) {
  if (!V || V->getType()->isReferenceType() || !V->hasLocalStorage())
    return false;
  const auto *Owner = dyn_cast_or_null<FunctionDecl>(V->getDeclContext());
  return Owner && Owner->getCanonicalDecl() == Fn.getCanonicalDecl();
}

bool matOwnsPixels(const Expr *Init, const FunctionDecl &Fn, unsigned Depth);

/// A local cv::Mat owns its pixels when every value it is given does (an
/// image read or decoded by OpenCV, a clone, a Mat allocated by size, another
/// such local): not a shallow copy of a Mat the caller or an object keeps,
/// nor a region of one.
bool matLocalOwnsPixels(const VarDecl &V, const FunctionDecl &Fn,
                        unsigned Depth) {
  if (Depth > 4 || !isFunctionLocal(&V, Fn) || isa<ParmVarDecl>(V))
    return false;
  if (V.getInit() && !matOwnsPixels(V.getInit(), Fn, Depth + 1))
    return false;
  bool Owns = true;
  forEachStmt(Fn.getBody(), [&](const Stmt &S) {
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S);
    if (!Owns || !Op || Op->getOperator() != OO_Equal || Op->getNumArgs() != 2)
      return;
    const auto *Ref =
        dyn_cast<DeclRefExpr>(Op->getArg(0)->IgnoreParenImpCasts());
    if (Ref && Ref->getDecl() == &V &&
        !matOwnsPixels(Op->getArg(1), Fn, Depth + 1))
      Owns = false;
  });
  return Owns;
}

bool matOwnsPixels(const Expr *Init, const FunctionDecl &Fn, unsigned Depth) {
  const Expr *E = ignoreWrappers(Init);
  if (!E)
    return false;
  if (const Expr *Moved = movedFrom(E))
    E = ignoreWrappers(Moved);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    return V && matLocalOwnsPixels(*V, Fn, Depth);
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (Construct->isElidable() || (Ctor && Ctor->isCopyOrMoveConstructor()))
      return Construct->getNumArgs() >= 1 &&
             matOwnsPixels(Construct->getArg(0), Fn, Depth);
    // Mat(rows, cols, type) allocates; Mat(rows, cols, type, data) wraps
    // memory and Mat(m, roi) shares m's.
    for (const Expr *Arg : Construct->arguments())
      if (Arg->getType()->isPointerType() ||
          holdingOf(Arg->getType().getNonReferenceType()) ==
              Holding::SharedHandle)
        return false;
    return true;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = Member->getMethodDecl();
    return M && M->getIdentifier() && M->getName() == "clone";
  }
  if (isa<CXXOperatorCallExpr>(E))
    return false; // m(roi), m.row(i) alike: a region of another Mat.
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // OpenCV's own functions return fresh images (imread, imdecode,
    // Mat::zeros); a user's function may return a handle it keeps.
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD)
      return false;
    const auto *M = dyn_cast<CXXMethodDecl>(FD);
    return (!M || M->isStatic()) && inTopNamespace(FD, "cv");
  }
  return false;
}

/// The memory an object expression holds, if it ends with \p Fn (or is a
/// temporary).
std::optional<ShortLivedMemory> objectMemory(const Expr *Object,
                                             const FunctionDecl &Fn,
                                             bool Params = false) {
  if (!Object)
    return std::nullopt;
  const Expr *Stripped = ignoreWrappers(Object);
  if (Params) {
    // The memory of an object the caller handed over by reference.
    const auto *Ref = dyn_cast<DeclRefExpr>(Stripped);
    const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
    if (!P || !P->getType()->isLValueReferenceType() ||
        P->getDeclContext() != &Fn)
      return std::nullopt;
    switch (holdingOf(P->getType().getNonReferenceType())) {
    case Holding::Owns:
    case Holding::SharedHandle:
      return ShortLivedMemory{P};
    case Holding::None:
      return std::nullopt;
    }
    return std::nullopt;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Stripped)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V || !isFunctionLocal(V, Fn))
      return std::nullopt;
    switch (holdingOf(V->getType())) {
    case Holding::Owns:
      return ShortLivedMemory{V};
    case Holding::SharedHandle:
      if (matLocalOwnsPixels(*V, Fn, 0))
        return ShortLivedMemory{V};
      return std::nullopt;
    case Holding::None:
      return std::nullopt;
    }
  }
  // A temporary: `make_buffer().data()`, `cv::imread(path).data`.
  if (Stripped->isPRValue() && !Stripped->isTypeDependent()) {
    switch (holdingOf(Stripped->getType())) {
    case Holding::Owns:
      return ShortLivedMemory{nullptr};
    case Holding::SharedHandle:
      if (matOwnsPixels(Stripped, Fn, 0))
        return ShortLivedMemory{nullptr};
      return std::nullopt;
    case Holding::None:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// The object and member name of a call `obj.name(...)`, resolved or still
/// dependent.
std::pair<const Expr *, StringRef> memberCallOf(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  if (!Call)
    return {nullptr, {}};
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
      return {Op->getArg(0), "operator[]"};
    return {nullptr, {}};
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (M && M->getIdentifier())
      return {MC->getImplicitObjectArgument(), M->getName()};
    return {nullptr, {}};
  }
  StringRef Name = dependentCalleeName(*Call);
  if (Name.empty())
    return {nullptr, {}};
  return {callObject(*Call), Name};
}

/// The local variable an explicit release ends the memory of: `delete[] p`,
/// `delete p`, `free(p)` / `std::free(p)` of a pointer, `up.reset()` of a
/// std::unique_ptr (the memory it owned is freed there). Null otherwise.
const VarDecl *releasedOwner(const Stmt &S) {
  const Expr *Released = nullptr;
  if (const auto *Delete = dyn_cast<CXXDeleteExpr>(&S)) {
    Released = Delete->getArgument();
  } else if (const auto *Call = dyn_cast<CallExpr>(&S)) {
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      const auto *Record = M ? M->getParent() : nullptr;
      if (M && M->getIdentifier() && M->getName() == "reset" && Record &&
          Record->isInStdNamespace() && Record->getIdentifier() &&
          Record->getName() == "unique_ptr")
        Released = Member->getImplicitObjectArgument();
    } else if (const FunctionDecl *F = Call->getDirectCallee();
               F && F->getIdentifier() && F->getName() == "free" &&
               Call->getNumArgs() == 1 &&
               (F->isInStdNamespace() || F->getDeclContext()->isTranslationUnit() ||
                F->getDeclContext()->isExternCContext())) {
      Released = Call->getArg(0);
    }
  }
  if (!Released)
    return nullptr;
  const auto *Ref = dyn_cast<DeclRefExpr>(Released->IgnoreParenImpCasts());
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// Heap memory the function allocates into a local pointer and releases
/// itself: `float *p = new float[n]; ... delete[] p;`, `malloc` / `free`.
bool releasedHeapPointer(const VarDecl &V, const FunctionDecl &Fn) {
  const Expr *Init = V.getInit() ? V.getInit()->IgnoreParenCasts() : nullptr;
  bool Allocated = isa_and_nonnull<CXXNewExpr>(Init);
  if (const auto *Call = dyn_cast_or_null<CallExpr>(Init))
    if (const FunctionDecl *F = Call->getDirectCallee();
        F && F->getIdentifier() &&
        llvm::is_contained({"malloc", "calloc", "aligned_alloc"}, F->getName()))
      Allocated = true;
  if (!Allocated || !Fn.getBody())
    return false;
  bool Released = false;
  forEachStmt(Fn.getBody(), [&](const Stmt &S) {
    if (!Released && releasedOwner(S) == &V)
      Released = true;
  });
  return Released;
}

std::optional<ShortLivedMemory>
pointerMemory(const Expr *P, const FunctionDecl &Fn, unsigned Depth,
              bool Params = false) {
  if (!P || Depth > 3)
    return std::nullopt;
  P = ignoreWrappers(P)->IgnoreParenCasts();
  P = ignoreWrappers(P);
  // `&v[0]`, `&v.front()`, `&x`, `&m.at<float>(0)`, `&*v.begin()` (not).
  if (const auto *Unary = dyn_cast<UnaryOperator>(P)) {
    if (Unary->getOpcode() != UO_AddrOf)
      return std::nullopt;
    const Expr *Element = ignoreWrappers(Unary->getSubExpr());
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(Element)) {
      const Expr *Base = ignoreWrappers(Subscript->getBase());
      if (Base->getType()->isPointerType())
        return pointerMemory(Base, Fn, Depth + 1, Params);
      return objectMemory(Base, Fn, Params);
    }
    if (isa<DeclRefExpr>(Element) && Element->getType()->isArithmeticType())
      return objectMemory(Element, Fn, Params);
    auto [Object, Name] = memberCallOf(Element);
    if (Object && (Name == "operator[]" || Name == "at" || Name == "front" ||
                   Name == "back"))
      return objectMemory(Object, Fn, Params);
    return std::nullopt;
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(P)) {
    if (!Binary->isAdditiveOp())
      return std::nullopt;
    if (Binary->getLHS()->getType()->isPointerType())
      return pointerMemory(Binary->getLHS(), Fn, Depth + 1, Params);
    if (Binary->getRHS()->getType()->isPointerType())
      return pointerMemory(Binary->getRHS(), Fn, Depth + 1, Params);
    return std::nullopt;
  }
  // `m.data` of a cv::Mat.
  if (const auto *Member = dyn_cast<MemberExpr>(P)) {
    const ValueDecl *Field = Member->getMemberDecl();
    if (!Member->isArrow() && Field->getIdentifier() &&
        Field->getName() == "data" &&
        holdingOf(Member->getBase()->getType()) == Holding::SharedHandle)
      return objectMemory(Member->getBase(), Fn, Params);
    return std::nullopt;
  }
  if (const auto *Member = dyn_cast<CXXDependentScopeMemberExpr>(P)) {
    if (!Member->isArrow() && !Member->isImplicitAccess() &&
        identifierOf(Member->getMember()) == "data" &&
        holdingOf(Member->getBase()->getType()) == Holding::SharedHandle)
      return objectMemory(Member->getBase(), Fn, Params);
    return std::nullopt;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(P)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    // A pointer the caller handed over: the memory it points to is the
    // caller's.
    if (Params && V && isa<ParmVarDecl>(V) && V->getType()->isPointerType() &&
        V->getDeclContext() == &Fn)
      return ShortLivedMemory{V};
    if (!V || !isFunctionLocal(V, Fn))
      return std::nullopt;
    if (V->getType()->isConstantArrayType())
      return objectMemory(Ref, Fn, Params);
    // Heap memory the function releases itself: it ends at the release.
    if (V->getType()->isPointerType() && !isa<ParmVarDecl>(V) &&
        releasedHeapPointer(*V, Fn))
      return ShortLivedMemory{V, /*Released=*/true};
    // A local pointer initialised with such memory.
    if (V->getType()->isPointerType() && !isa<ParmVarDecl>(V) && V->getInit())
      return pointerMemory(V->getInit(), Fn, Depth + 1, Params);
    return std::nullopt;
  }
  auto [Object, Name] = memberCallOf(P);
  if (!Object)
    return std::nullopt;
  const Holding H = holdingOf(ignoreWrappers(Object)->getType());
  if ((H == Holding::Owns && (Name == "data" || Name == "get")) ||
      (H == Holding::SharedHandle && Name == "ptr"))
    return objectMemory(Object, Fn, Params);
  return std::nullopt;
}

// --- The dataflow
// --------------------------------------------------------------

struct Value {
  llvm::SmallBitVector Wraps;
  /// Every wrapping call's memory is seen through a strided view: a
  /// contiguous() or reshape() of it copies.
  bool Strided = false;

  bool empty() const { return Wraps.none(); }
  void join(const Value &Other) {
    if (Other.empty())
      return;
    if (empty()) {
      *this = Other;
      return;
    }
    Wraps |= Other.Wraps;
    Strided = Strided && Other.Strided;
  }
  bool operator==(const Value &O) const {
    return Wraps == O.Wraps && Strided == O.Strided;
  }
};

/// A field or keyed element of a local (AccessPath::key()): its own value,
/// strongly updated, while the local as a whole keeps the join (weak).
using Slot = std::pair<const VarDecl *, std::string>;

struct State {
  std::map<const VarDecl *, Value> Vars;
  std::map<Slot, Value> Slots;
  llvm::SmallBitVector Ended;
  bool Reached = false;

  bool operator==(const State &O) const {
    return Reached == O.Reached && Ended == O.Ended && Vars == O.Vars &&
           Slots == O.Slots;
  }
  void join(const State &Other) {
    if (!Other.Reached)
      return;
    if (!Reached) {
      *this = Other;
      return;
    }
    Ended |= Other.Ended;
    for (const auto &[V, Val] : Other.Vars)
      Vars[V].join(Val);
    // A slot known on one path only: read the whole there (it holds the
    // join of everything written into it).
    for (auto It = Slots.begin(); It != Slots.end();) {
      auto O = Other.Slots.find(It->first);
      if (O == Other.Slots.end()) {
        It = Slots.erase(It);
        continue;
      }
      It->second.join(O->second);
      ++It;
    }
  }
  void forgetSlots(const VarDecl *Root) {
    for (auto It = Slots.begin(); It != Slots.end();)
      It = It->first.first == Root ? Slots.erase(It) : std::next(It);
  }
};

struct WrapInfo {
  const CallExpr *Call;
  ShortLivedMemory Memory;
  std::optional<std::string> ScalarType;
  bool Strided;
  /// A call of a helper that wraps its argument's memory: where the tensor
  /// goes (-1: the result; else the reference parameter it is stored into),
  /// the helper and its wrapping call.
  int Into = -1;
  const FunctionDecl *Helper = nullptr;
  const CallExpr *Inner = nullptr;
};

/// Helpers whose summary is being computed (recursion), and how deep.
llvm::SmallPtrSet<const FunctionDecl *, 4> &summarising() {
  static llvm::SmallPtrSet<const FunctionDecl *, 4> InProgress;
  return InProgress;
}

class MemoryFlow {
public:
  MemoryFlow(const FunctionDecl &Fn, ASTContext &Ctx, bool Params = false)
      : Fn(Fn), Ctx(Ctx), Params(Params) {}
  std::vector<MemoryEscape> run();

private:
  Value makeValue() const {
    Value V;
    V.Wraps.resize(Wraps.size());
    return V;
  }
  bool isHolder(const VarDecl *V) const { return isFunctionLocal(V, Fn); }
  /// The slot \p E denotes: a field or tuple element of a local, or an
  /// element of a local container accessed only by literal keys.
  std::optional<Slot> slotOf(const Expr *E) const;
  mutable llvm::DenseMap<const VarDecl *, bool> KeyedOnly;
  Value eval(const Expr *E);
  /// A read at \p At of what \p Holder holds: a read after the end of the
  /// memory it may share is an escape.
  Value read(const Value &Held, const Expr *At, const ValueDecl *Holder);
  Value evalCall(const CallExpr &Call);
  Value evalChildren(const Stmt *S);
  void store(const Expr *LHS, const Value &Val, const Stmt *At, bool Strong);
  void escape(const Value &Val, MemoryEscapeKind Kind, const Stmt *At,
              const ValueDecl *Target);
  void visitRoot(const Stmt &Root);
  void collectHelperWraps(const CallExpr &Call);
  /// A call of a function of the user's that assigns a non-const reference
  /// parameter: the local it is given no longer holds what it held.
  void killAssignedArguments(const CallExpr &Call);
  bool conversionKeepsStorage(const LibTorchCall &C, const Value &Operand);

  const FunctionDecl &Fn;
  ASTContext &Ctx;
  /// Wraps over the memory of reference and pointer parameters instead of
  /// the function's own (the summary a caller applies).
  const bool Params;
  std::vector<WrapInfo> Wraps;
  llvm::DenseMap<const CallExpr *, unsigned> WrapIndex;
  llvm::DenseMap<const CallExpr *, llvm::SmallVector<unsigned, 1>> HelperWraps;
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<unsigned, 2>> OwnedBy;
  State S;
  /// Wrapping calls over temporaries evaluated in the current full expression.
  llvm::SmallVector<unsigned, 2> TemporariesHere;
  std::set<std::tuple<const CallExpr *, const Stmt *, int>> Seen;
  std::vector<MemoryEscape> Escapes;
};

void MemoryFlow::escape(const Value &Val, MemoryEscapeKind Kind, const Stmt *At,
                        const ValueDecl *Target) {
  for (int I = Val.Wraps.find_first(); I >= 0; I = Val.Wraps.find_next(I)) {
    // Heap memory released by hand outlives the function unless it was
    // released on the way here: returning or storing it is no escape.
    if (Wraps[I].Memory.Released && Kind != MemoryEscapeKind::ReadAfterEnd &&
        !(static_cast<unsigned>(I) < S.Ended.size() && S.Ended.test(I)))
      continue;
    if (!Seen.insert({Wraps[I].Call, At, static_cast<int>(Kind)}).second)
      continue;
    MemoryEscape E;
    E.Wrap = Wraps[I].Call;
    E.Memory = Wraps[I].Memory;
    E.Kind = Kind;
    E.At = At;
    E.Target = Target;
    E.OnlyWrap = Val.Wraps.count() == 1;
    E.Helper = Wraps[I].Helper;
    E.Inner = Wraps[I].Inner;
    Escapes.push_back(E);
  }
}

void MemoryFlow::collectHelperWraps(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || isa<CXXMethodDecl>(Callee))
    return;
  const FunctionDecl *Def = Callee->getDefinition();
  if (!Def || Def == &Fn || !Def->getBody() || Def->isTemplated() ||
      !isInUserCode(Def->getLocation(), Ctx.getSourceManager()))
    return;
  for (const ArgumentWrap &W : argumentWraps(*Def, Ctx)) {
    const Expr *Arg = writtenArg(Call, W.FromParam);
    if (!Arg || (W.Into >= 0 && !writtenArg(Call, W.Into)))
      continue;
    const bool Pointer =
        Def->getParamDecl(W.FromParam)->getType()->isPointerType();
    std::optional<ShortLivedMemory> Memory =
        Pointer ? pointerMemory(Arg, Fn, 0, Params)
                : objectMemory(Arg, Fn, Params);
    if (!Memory)
      continue;
    const unsigned Index = Wraps.size();
    WrapInfo Info{&Call, *Memory, std::nullopt, false};
    Info.Into = W.Into;
    Info.Helper = Def;
    Info.Inner = W.Wrap;
    // The dtype the helper's from_blob gives the tensor (a same-dtype
    // conversion in the caller shares the memory).
    if (std::optional<LibTorchCall> Inner = asMemoryWrappingCall(W.Wrap))
      Info.ScalarType = wrappedScalarType(*Inner, Ctx);
    Wraps.push_back(Info);
    HelperWraps[&Call].push_back(Index);
    if (Memory->Owner)
      OwnedBy[Memory->Owner].push_back(Index);
  }
}

Value MemoryFlow::evalChildren(const Stmt *St) {
  for (const Stmt *Child : St->children())
    if (const auto *E = dyn_cast_or_null<Expr>(Child))
      eval(E);
  return makeValue();
}

bool MemoryFlow::conversionKeepsStorage(const LibTorchCall &C,
                                        const Value &Operand) {
  unsigned Bools = 0;
  for (unsigned I = C.Object ? 0 : 1; I < C.Args.size(); ++I) {
    const Expr *Written = stripImplicit(C.Args[I]);
    if (std::optional<std::string> Type = scalarTypeConstant(Written, Ctx)) {
      // The dtype every wrapped memory already has: no copy.
      for (int W = Operand.Wraps.find_first(); W >= 0;
           W = Operand.Wraps.find_next(W))
        if (!Wraps[W].ScalarType || *Wraps[W].ScalarType != *Type)
          return false;
      continue;
    }
    if (isCpuDeviceExpr(Written, Ctx))
      continue;
    if (Written->getType()->isBooleanType()) {
      // to(..., non_blocking, copy): non_blocking copies nothing on the host;
      // copy must be a constant false.
      if (Bools++ == 0)
        continue;
      bool Copy = true;
      if (!Written->isValueDependent() &&
          Written->EvaluateAsBooleanCondition(Copy, Ctx) && !Copy)
        continue;
      return false;
    }
    return false; // A device, a dtype, options or a memory format.
  }
  return true;
}

Value MemoryFlow::evalCall(const CallExpr &Call) {
  if (const auto It = WrapIndex.find(&Call); It != WrapIndex.end()) {
    evalChildren(&Call);
    Value V = makeValue();
    V.Wraps.set(It->second);
    V.Strided = Wraps[It->second].Strided;
    S.Ended.reset(It->second); // A new instance of the memory.
    if (!Wraps[It->second].Memory.Owner)
      TemporariesHere.push_back(It->second);
    return V;
  }
  if (const auto It = HelperWraps.find(&Call); It != HelperWraps.end()) {
    // The out-parameters a wrap is stored into are written, not read.
    for (unsigned I = 0; I < Call.getNumArgs(); ++I)
      if (llvm::none_of(It->second, [&](unsigned W) {
            return Wraps[W].Into == static_cast<int>(I);
          }))
        eval(Call.getArg(I));
    killAssignedArguments(Call);
    Value Result = makeValue();
    for (unsigned I : It->second) {
      S.Ended.reset(I);
      if (!Wraps[I].Memory.Owner)
        TemporariesHere.push_back(I);
      if (Wraps[I].Into < 0) {
        Result.Wraps.set(I);
        continue;
      }
      Value Out = makeValue();
      Out.Wraps.set(I);
      if (const Expr *Arg = writtenArg(Call, Wraps[I].Into))
        store(Arg, Out, &Call, /*Strong=*/true);
    }
    return Result;
  }
  if (const Expr *Moved = movedFrom(&Call))
    return eval(Moved);

  // Assignment through an overloaded operator.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      Value R = eval(Op->getArg(1));
      store(Op->getArg(0), R, &Call, /*Strong=*/true);
      return R;
    }
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
      // t[i] is a view of t; v[i] of a container is one of its elements.
      Value Object = eval(Op->getArg(0));
      eval(Op->getArg(1));
      if (isTensorType(Op->getArg(0)->getType()) ||
          Call.getType()->isReferenceType() || Call.isLValue())
        return Object;
      return makeValue();
    }
    return evalChildren(&Call);
  }

  // Insertion into a container: the container holds the value.
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
      Member && isContainerInsertion(*Member)) {
    Value Inserted = makeValue();
    for (const Expr *Arg : Call.arguments())
      Inserted.join(eval(Arg));
    store(Member->getImplicitObjectArgument(), Inserted, &Call,
          /*Strong=*/false);
    return makeValue();
  }
  if (StringRef Name = dependentCalleeName(Call);
      !Name.empty() && callObject(Call) &&
      llvm::is_contained({"push_back", "emplace_back", "insert", "emplace",
                          "push_front", "emplace_front", "push"},
                         Name) &&
      !asLibTorchCall(&Call)) {
    Value Inserted = makeValue();
    for (const Expr *Arg : Call.arguments())
      Inserted.join(eval(Arg));
    store(callObject(Call), Inserted, &Call, /*Strong=*/false);
    return makeValue();
  }

  if (std::optional<LibTorchCall> C = asLibTorchCall(&Call)) {
    const Expr *Operand = operandOf(*C);
    Value O = Operand ? eval(Operand) : makeValue();
    for (const Expr *Arg : C->Args)
      if (Arg != Operand)
        eval(Arg);
    if (O.empty())
      return O;
    if (C->is(op::InPlace))
      return O;
    if (C->is(op::Converts))
      return conversionKeepsStorage(*C, O) ? O : makeValue();
    if (C->is(op::CopiesIfStrided))
      return O.Strided ? makeValue() : O;
    if (C->is(op::StridedView)) {
      O.Strided = true;
      return O;
    }
    if (C->is(op::SharesStorage))
      return O;
    return makeValue();
  }

  // An element of a standard container (v.front(), v.at(i), v.back()).
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    const Expr *Object = Member->getImplicitObjectArgument();
    const CXXMethodDecl *M = Member->getMethodDecl();
    Value V = Object ? eval(Object) : makeValue();
    for (const Expr *Arg : Call.arguments())
      eval(Arg);
    if (M && Call.getType()->isReferenceType() == false && !Call.isLValue())
      return makeValue();
    if (M && inTopNamespace(M->getParent(), "std"))
      return V;
    return makeValue();
  }
  Value Result = evalChildren(&Call);
  killAssignedArguments(Call);
  return Result;
}

void MemoryFlow::killAssignedArguments(const CallExpr &Call) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
  if (!Def || !Def->getBody() || isa<CXXMethodDecl>(Def) ||
      !isInUserCode(Def->getLocation(), Ctx.getSourceManager()))
    return;
  for (unsigned I = 0; I < Def->getNumParams() && I < Call.getNumArgs(); ++I) {
    const ParmVarDecl *P = Def->getParamDecl(I);
    if (!P->getType()->isLValueReferenceType() ||
        P->getType().getNonReferenceType().isConstQualified())
      continue;
    bool Assigned = false;
    forEachStmt(Def->getBody(), [&](const Stmt &St) {
      const Expr *LHS = nullptr;
      if (const auto *BO = dyn_cast<BinaryOperator>(&St);
          BO && BO->isAssignmentOp())
        LHS = BO->getLHS();
      else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&St);
               Op && Op->isAssignmentOp() && Op->getNumArgs() == 2)
        LHS = Op->getArg(0);
      const auto *Ref =
          LHS ? dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts()) : nullptr;
      Assigned = Assigned || (Ref && Ref->getDecl() == P);
    });
    // The helper gives the argument a new value: what it held is unknown
    // (a copy, or the memory the helper wraps, stored after this).
    const auto *Ref = dyn_cast<DeclRefExpr>(ignoreWrappers(Call.getArg(I)));
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (Assigned && V && S.Vars.count(V))
      S.Vars[V] = makeValue();
  }
}

Value MemoryFlow::read(const Value &Held, const Expr *At,
                       const ValueDecl *Holder) {
  llvm::SmallBitVector Dangling = Held.Wraps;
  Dangling &= S.Ended;
  if (Dangling.any()) {
    Value D = makeValue();
    D.Wraps = Dangling;
    escape(D, MemoryEscapeKind::ReadAfterEnd, At, Holder);
  }
  return Held;
}

std::optional<Slot> MemoryFlow::slotOf(const Expr *E) const {
  std::optional<AccessPath> P = E ? accessPathOf(*E) : std::nullopt;
  if (!P || !P->Root || P->RootIsThis || P->Steps.empty() ||
      !isFunctionLocal(P->Root, Fn) || P->Root->getType()->isReferenceType())
    return std::nullopt;
  if (!P->isStrong()) {
    if (!P->isKeyed())
      return std::nullopt;
    auto [It, Inserted] = KeyedOnly.try_emplace(P->Root, false);
    if (Inserted)
      It->second = accessedByLiteralKeysOnly(*P->Root, Fn);
    if (!It->second)
      return std::nullopt;
  }
  return Slot{P->Root, P->stepsKey()};
}

Value MemoryFlow::eval(const Expr *E) {
  if (!E)
    return makeValue();
  E = E->IgnoreParens();
  if (const auto *C = dyn_cast<ExprWithCleanups>(E))
    return eval(C->getSubExpr());
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return eval(M->getSubExpr());
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    return eval(B->getSubExpr());
  if (const auto *Cast = dyn_cast<CastExpr>(E))
    return eval(Cast->getSubExpr());
  // A field or keyed element written as a whole here: its own value.
  if (!isa<DeclRefExpr>(E) && !S.Slots.empty())
    if (std::optional<Slot> At = slotOf(E))
      if (auto It = S.Slots.find(*At); It != S.Slots.end())
        return read(It->second, E, At->first);

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    auto It = V ? S.Vars.find(V) : S.Vars.end();
    if (It == S.Vars.end())
      return makeValue();
    return read(It->second, Ref, V);
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(E)) {
    // A lambda holds what it captures, by copy or by reference.
    Value Captured = makeValue();
    for (const Expr *Init : Lambda->capture_inits())
      if (Init)
        Captured.join(eval(Init));
    Captured.Strided = false;
    return Captured;
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    if (Binary->getOpcode() == BO_Assign) {
      Value R = eval(Binary->getRHS());
      store(Binary->getLHS(), R, Binary, /*Strong=*/true);
      return R;
    }
    if (Binary->getOpcode() == BO_Comma) {
      eval(Binary->getLHS());
      return eval(Binary->getRHS());
    }
    return evalChildren(E);
  }
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E)) {
    eval(Cond->getCond());
    Value V = eval(Cond->getTrueExpr());
    V.join(eval(Cond->getFalseExpr()));
    return V;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    // A field of a local object that holds the tensor.
    return eval(Member->getBase());
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (Construct->getNumArgs() >= 1 &&
        (Construct->isElidable() || (Ctor && Ctor->isCopyOrMoveConstructor())))
      return eval(Construct->getArg(0));
    // An object built from the tensor holds it (torch::data::Example<>).
    Value Held = makeValue();
    for (const Expr *Arg : Construct->arguments())
      Held.join(eval(Arg));
    Held.Strided = false;
    return Held;
  }
  // `std::vector<torch::Tensor> v{t}`, a map's `{{"k", t}}`: the list the
  // container is built from holds the tensors.
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
    return eval(List->getSubExpr());
  if (isa<InitListExpr, CXXParenListInitExpr, ParenListExpr,
          CXXUnresolvedConstructExpr>(E)) {
    Value Held = makeValue();
    for (const Stmt *Child : E->children())
      if (const auto *Arg = dyn_cast_or_null<Expr>(Child))
        Held.join(eval(Arg));
    Held.Strided = false;
    return Held;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return evalCall(*Call);
  return evalChildren(E);
}

void MemoryFlow::store(const Expr *LHS, const Value &Val, const Stmt *At,
                       bool Strong) {
  const Expr *L = ignoreWrappers(LHS);
  // `t_box[0] = t_box[0].to(torch::kFloat)`: the slot holds the new value
  // only; the whole (below) joins it.
  if (Strong && !isa<DeclRefExpr>(L))
    if (std::optional<Slot> Into = slotOf(L))
      S.Slots[*Into] = Val;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(L)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (V && isHolder(V)) {
      Value &Whole = S.Vars.try_emplace(V, makeValue()).first->second;
      if (Strong) {
        Whole = Val;
        S.forgetSlots(V);
      } else {
        Whole.join(Val);
      }
      return;
    }
    if (!Val.empty() && V)
      escape(Val, MemoryEscapeKind::StoredOutside, At, V);
    return;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(L)) {
    const Expr *Base = ignoreWrappers(Member->getBase());
    if (!Member->isArrow() && isa<DeclRefExpr>(Base)) {
      const auto *V = dyn_cast<VarDecl>(cast<DeclRefExpr>(Base)->getDecl());
      if (V && isHolder(V)) {
        store(Base, Val, At, /*Strong=*/false);
        return;
      }
    }
    eval(Base);
    if (!Val.empty())
      escape(Val, MemoryEscapeKind::StoredOutside, At, Member->getMemberDecl());
    return;
  }
  if (const auto *Unary = dyn_cast<UnaryOperator>(L);
      Unary && Unary->getOpcode() == UO_Deref) {
    eval(Unary->getSubExpr());
    if (!Val.empty())
      escape(Val, MemoryEscapeKind::StoredOutside, At,
             namedEntity(*Unary->getSubExpr()));
    return;
  }
  if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(L)) {
    eval(Subscript->getIdx());
    store(Subscript->getBase(), Val, At, /*Strong=*/false);
    return;
  }
  if (const auto *Call = dyn_cast<CallExpr>(L)) {
    // `t[0] = x` writes into the tensor: it stores no handle.
    if (isTensorType(L->getType()) && L->isPRValue()) {
      eval(L);
      return;
    }
    auto [Object, Name] = memberCallOf(Call);
    if (Object && !isTensorType(Object->getType()) &&
        (Name == "operator[]" || Name == "at" || Name == "front" ||
         Name == "back")) {
      for (const Expr *Arg : Call->arguments())
        if (Arg != Object)
          eval(Arg);
      store(Object, Val, At, /*Strong=*/false);
      return;
    }
  }
  // Unknown target: stay silent.
  eval(L);
}

void MemoryFlow::visitRoot(const Stmt &Root) {
  TemporariesHere.clear();
  if (const auto *DS = dyn_cast<DeclStmt>(&Root)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !V->getInit())
        continue;
      Value R = eval(V->getInit());
      S.forgetSlots(V);
      if (isFunctionLocal(V, Fn))
        S.Vars[V] = R;
      else if (V->getType()->isReferenceType() && V->hasLocalStorage())
        S.Vars[V] = R; // A local reference: reading it reads the value.
      else if (!R.empty())
        escape(R, MemoryEscapeKind::StoredOutside, DS, V);
    }
  } else if (const auto *Return = dyn_cast<ReturnStmt>(&Root)) {
    if (const Expr *Value = Return->getRetValue()) {
      auto R = eval(Value);
      if (!R.empty())
        escape(R, MemoryEscapeKind::Returned, Value, nullptr);
    }
  } else if (const auto *E = dyn_cast<Expr>(&Root)) {
    eval(E);
  }
  for (unsigned I : TemporariesHere)
    S.Ended.set(I);
}

std::vector<MemoryEscape> MemoryFlow::run() {
  const Stmt *Body = Fn.getBody();
  if (!Body || Fn.isInvalidDecl())
    return {};
  // The wrapping calls of the function's own body (not of nested lambdas),
  // over memory that ends with the function.
  std::function<void(const Stmt *)> Collect = [&](const Stmt *St) {
    if (!St)
      return;
    if (const auto *Lambda = dyn_cast<LambdaExpr>(St)) {
      for (const Expr *Init : Lambda->capture_inits())
        Collect(Init);
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(St))
      collectHelperWraps(*Call);
    if (const auto *Call = dyn_cast<CallExpr>(St))
      if (std::optional<LibTorchCall> Wrap = asMemoryWrappingCall(Call))
        if (!passesDeleter(*Wrap))
          if (std::optional<ShortLivedMemory> Memory =
                  pointerMemory(Wrap->Args[0], Fn, 0, Params)) {
            // Strides written: the tensor may be strided, or not.
            bool Strided = false;
            if (Wrap->Args.size() >= 3) {
              const FunctionDecl *Callee = Call->getDirectCallee();
              Strided =
                  Callee
                      ? Callee->getNumParams() >= 3 &&
                            Callee->getParamDecl(2)->getName() == "strides"
                      : isa<InitListExpr>(Wrap->Args[2]->IgnoreParenImpCasts());
            }
            WrapIndex[Call] = Wraps.size();
            Wraps.push_back(
                {Call, *Memory, wrappedScalarType(*Wrap, Ctx), Strided});
            if (Memory->Owner)
              OwnedBy[Memory->Owner].push_back(Wraps.size() - 1);
          }
    for (const Stmt *Child : St->children())
      Collect(Child);
  };
  Collect(Body);
  if (Wraps.empty())
    return {};

  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  Options.AddImplicitDtors = false;
  Options.AddTemporaryDtors = false;
  Options.AddInitializers = false;
  Options.AddLifetime = true;
  std::unique_ptr<CFG> Graph =
      CFG::buildCFG(&Fn, const_cast<Stmt *>(Body), &Ctx, Options);
  if (!Graph)
    return {};

  ParentMap Parents(const_cast<Stmt *>(Body));
  llvm::DenseMap<const DeclStmt *, const DeclStmt *> Synthetic;
  for (const auto &[SyntheticDS, Original] : Graph->synthetic_stmts())
    Synthetic[SyntheticDS] = Original;
  auto RootOf = [&](const Stmt *St) {
    if (const auto *DS = dyn_cast<DeclStmt>(St))
      if (const DeclStmt *Original = Synthetic.lookup(DS))
        St = Original;
    while (const Stmt *Parent = Parents.getParent(St)) {
      if (isa<Expr>(Parent)) {
        St = Parent;
        continue;
      }
      if (isa<DeclStmt>(Parent) || isa<ReturnStmt>(Parent))
        St = Parent;
      break;
    }
    return St;
  };

  PostOrderCFGView Order(Graph.get());
  const unsigned NumBlocks = Graph->getNumBlockIDs();
  using Step = llvm::PointerUnion<const Stmt *, const VarDecl *>;
  std::vector<llvm::SmallVector<Step, 4>> Steps(NumBlocks);
  llvm::SmallPtrSet<const Stmt *, 32> SeenRoots;
  for (const CFGBlock *Block : Order)
    for (const CFGElement &Element : *Block) {
      if (std::optional<CFGStmt> St = Element.getAs<CFGStmt>()) {
        const Stmt *Root = RootOf(St->getStmt());
        // A lambda's body is a function of its own.
        if (SeenRoots.insert(Root).second)
          Steps[Block->getBlockID()].push_back(Root);
        // An explicit release (`delete[] p`, `free(p)`, `up.reset()`) ends
        // the memory of its owner, as the end of its lifetime does.
        if (const VarDecl *Owner = releasedOwner(*St->getStmt());
            Owner && OwnedBy.count(Owner))
          Steps[Block->getBlockID()].push_back(Owner);
      } else if (std::optional<CFGLifetimeEnds> End =
                     Element.getAs<CFGLifetimeEnds>()) {
        // A pointer to heap memory going out of scope frees nothing.
        auto Owned = OwnedBy.find(End->getVarDecl());
        if (Owned != OwnedBy.end() &&
            llvm::none_of(Owned->second, [&](unsigned I) {
              return Wraps[I].Memory.Released;
            }))
          Steps[Block->getBlockID()].push_back(End->getVarDecl());
      }
    }

  std::vector<std::optional<State>> Out(NumBlocks);
  constexpr unsigned MaxRounds = 12;
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    bool Changed = false;
    for (const CFGBlock *Block : Order) {
      State In;
      In.Ended.resize(Wraps.size());
      if (Block == &Graph->getEntry())
        In.Reached = true;
      for (const CFGBlock *Pred : Block->preds())
        if (Pred && Out[Pred->getBlockID()])
          In.join(*Out[Pred->getBlockID()]);
      if (!In.Reached)
        continue;
      S = std::move(In);
      for (Step Item : Steps[Block->getBlockID()]) {
        if (const auto *Root = Item.dyn_cast<const Stmt *>())
          visitRoot(*Root);
        else
          for (unsigned I : OwnedBy.lookup(Item.get<const VarDecl *>()))
            S.Ended.set(I);
      }
      std::optional<State> &Slot = Out[Block->getBlockID()];
      if (!Slot || !(*Slot == S)) {
        Slot = S;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }

  const SourceManager &SM = Ctx.getSourceManager();
  std::stable_sort(Escapes.begin(), Escapes.end(),
                   [&](const MemoryEscape &A, const MemoryEscape &B) {
                     return SM.isBeforeInTranslationUnit(beginLoc(*A.At),
                                                         beginLoc(*B.At));
                   });
  return Escapes;
}

} // namespace

std::optional<ShortLivedMemory> shortLivedMemoryOf(const Expr *Pointer,
                                                   const FunctionDecl &Fn) {
  return pointerMemory(Pointer, Fn, 0);
}

std::vector<MemoryEscape> findMemoryEscapes(const FunctionDecl &Fn,
                                            ASTContext &Ctx) {
  return MemoryFlow(Fn, Ctx).run();
}

std::vector<ArgumentWrap> argumentWraps(const FunctionDecl &Fn,
                                        ASTContext &Ctx) {
  std::vector<ArgumentWrap> Result;
  auto &InProgress = summarising();
  if (!Fn.getBody() || InProgress.size() >= 3 || !InProgress.insert(&Fn).second)
    return Result;
  for (const MemoryEscape &E : MemoryFlow(Fn, Ctx, /*Params=*/true).run()) {
    const auto *From = dyn_cast_or_null<ParmVarDecl>(E.Memory.Owner);
    if (!From || !E.OnlyWrap)
      continue;
    int Into = -1;
    if (E.Kind == MemoryEscapeKind::StoredOutside) {
      const auto *To = dyn_cast_or_null<ParmVarDecl>(E.Target);
      if (!To || To->getDeclContext() != &Fn ||
          !To->getType()->isLValueReferenceType() ||
          To->getType().getNonReferenceType().isConstQualified())
        continue;
      Into = static_cast<int>(To->getFunctionScopeIndex());
    } else if (E.Kind != MemoryEscapeKind::Returned) {
      continue;
    }
    const CallExpr *Wrap = E.Inner ? E.Inner : E.Wrap;
    const unsigned FromIndex = From->getFunctionScopeIndex();
    if (llvm::none_of(Result, [&](const ArgumentWrap &W) {
          return W.FromParam == FromIndex && W.Into == Into;
        }))
      Result.push_back({FromIndex, Into, Wrap});
  }
  InProgress.erase(&Fn);
  return Result;
}

} // namespace clang::tidy::torch
