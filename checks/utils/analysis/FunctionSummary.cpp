//===--- FunctionSummary.cpp - what a function of the TU does, for callers ===//

#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/ProjectSummaries.h"
#include "utils/analysis/autograd/Builder.h"
#include "utils/ast/ASTUtils.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <functional>
#include <memory>
#include <vector>

namespace clang::tidy::torch {

namespace {

/// Summaries nest as calls do (a summary runs the callee's dataflow, which
/// asks for the summaries of its own callees); deeper chains get none.
constexpr unsigned MaxSummaryDepth = 8;

struct SummaryEntry {
  FunctionSummary Summary;
  bool InProgress = true;
};

using Key = std::pair<const ASTContext *, const FunctionDecl *>;

/// The state of the current translation unit on this thread (see
/// AutogradFunctions in AutogradFlow.h for why thread_local, and when it is
/// emptied).
struct TranslationUnitState {
  llvm::DenseMap<Key, std::unique_ptr<SummaryEntry>> Summaries;
  unsigned Depth = 0;
  const ASTContext *IndexedContext = nullptr;
  llvm::DenseMap<const FunctionDecl *, std::vector<CallSite>> Calls;
  /// Summaries of functions of other translation units, as FunctionSummary.
  llvm::DenseMap<Key, std::unique_ptr<FunctionSummary>> External;
  /// lambdaReadOut per lambda call operator (null while being computed).
  llvm::DenseMap<Key, std::optional<const Expr *>> LambdaReadOuts;
  /// readOutStoredIn: per class of the user's, its host-value members that
  /// a method fills with values read out of a tensor with history, and the
  /// read; computed on first use.
  llvm::DenseMap<const CXXRecordDecl *,
                 llvm::DenseMap<const FieldDecl *, const Expr *>>
      ReadOutMembers;
  bool ComputingReadOutMembers = false;
  /// The values assigned to each callable member anywhere in the
  /// translation unit (`h.forward = [&](...) {...};`), from the call index.
  llvm::DenseMap<const FieldDecl *, llvm::SmallVector<const Expr *, 2>>
      FieldValues;
};

TranslationUnitState &state() {
  thread_local TranslationUnitState State;
  return State;
}

/// The definition of \p F if it is in the user's code.
const FunctionDecl *userDefinition(const FunctionDecl &F,
                                   const SourceManager &SM) {
  const FunctionDecl *Def = F.getDefinition();
  if (!Def || !Def->getBody() || Def->isInvalidDecl())
    return nullptr;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Def);
      Method && Method->getParent()->isLambda())
    return nullptr;
  if (!isInUserCode(SM.getExpansionLoc(Def->getLocation()), SM))
    return nullptr;
  return Def;
}

/// Records the calls in the bodies of the user's functions.
class CallIndexer : public RecursiveASTVisitor<CallIndexer> {
public:
  CallIndexer(const ASTContext &Ctx, TranslationUnitState &State)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), State(State) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) && D->getLocation().isValid() &&
        !isInUserCode(SM.getExpansionLoc(D->getLocation()), SM))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitFunctionDecl(FunctionDecl *F) {
    if (!F->doesThisDeclarationHaveABody())
      return true;
    if (const auto *Method = dyn_cast<CXXMethodDecl>(F);
        Method && Method->getParent()->isLambda())
      return true; // Indexed with the function around the lambda.
    forEachStmt(F->getBody(), [&](const Stmt &S) {
      const auto *Call = dyn_cast<CallExpr>(&S);
      if (!Call)
        return;
      if (const FunctionDecl *Callee = Call->getDirectCallee())
        State.Calls[Callee->getCanonicalDecl()].push_back({Call, F});
      // A lambda called through a std::function (or a container of them):
      // a call site of the lambda too.
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
          Op && Op->getOperator() == OO_Call)
        for (const FunctionDecl *Body : calledBodies(*Call, Ctx))
          if (Body->getCanonicalDecl() !=
              (Call->getDirectCallee()
                   ? Call->getDirectCallee()->getCanonicalDecl()
                   : nullptr))
            State.Calls[Body->getCanonicalDecl()].push_back({Call, F});
      // A callable parameter called (`step(batch)` in `run_epochs(data,
      // step)`): resolved once every call site is known (linkParameterCalls).
      const Expr *Callee = nullptr;
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
          Op && Op->getOperator() == OO_Call && Op->getNumArgs() > 0)
        Callee = Op->getArg(0);
      else if (!isa<CXXOperatorCallExpr, CXXMemberCallExpr>(Call))
        Callee = Call->getCallee();
      if (const auto *Ref =
              dyn_cast_or_null<DeclRefExpr>(Callee ? stripImplicit(Callee) : nullptr))
        if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl()))
          ParamCalls.push_back({Call, F, P});
      // A callable member of any object called (`cfg.validate()`,
      // `cb.on_batch_end(step, loss)`; in a template, with arguments of
      // dependent type, a plain call of the member), and the values
      // assigned to such a member anywhere (`cfg.validate = [&] {...};`).
      if (const auto *Member = dyn_cast_or_null<MemberExpr>(
              Callee ? stripImplicit(Callee) : nullptr))
        if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
          FieldCalls.push_back({Call, F, Field});
      if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(Call);
          Assign && Assign->getOperator() == OO_Equal &&
          Assign->getNumArgs() == 2)
        if (const auto *Member =
                dyn_cast<MemberExpr>(stripImplicit(Assign->getArg(0))))
          if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
            FieldValues[Field].push_back(Assign->getArg(1));
    });
    return true;
  }

  /// A call of a callable member is a call site of each lambda assigned to
  /// that member of any object in the translation unit.
  void linkFieldCalls() {
    for (const FieldCall &FC : FieldCalls) {
      auto It = FieldValues.find(FC.Field);
      if (It == FieldValues.end())
        continue;
      for (const Expr *Value : It->second)
        for (const FunctionDecl *Body : lambdasPassedAs(Value, SM))
          State.Calls[Body->getCanonicalDecl()].push_back({FC.Call, FC.Caller});
    }
  }

  /// A call of a callable parameter is a call site of each lambda that a
  /// call of its function hands over for that parameter (one level: a
  /// caller passing its own parameter on is not followed).
  void linkParameterCalls() {
    for (const ParamCall &PC : ParamCalls) {
      const auto *Owner = dyn_cast<FunctionDecl>(PC.Param->getDeclContext());
      if (!Owner)
        continue;
      // The calls of the function, or of its instantiations when it is a
      // template (`template <class Step> void run(Step step)`).
      std::vector<CallSite> Sites;
      for (const auto &[Callee, Calls] : State.Calls)
        if (Callee == Owner->getCanonicalDecl() ||
            (Callee->getTemplateInstantiationPattern() &&
             Callee->getTemplateInstantiationPattern()->getCanonicalDecl() ==
                 Owner->getCanonicalDecl()))
          Sites.insert(Sites.end(), Calls.begin(), Calls.end());
      for (const CallSite &Site : Sites) {
        const unsigned Index = PC.Param->getFunctionScopeIndex() +
                               (isa<CXXOperatorCallExpr>(Site.Call) ? 1 : 0);
        if (Index >= Site.Call->getNumArgs())
          continue;
        for (const FunctionDecl *Body :
             lambdasPassedAs(Site.Call->getArg(Index), SM))
          State.Calls[Body->getCanonicalDecl()].push_back({PC.Call, PC.Caller});
      }
    }
  }

private:
  struct ParamCall {
    const CallExpr *Call;
    const FunctionDecl *Caller;
    const ParmVarDecl *Param;
  };
  std::vector<ParamCall> ParamCalls;
public:
  /// The values assigned to callable members, once the index is complete.
  llvm::DenseMap<const FieldDecl *, llvm::SmallVector<const Expr *, 2>>
  takeFieldValues() {
    return std::move(FieldValues);
  }

private:
  struct FieldCall {
    const CallExpr *Call;
    const FunctionDecl *Caller;
    const FieldDecl *Field;
  };
  std::vector<FieldCall> FieldCalls;
  llvm::DenseMap<const FieldDecl *, llvm::SmallVector<const Expr *, 2>>
      FieldValues;
  const ASTContext &Ctx;
  const SourceManager &SM;
  TranslationUnitState &State;
};

} // namespace

const FunctionDecl *userCallee(const CallExpr &Call, const ASTContext &Ctx) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  return Callee ? userDefinition(*Callee, Ctx.getSourceManager()) : nullptr;
}

namespace {

/// The lambda an initialiser holds (`[&](...) {...}`, a std::function built
/// from one), when it holds exactly one.
const LambdaExpr *lambdaIn(const Expr *Init) {
  const LambdaExpr *Found = nullptr;
  unsigned Count = 0;
  forEachStmt(Init, [&](const Stmt &S) {
    if (const auto *L = dyn_cast<LambdaExpr>(&S)) {
      Found = L;
      ++Count;
    }
  });
  return Count == 1 ? Found : nullptr;
}

/// True if \p S mentions \p VD.
bool mentions(const Stmt *S, const VarDecl *VD) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt &Child) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&Child))
      Found |= Ref->getDecl() == VD;
  });
  return Found;
}

/// `VD = E` as a whole statement (built-in or overloaded): E.
const Expr *assignedTo(const Stmt *S, const VarDecl *VD) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  if (!E)
    return nullptr;
  E = stripImplicit(E);
  const Expr *L = nullptr, *R = nullptr;
  if (const auto *B = dyn_cast<BinaryOperator>(E);
      B && B->getOpcode() == BO_Assign) {
    L = B->getLHS();
    R = B->getRHS();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
             Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
    L = Op->getArg(0);
    R = Op->getArg(1);
  }
  const auto *Ref =
      dyn_cast_or_null<DeclRefExpr>(L ? stripImplicit(L) : nullptr);
  return Ref && Ref->getDecl() == VD ? R : nullptr;
}

} // namespace

namespace {
llvm::SmallVector<const FunctionDecl *, 2>
lambdasAssignedTo(const FieldDecl &Field, const ASTContext &Ctx);
} // namespace

std::optional<CallBinding> userCallBinding(const CallExpr &Call,
                                           const ASTContext &Ctx) {
  const FunctionDecl *Body = calledBody(Call, Ctx);
  if (!Body || !Body->getBody() || Body->isDependentContext() ||
      isInLibTorchHeader(Body->getLocation(), Ctx.getSourceManager()))
    return std::nullopt;
  const unsigned Shift = isa<CXXOperatorCallExpr>(Call) &&
                                 isa_and_nonnull<CXXMethodDecl>(
                                     Call.getCalleeDecl())
                             ? 1
                             : 0;
  CallBinding B;
  B.Body = Body;
  for (unsigned I = 0;
       I < Body->getNumParams() && I + Shift < Call.getNumArgs(); ++I)
    B.Arguments.emplace_back(Body->getParamDecl(I), Call.getArg(I + Shift));
  return B;
}

const FunctionDecl *calledBody(const CallExpr &Call, const ASTContext &Ctx) {
  if (const FunctionDecl *F = userCallee(Call, Ctx))
    return F;
  const SourceManager &SM = Ctx.getSourceManager();
  auto InUserCode = [&](const FunctionDecl *F) {
    const FunctionDecl *Def = nullptr;
    return F && F->hasBody(Def) && Def->getBody() &&
                   isInUserCode(Def->getLocation(), SM)
               ? Def
               : nullptr;
  };
  // A lambda called directly: its call operator.
  if (const auto *M =
          dyn_cast_or_null<CXXMethodDecl>(Call.getDirectCallee());
      M && M->getParent()->isLambda())
    return InUserCode(M);
  // Through a variable or member holding one (std::function).
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
  if (!Op || Op->getOperator() != OO_Call || Op->getNumArgs() == 0)
    return nullptr;
  const ValueDecl *Holder = namedEntity(*Op->getArg(0));
  const Expr *Init = nullptr;
  if (const auto *VD = dyn_cast_or_null<VarDecl>(Holder))
    Init = VD->getInit();
  else if (const auto *FD = dyn_cast_or_null<FieldDecl>(Holder)) {
    Init = FD->getInClassInitializer();
    // A member assigned one lambda in the translation unit
    // (`harness.forward = [&](...) {...};`) and nothing else.
    if (!Init) {
      llvm::SmallVector<const FunctionDecl *, 2> Assigned =
          lambdasAssignedTo(*FD, Ctx);
      return Assigned.size() == 1 ? Assigned.front() : nullptr;
    }
  }
  const LambdaExpr *L = Init ? lambdaIn(Init) : nullptr;
  return L ? InUserCode(L->getCallOperator()) : nullptr;
}

/// The local container whose element \p E is: `callbacks[i]`,
/// `callbacks.at(i)`, or the variable of a range-for over it
/// (`for (auto &cb : callbacks)`, whose initialiser is `*__begin1`).
static const VarDecl *containerOfElement(const Expr *E) {
  E = stripImplicit(E);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E)) {
    const auto *Loop = dyn_cast<VarDecl>(Ref->getDecl());
    const auto *Star = Loop && Loop->isCXXForRangeDecl() && Loop->getInit()
                           ? dyn_cast_or_null<CXXOperatorCallExpr>(
                                 Loop->getInit()->IgnoreImplicit())
                           : nullptr;
    const auto *BeginRef =
        Star && Star->getOperator() == OO_Star && Star->getNumArgs() == 1
            ? dyn_cast<DeclRefExpr>(Star->getArg(0)->IgnoreImplicit())
            : nullptr;
    const auto *Begin =
        BeginRef ? dyn_cast<VarDecl>(BeginRef->getDecl()) : nullptr;
    const auto *BeginCall = Begin && Begin->getInit()
                                ? dyn_cast_or_null<CXXMemberCallExpr>(
                                        Begin->getInit()->IgnoreImplicit())
                                  : nullptr;
    const auto *RangeRef =
        BeginCall ? dyn_cast<DeclRefExpr>(
                        BeginCall->getImplicitObjectArgument()->IgnoreImplicit())
                  : nullptr;
    const auto *Range =
        RangeRef ? dyn_cast<VarDecl>(RangeRef->getDecl()) : nullptr;
    E = Range && Range->getInit() ? Range->getInit()->IgnoreImplicit() : nullptr;
    const auto *ContainerRef = dyn_cast_or_null<DeclRefExpr>(E);
    return ContainerRef ? dyn_cast<VarDecl>(ContainerRef->getDecl()) : nullptr;
  }
  const Expr *Base = nullptr;
  if (const auto *Sub = dyn_cast_or_null<CXXOperatorCallExpr>(E);
      Sub && Sub->getOperator() == OO_Subscript && Sub->getNumArgs() == 2)
    Base = Sub->getArg(0);
  else if (const auto *At = dyn_cast_or_null<CXXMemberCallExpr>(E);
           At && At->getMethodDecl() && At->getMethodDecl()->getIdentifier() &&
           At->getMethodDecl()->getName() == "at")
    Base = At->getImplicitObjectArgument();
  const auto *BaseRef =
      Base ? dyn_cast<DeclRefExpr>(stripImplicit(Base)) : nullptr;
  return BaseRef ? dyn_cast<VarDecl>(BaseRef->getDecl()) : nullptr;
}

namespace {

/// The call operator of \p L with its body, when it is the user's code.
const FunctionDecl *userLambdaBody(const LambdaExpr *L, const SourceManager &SM) {
  const FunctionDecl *Def = nullptr;
  return L && L->getCallOperator()->hasBody(Def) &&
                 isInUserCode(Def->getLocation(), SM)
             ? Def
             : nullptr;
}

/// The lambda each of \p Values holds (lambdaIn); empty when one holds none
/// of the user's code.
llvm::SmallVector<const FunctionDecl *, 2>
lambdaBodies(llvm::ArrayRef<const Expr *> Values, const SourceManager &SM) {
  llvm::SmallVector<const FunctionDecl *, 2> Bodies;
  for (const Expr *Value : Values) {
    const FunctionDecl *Def = userLambdaBody(lambdaIn(Value), SM);
    if (!Def)
      return {};
    Bodies.push_back(Def);
  }
  return Bodies;
}

/// The lambdas of the user's code a local callable variable \p VD may hold:
/// its initialiser and every value assigned to it, each a lambda (a
/// `std::function` assigned on each path); empty when one is not, or when its
/// address is taken.
llvm::SmallVector<const FunctionDecl *, 2>
bodiesHeldBy(const VarDecl *VD, const SourceManager &SM) {
  const auto *Fn = VD && VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) &&
                           !VD->getType()->isReferenceType()
                       ? dyn_cast_or_null<FunctionDecl>(
                             VD->getParentFunctionOrMethod())
                       : nullptr;
  if (!Fn || !Fn->getBody())
    return {};
  llvm::SmallVector<const Expr *, 2> Values;
  // (`LossFn criterion;`: empty until assigned.)
  const auto *Empty =
      dyn_cast_or_null<CXXConstructExpr>(stripImplicit(VD->getInit()));
  if (VD->getInit() && !(Empty && Empty->getNumArgs() == 0))
    Values.push_back(VD->getInit());
  bool Unknown = false;
  forEachStmt(Fn->getBody(), [&](const Stmt &S) {
    if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(&S);
        Assign && Assign->getOperator() == OO_Equal &&
        Assign->getNumArgs() == 2 && namedEntity(*Assign->getArg(0)) == VD)
      Values.push_back(Assign->getArg(1));
    else if (const auto *Ref = dyn_cast<UnaryOperator>(&S);
             Ref && Ref->getOpcode() == UO_AddrOf &&
             namedEntity(*Ref->getSubExpr()) == VD)
      Unknown = true;
  });
  if (Unknown)
    return {};
  return lambdaBodies(Values, SM);
}

/// The lambdas of the user's code that the argument \p Arg of a call hands
/// over: a lambda written there (or a std::function made from one), or a
/// local variable holding lambdas (bodiesHeldBy).

} // namespace

llvm::SmallVector<const FunctionDecl *, 2>
lambdasPassedAs(const Expr *Arg, const SourceManager &SM) {
  const Expr *E = Arg ? stripImplicit(Arg) : nullptr;
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() == 1)
    E = stripImplicit(Construct->getArg(0));
  if (const auto *L = dyn_cast_or_null<LambdaExpr>(E)) {
    if (const FunctionDecl *Def = userLambdaBody(L, SM))
      return {Def};
    return {};
  }
  return bodiesHeldBy(dyn_cast_or_null<VarDecl>(E ? namedEntity(*E) : nullptr),
                      SM);
}

llvm::SmallVector<const FunctionDecl *, 2>
calledBodies(const CallExpr &Call, const ASTContext &Ctx) {
  if (const FunctionDecl *F = calledBody(Call, Ctx))
    return {F};
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
  if (!Op || Op->getOperator() != OO_Call || Op->getNumArgs() == 0)
    return {};
  const SourceManager &SM = Ctx.getSourceManager();
  // An element of a local container of callables: every lambda put into it
  // (`callbacks.push_back([&](int epoch) {...});`, its initialiser list).
  // The function whose local (not a reference) \p V is, with a body.
  auto OwnerOf = [](const VarDecl *V) -> const FunctionDecl * {
    const auto *Fn = V && V->hasLocalStorage()
                         ? dyn_cast_or_null<FunctionDecl>(
                               V->getParentFunctionOrMethod())
                         : nullptr;
    return Fn && Fn->getBody() && !V->getType()->isReferenceType() ? Fn
                                                                    : nullptr;
  };
  if (const VarDecl *Container = containerOfElement(Op->getArg(0))) {
    const FunctionDecl *Fn = OwnerOf(Container);
    if (!Fn)
      return {};
    llvm::SmallVector<const Expr *, 2> Values;
    bool Unknown = false;
    // Its initialiser list: the outermost braces (`= {[&] {...}, ...}`).
    const InitListExpr *List = nullptr;
    forEachStmt(Container->getInit(), [&](const Stmt &S) {
      if (const auto *L = dyn_cast<InitListExpr>(&S); L && !List)
        List = L;
    });
    if (List)
      Values.append(List->inits().begin(), List->inits().end());
    forEachStmt(Fn->getBody(), [&](const Stmt &S) {
      const auto *Member = dyn_cast<CXXMemberCallExpr>(&S);
      if (!Member || !Member->getImplicitObjectArgument() ||
          namedEntity(*Member->getImplicitObjectArgument()) != Container)
        return;
      if (isContainerInsertion(*Member) && Member->getNumArgs() > 0)
        Values.push_back(Member->getArg(Member->getNumArgs() - 1));
      else if (const CXXMethodDecl *M = Member->getMethodDecl();
               M && !M->isConst() && M->getIdentifier() &&
               !llvm::is_contained({"size", "empty", "begin", "end", "clear",
                                    "reserve", "at"},
                                   M->getName()))
        Unknown = true;
    });
    if (Unknown || Values.empty())
      return {};
    return lambdaBodies(Values, SM);
  }
  // A member assigned lambdas in the translation unit, with no default
  // initialiser: every one of them.
  if (const auto *FD =
          dyn_cast_or_null<FieldDecl>(namedEntity(*Op->getArg(0)));
      FD && !FD->getInClassInitializer())
    return lambdasAssignedTo(*FD, Ctx);
  return bodiesHeldBy(dyn_cast_or_null<VarDecl>(namedEntity(*Op->getArg(0))),
                      SM);
}

llvm::SmallVector<const Expr *, 2> returnedValues(const FunctionDecl &F) {
  llvm::SmallVector<const Expr *, 2> Values;
  if (!F.getBody())
    return Values;
  llvm::DenseMap<const ReturnStmt *, const Expr *> Assigned;
  forEachStmt(F.getBody(), [&](const Stmt &S) {
    const auto *Block = dyn_cast<CompoundStmt>(&S);
    if (!Block)
      return;
    for (auto It = Block->body_begin(); It != Block->body_end(); ++It) {
      const auto *Ret = dyn_cast<ReturnStmt>(*It);
      const auto *Ref = Ret ? dyn_cast_or_null<DeclRefExpr>(
                                  stripImplicit(Ret->getRetValue()))
                            : nullptr;
      const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      if (!VD || !VD->hasLocalStorage() || VD->getType()->isReferenceType())
        continue;
      for (auto Before = It; Before != Block->body_begin();) {
        --Before;
        if (!mentions(*Before, VD))
          continue;
        if (const Expr *Value = assignedTo(*Before, VD))
          Assigned[Ret] = Value;
        break;
      }
    }
  });
  forEachStmt(F.getBody(), [&](const Stmt &S) {
    if (const auto *Ret = dyn_cast<ReturnStmt>(&S)) {
      auto It = Assigned.find(Ret);
      Values.push_back(It != Assigned.end() ? It->second : Ret->getRetValue());
    }
  });
  return Values;
}

const FunctionSummary *FunctionSummary::of(const FunctionDecl &F,
                                           ASTContext &Ctx) {
  const FunctionDecl *Def = userDefinition(F, Ctx.getSourceManager());
  return Def ? summarise(*Def, Ctx) : nullptr;
}

/// The tensor parameters of \p Def (bit i: index i) that \p E is computed
/// from, through the initialisers of local variables; history-removing
/// calls (detach(), item()) cut the way.
static unsigned tensorParamsIn(const Expr *E, const FunctionDecl &Def,
                               unsigned Depth) {
  unsigned Mask = 0;
  if (!E || Depth > 4)
    return 0;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *Call = dyn_cast<CallExpr>(S);
        Call && isHistoryRemovingCall(*Call))
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
      if (const auto *Param = dyn_cast<ParmVarDecl>(Ref->getDecl())) {
        if (Param->getDeclContext() == static_cast<const DeclContext *>(&Def) &&
            Param->getFunctionScopeIndex() < 32 &&
            isTensorType(Param->getType().getNonReferenceType()))
          Mask |= 1u << Param->getFunctionScopeIndex();
      } else if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
                 VD && VD->isLocalVarDecl() && VD->getInit()) {
        Mask |= tensorParamsIn(VD->getInit(), Def, Depth + 1);
      }
      return;
    }
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(E);
  return Mask;
}

const FunctionSummary *FunctionSummary::summarise(const FunctionDecl &Def,
                                                  ASTContext &Ctx) {
  TranslationUnitState &State = state();
  auto [It, Inserted] = State.Summaries.try_emplace(Key(&Ctx, &Def));
  if (!Inserted)
    return It->second && !It->second->InProgress ? &It->second->Summary
                                                 : nullptr;
  if (State.Depth >= MaxSummaryDepth) {
    State.Summaries.erase(It);
    return nullptr;
  }
  It->second = std::make_unique<SummaryEntry>();
  SummaryEntry *Entry = It->second.get(); // Stable: the map may grow below.
  ++State.Depth;
  FunctionSummary &S = Entry->Summary;
  forEachStmt(Def.getBody(), [&](const Stmt &St) {
    if (const auto *Call = dyn_cast<CallExpr>(&St); Call && !S.Trains)
      S.Trains = trainsAt(*Call, Ctx);
  });
  // Backward passes on a parameter, not under a condition.
  std::function<void(const Stmt *, bool)> FindPasses = [&](const Stmt *St,
                                                           bool Conditional) {
    if (!St || isa<LambdaExpr>(St))
      return;
    if (const auto *Call = dyn_cast<CallExpr>(St);
        Call && !Conditional && isBackwardCall(*Call) &&
        graphRetentionOf(*Call, Ctx) == GraphRetention::Frees) {
      const Expr *Root = callObject(*Call);
      if (!Root && Call->getNumArgs() > 0)
        Root = Call->getArg(0);
      if (const auto *Param = dyn_cast_or_null<ParmVarDecl>(
              Root ? namedEntity(*stripImplicit(Root)) : nullptr);
          Param && Param->getDeclContext() ==
                       static_cast<const DeclContext *>(&Def) &&
          !llvm::is_contained(S.BackpropagatedParams,
                              Param->getFunctionScopeIndex()))
        S.BackpropagatedParams.push_back(Param->getFunctionScopeIndex());
      else if (!Param)
        if (unsigned Mask = tensorParamsIn(Root, Def, 0))
          S.BackpropagatedThrough.push_back({Mask, Call});
    }
    if (const auto *Call = dyn_cast<CallExpr>(St); Call && !Conditional)
      if (const Expr *Target = inPlaceWriteTarget(*Call))
        if (const auto *Param = dyn_cast_or_null<ParmVarDecl>(
                namedEntity(*stripImplicit(Target)));
            Param &&
            Param->getDeclContext() == static_cast<const DeclContext *>(&Def) &&
            isTensorType(Param->getType().getNonReferenceType()) &&
            !Param->getType().getNonReferenceType().isConstQualified() &&
            !llvm::is_contained(S.WrittenParams,
                                Param->getFunctionScopeIndex()))
          S.WrittenParams.push_back(Param->getFunctionScopeIndex());
    const bool Branches =
        isa<IfStmt, ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, SwitchStmt,
            AbstractConditionalOperator, CXXTryStmt>(St);
    bool First = true;
    for (const Stmt *Child : St->children()) {
      FindPasses(Child, Conditional || (Branches && !First));
      First = false;
    }
  };
  FindPasses(Def.getBody(), false);
  // Every return hands back the same tensor parameter as it is (`{
  // t.clamp_(0, 10); return t; }`): the call's result is the argument.
  {
    const ParmVarDecl *Returned = nullptr;
    bool Same = true;
    llvm::SmallVector<const Expr *, 2> Values = returnedValues(Def);
    for (const Expr *Value : Values) {
      const auto *Ref =
          dyn_cast_or_null<DeclRefExpr>(Value ? stripImplicit(Value) : nullptr);
      const auto *Param = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
      if (!Param ||
          Param->getDeclContext() != static_cast<const DeclContext *>(&Def) ||
          !isTensorType(Param->getType().getNonReferenceType()) ||
          (Returned && Returned != Param)) {
        Same = false;
        break;
      }
      Returned = Param;
    }
    if (Same && Returned && isTensorType(Def.getReturnType().getNonReferenceType()))
      S.ReturnedParams.push_back(Returned->getFunctionScopeIndex());
  }
  if (std::unique_ptr<AutogradFlow> Flow =
          AutogradFlow::analyze(Def, Ctx, AutogradFlow::Mode::Callee)) {
    S.ResultHistory = Flow->resultHistory();
    S.ResultFromValues = Flow->resultFromValues();
    S.ResultValuesRead = Flow->resultValuesRead();
    // Read out of history the callee made itself (a module's forward in
    // it), not out of what it was handed: every call rebuilds.
    if (const auto *Read = dyn_cast_or_null<CallExpr>(S.ResultValuesRead))
      if (const Expr *Object = callObject(*Read))
        S.ResultValuesReadOwnHistory =
            Flow->historyOf(*Object) == HistoryEvidence::Evident;
    S.ResultReadOut = Flow->resultReadOut();
    S.ResultSaver = Flow->resultSaver();
    S.ResultElementsSaved.assign(Flow->resultElementsSaved().begin(),
                                 Flow->resultElementsSaved().end());
    S.SavedParams.assign(Flow->savedParameters().begin(),
                         Flow->savedParameters().end());
    S.ConditionalWrites.assign(Flow->conditionalWrites().begin(),
                               Flow->conditionalWrites().end());
    if (const auto *Read = dyn_cast_or_null<CallExpr>(S.ResultReadOut))
      if (const Expr *Object = callObject(*Read))
        S.ResultReadOutOwnHistory =
            Flow->historyOf(*Object) == HistoryEvidence::Evident;
  }
  --State.Depth;
  Entry->InProgress = false;
  return &S;
}

void FunctionSummary::forgetTranslationUnit() {
  TranslationUnitState &State = state();
  State.ReadOutMembers.clear();
  State.ComputingReadOutMembers = false;
  State.FieldValues.clear();
  State.Summaries.clear();
  State.Depth = 0;
  State.IndexedContext = nullptr;
  State.Calls.clear();
  State.External.clear();
  State.LambdaReadOuts.clear();
}

static const Expr *lambdaBodyReadOut(const CXXMethodDecl *M, ASTContext &Ctx);

const Expr *lambdaReadOut(const CallExpr &Call, ASTContext &Ctx) {
  return lambdaBodyReadOut(
      dyn_cast_or_null<CXXMethodDecl>(calledBody(Call, Ctx)), Ctx);
}

const Expr *lambdaReadOut(const LambdaExpr &Lambda, ASTContext &Ctx) {
  const CXXMethodDecl *M = Lambda.getCallOperator();
  const FunctionDecl *Def = nullptr;
  if (!M || !M->hasBody(Def) ||
      !isInUserCode(Def->getLocation(), Ctx.getSourceManager()))
    return nullptr;
  return lambdaBodyReadOut(cast<CXXMethodDecl>(Def), Ctx);
}

static const Expr *lambdaBodyReadOut(const CXXMethodDecl *M, ASTContext &Ctx) {
  if (!M || !M->getParent()->isLambda() || isTensorType(M->getReturnType()))
    return nullptr;
  TranslationUnitState &State = state();
  auto [It, Inserted] = State.LambdaReadOuts.try_emplace(Key(&Ctx, M));
  if (!Inserted)
    return It->second.value_or(nullptr);
  if (State.Depth >= MaxSummaryDepth) {
    State.LambdaReadOuts.erase(It);
    return nullptr;
  }
  ++State.Depth;
  const Expr *Read = nullptr;
  if (std::unique_ptr<AutogradFlow> Flow =
          AutogradFlow::analyze(*M, Ctx, AutogradFlow::Mode::Callee))
    if (const auto *ReadCall =
            dyn_cast_or_null<CallExpr>(Flow->resultReadOut()))
      if (const Expr *Object = callObject(*ReadCall);
          Object && Flow->historyOf(*Object) == HistoryEvidence::Evident)
        Read = ReadCall;
  --State.Depth;
  State.LambdaReadOuts[Key(&Ctx, M)] = Read;
  return Read;
}

namespace {
TranslationUnitState &indexedState(ASTContext &Ctx) {
  TranslationUnitState &State = state();
  if (State.IndexedContext != &Ctx) {
    State.Calls.clear();
    State.FieldValues.clear();
    State.IndexedContext = &Ctx;
    CallIndexer Indexer(Ctx, State);
    Indexer.TraverseDecl(Ctx.getTranslationUnitDecl());
    Indexer.linkParameterCalls();
    Indexer.linkFieldCalls();
    State.FieldValues = Indexer.takeFieldValues();
  }
  return State;
}

/// The lambdas of the user's code assigned to \p Field anywhere in the
/// translation unit, each value a lambda or a local holding lambdas; empty
/// when one is not (or while the call index is being built).
llvm::SmallVector<const FunctionDecl *, 2>
lambdasAssignedTo(const FieldDecl &Field, const ASTContext &Ctx) {
  // (The index is a cache of the translation unit: building it changes no
  // AST.)
  TranslationUnitState &State = indexedState(const_cast<ASTContext &>(Ctx));
  auto It = State.FieldValues.find(&Field);
  if (It == State.FieldValues.end())
    return {};
  llvm::SmallVector<const FunctionDecl *, 2> Bodies;
  for (const Expr *Value : It->second) {
    llvm::SmallVector<const FunctionDecl *, 2> Each =
        lambdasPassedAs(Value, Ctx.getSourceManager());
    if (Each.empty())
      return {};
    Bodies.append(Each.begin(), Each.end());
  }
  return Bodies;
}
} // namespace

void forEachCallSite(
    ASTContext &Ctx,
    llvm::function_ref<void(const FunctionDecl &Callee, const CallSite &)> Fn) {
  for (const auto &[Callee, Sites] : indexedState(Ctx).Calls)
    for (const CallSite &Site : Sites)
      Fn(*Callee, Site);
}

const FunctionSummary *summaryAt(const CallExpr &Call, ASTContext &Ctx) {
  if (const FunctionDecl *Callee = userCallee(Call, Ctx))
    return FunctionSummary::of(*Callee, Ctx);
  // A lambda of the user's code, called directly or through a variable or
  // member that holds it (a `std::function` callback): its call operator.
  if (const auto *Lambda = dyn_cast_or_null<CXXMethodDecl>(calledBody(Call, Ctx));
      Lambda && Lambda->getParent()->isLambda())
    return FunctionSummary::summarise(*Lambda, Ctx);
  const FunctionDecl *Callee = Call.getDirectCallee();
  return Callee ? summaryOf(*Callee, Ctx) : nullptr;
}

const FunctionSummary *summaryOf(const FunctionDecl &F, ASTContext &Ctx) {
  if (const FunctionSummary *Own = FunctionSummary::of(F, Ctx))
    return Own;
  const FunctionDecl *Callee = &F;
  const ExternalSummary *Other = externalSummaryOf(*Callee);
  if (!Other)
    return nullptr;
  TranslationUnitState &State = state();
  auto [It, Inserted] =
      State.External.try_emplace(Key(&Ctx, Callee->getCanonicalDecl()));
  if (Inserted) {
    It->second = std::make_unique<FunctionSummary>();
    FunctionSummary &S = *It->second;
    S.Trains = Other->Trains;
    S.ResultHistory = Other->ResultHistory;
    S.ResultFromValuesElsewhere = Other->ResultFromValues;
    S.ResultValuesReadOwnHistory = Other->ResultValuesOwn;
    S.ResultReadOutElsewhere =
        Other->ResultReadOut != ExternalSummary::ReadOut::None;
    S.ResultReadOutOwnHistory =
        Other->ResultReadOut == ExternalSummary::ReadOut::Own;
    S.ResultSavedElsewhere = Other->ResultSaved;
    for (unsigned I : Other->SavedParams)
      S.SavedParams.push_back({I, nullptr});
    S.ClearsGradients = Other->ClearsGradients;
    S.External = true;
  }
  return It->second.get();
}

llvm::ArrayRef<CallSite> callSitesOf(const FunctionDecl &F, ASTContext &Ctx) {
  TranslationUnitState &State = indexedState(Ctx);
  auto It = State.Calls.find(F.getCanonicalDecl());
  if (It == State.Calls.end())
    return {};
  return It->second;
}

bool trainsAt(const CallExpr &Call, ASTContext &Ctx) {
  if (isTrainingCall(Call))
    return true;
  const FunctionSummary *Summary = summaryAt(Call, Ctx);
  return Summary && Summary->Trains;
}

bool containsTraining(const Stmt &S, ASTContext &Ctx) {
  bool Found = false;
  forEachStmt(&S, [&](const Stmt &Child) {
    if (!Found)
      if (const auto *Call = dyn_cast<CallExpr>(&Child))
        Found = trainsAt(*Call, Ctx);
  });
  return Found;
}

static bool resultReachesBackwardPass(
    const FunctionDecl &F, ASTContext &Ctx, BodyParents &Parents,
    llvm::SmallPtrSetImpl<const FunctionDecl *> &Seen, unsigned Depth) {
  if (Depth >= 3 || !Seen.insert(F.getCanonicalDecl()).second)
    return false;
  // (A copy: looking up the callers' call sites may grow the index.)
  const auto Sites = llvm::to_vector(callSitesOf(F, Ctx));
  for (const CallSite &Site : Sites) {
    if (!Site.Caller || !Site.Caller->getBody())
      continue;
    // Up from the call to its full expression: a backward pass or a loss
    // around it, the variable that stores its result, or the return of the
    // caller itself.
    const Stmt *Child = Site.Call;
    const ValueDecl *Stored = nullptr;
    bool Returned = false;
    while (const Stmt *Parent = Parents.parentOf(*Child, *Site.Caller)) {
      if (const auto *Call = dyn_cast<CallExpr>(Parent)) {
        if (isTrainingCall(*Call))
          return true;
        if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
            Op && Op->isAssignmentOp() && Op->getNumArgs() == 2 &&
            Op->getArg(1) == Child)
          Stored = namedEntity(*Op->getArg(0));
      } else if (const auto *Assign = dyn_cast<BinaryOperator>(Parent);
                 Assign && Assign->isAssignmentOp() &&
                 Assign->getRHS() == Child) {
        Stored = namedEntity(*Assign->getLHS());
      } else if (const auto *DS = dyn_cast<DeclStmt>(Parent)) {
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit())
            if (VD->getInit()->IgnoreImplicit() == Child ||
                VD->getInit() == Child)
              Stored = VD;
        break;
      } else if (isa<ReturnStmt>(Parent)) {
        // The caller's own return, not a lambda's in its body.
        Returned = Parents.isOwnCode(*Parent, *Site.Caller);
        break;
      }
      if (!isa<Expr>(Parent) || Stored)
        break;
      Child = Parent;
    }
    if (Stored) {
      if (const AutogradFlow *Flow = AutogradFlow::of(*Site.Caller, Ctx);
          Flow && Flow->reachesBackwardPass(*Stored))
        return true;
      if (const auto *VD = dyn_cast<VarDecl>(Stored))
        for (const Expr *Value : returnedValues(*Site.Caller))
          Returned |= Value && mentions(Value, VD);
    }
    if (Returned && isTensorType(Site.Caller->getReturnType()
                                     .getNonReferenceType()) &&
        resultReachesBackwardPass(*Site.Caller, Ctx, Parents, Seen, Depth + 1))
      return true;
  }
  return false;
}

bool resultReachesBackwardPass(const FunctionDecl &F, ASTContext &Ctx,
                               BodyParents &Parents) {
  llvm::SmallPtrSet<const FunctionDecl *, 4> Seen;
  return resultReachesBackwardPass(F, Ctx, Parents, Seen, 0);
}

namespace {

/// The field of `this` that \p E names (`log_probs_`, `this->values`).
const FieldDecl *ownField(const Expr *E) {
  const auto *ME = dyn_cast_or_null<MemberExpr>(E ? E->IgnoreParenImpCasts()
                                                  : nullptr);
  if (!ME || !isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  return dyn_cast<FieldDecl>(ME->getMemberDecl());
}

/// A host value: arithmetic, or a standard container of such (nested too).
bool isHostValueType(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (T->isArithmeticType())
    return true;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace() || Spec->getTemplateArgs().size() < 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  return isHostValueType(Spec->getTemplateArgs()[0].getAsType());
}

/// The call that reads values out of a tensor in \p E, through one local
/// variable's initialiser (`float lp = log_p.item<float>(); v.push_back(lp);`).
const CallExpr *valueReadIn(const Expr *E, unsigned Depth = 0) {
  const CallExpr *Read = nullptr;
  forEachStmt(E, [&](const Stmt &S) {
    if (Read)
      return;
    if (const auto *Call = dyn_cast<CallExpr>(&S);
        Call && isTensorValueReadCall(*Call))
      Read = Call;
    else if (const auto *Ref = dyn_cast<DeclRefExpr>(&S); Ref && Depth == 0)
      if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
          VD && VD->isLocalVarDecl() && VD->getInit())
        Read = valueReadIn(VD->getInit(), Depth + 1);
  });
  return Read;
}

} // namespace

/// The stores of the methods of \p Field's class into their own members, as
/// their dataflows see them: per host-value member the read of the value it
/// was filled with (values read out of a tensor with history), per
/// tensor-valued member the stored value with evident history.
static const Expr *storedInMember(const FieldDecl &Field, ASTContext &Ctx) {
  TranslationUnitState &State = state();
  const auto *Class = dyn_cast<CXXRecordDecl>(Field.getParent());
  if (!Class || State.ComputingReadOutMembers)
    return nullptr;
  Class = Class->getCanonicalDecl();
  auto [It, Inserted] = State.ReadOutMembers.try_emplace(Class);
  if (Inserted) {
    State.ComputingReadOutMembers = true;
    llvm::DenseMap<const FieldDecl *, const Expr *> Found;
    const SourceManager &SM = Ctx.getSourceManager();
    const CXXRecordDecl *Def = Class->getDefinition();
    llvm::SmallVector<const CXXMethodDecl *, 8> Methods;
    if (Def)
      Methods.append(Def->method_begin(), Def->method_end());
    for (const CXXMethodDecl *M : Methods) {
      const FunctionDecl *Body = userDefinition(*M, SM);
      if (!Body)
        continue;
      // The stores into host-value members: push_back/emplace_back/insert
      // of, or an assignment of, a value read out of a tensor.
      llvm::SmallVector<std::pair<const FieldDecl *, const CallExpr *>, 2>
          Stores;
      llvm::SmallVector<std::pair<const FieldDecl *, const Expr *>, 2>
          TensorStores;
      forEachStmt(Body->getBody(), [&](const Stmt &S) {
        const FieldDecl *Into = nullptr;
        const Expr *Stored = nullptr;
        if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&S)) {
          const CXXMethodDecl *Callee = MC->getMethodDecl();
          if (Callee && Callee->getIdentifier() && MC->getNumArgs() > 0 &&
              llvm::is_contained({"push_back", "emplace_back", "insert",
                                  "push_front", "emplace"},
                                 Callee->getName())) {
            Into = ownField(MC->getImplicitObjectArgument());
            Stored = MC->getArg(MC->getNumArgs() - 1);
          }
        } else if (const auto *BO = dyn_cast<BinaryOperator>(&S);
                   BO && BO->isAssignmentOp()) {
          Into = ownField(BO->getLHS());
          Stored = BO->getRHS();
        } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S);
                   Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
          Into = ownField(Op->getArg(0));
          Stored = Op->getArg(1);
        }
        if (!Into || Found.count(Into) || !Stored)
          return;
        if (autograd::isTensorValued(Into->getType()) &&
            !Into->getType()->isDependentType()) {
          TensorStores.push_back({Into, Stored});
          return;
        }
        if (!isHostValueType(Into->getType()))
          return;
        if (const CallExpr *Read = valueReadIn(Stored))
          Stores.push_back({Into, Read});
      });
      if (Stores.empty() && TensorStores.empty())
        continue;
      // Read out of a tensor with history, as the method's own dataflow
      // sees it.
      std::unique_ptr<AutogradFlow> Flow =
          AutogradFlow::analyze(*Body, Ctx, AutogradFlow::Mode::Local);
      if (!Flow)
        continue;
      for (const auto &[Into, Read] : Stores)
        if (const Expr *Object = callObject(*Read);
            Object && Flow->historyOf(*Object) != HistoryEvidence::None)
          Found.try_emplace(Into, Read);
      // (A tensor stored with history the method made itself: a module's
      // forward or a loss in it.)
      for (const auto &[Into, Stored] : TensorStores)
        if (Flow->historyOf(*Stored) == HistoryEvidence::Evident)
          Found.try_emplace(Into, Stored);
    }
    State.ComputingReadOutMembers = false;
    // (The map may have grown: look the entry up again.)
    It = State.ReadOutMembers.find(Class);
    It->second = std::move(Found);
  }
  return It->second.lookup(&Field);
}

const Expr *readOutStoredIn(const FieldDecl &Field, ASTContext &Ctx) {
  return isHostValueType(Field.getType()) ? storedInMember(Field, Ctx)
                                          : nullptr;
}

const Expr *historyStoredIn(const FieldDecl &Field, ASTContext &Ctx) {
  return autograd::isTensorValued(Field.getType()) &&
                 !Field.getType()->isDependentType()
             ? storedInMember(Field, Ctx)
             : nullptr;
}

} // namespace clang::tidy::torch
