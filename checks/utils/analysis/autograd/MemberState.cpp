//===--- MemberState.cpp - tensors an object keeps between calls ----------===//
//
// See MemberState.h. One walk over a method's body in source order, with
// two flags: the statement may not run (a branch, a loop body, the right of
// && or ||), and a no-grad guard is alive in an enclosing block.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/autograd/MemberState.h"
#include "utils/analysis/ProjectSummaries.h"
#include "utils/analysis/autograd/Builder.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include <optional>

namespace clang::tidy::torch::autograd {

namespace {

using FieldSet = llvm::SmallVector<const FieldDecl *, 2>;

void addField(FieldSet &Set, const FieldDecl *F) {
  if (!llvm::is_contained(Set, F))
    Set.push_back(F);
}

/// What a value is computed from: members at the method's entry, and
/// whether history the method created is on the way.
struct Dependence {
  FieldSet Fields;
  bool History = false;
  /// Bit i: the method's parameter at index i.
  unsigned Params = 0;
  void join(const Dependence &O) {
    for (const FieldDecl *F : O.Fields)
      addField(Fields, F);
    History |= O.History;
    Params |= O.Params;
  }
};

/// `this->f` or `f` in a member function, for a tensor-valued field.
const FieldDecl *ownTensorField(const Expr *E) {
  const auto *Member = dyn_cast_or_null<MemberExpr>(E ? E->IgnoreParenImpCasts()
                                                      : nullptr);
  if (!Member || !isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  return Field && isTensorValued(Field->getType()) ? Field : nullptr;
}

/// The member a condition tests for holding a tensor: `h_` (an optional's
/// or a tensor's conversion to bool), `h_.has_value()`, `h_.defined()`.
const FieldDecl *presenceTestedField(const Expr *Cond) {
  const auto *Call =
      dyn_cast_or_null<CXXMemberCallExpr>(Cond ? Cond->IgnoreParenImpCasts() : nullptr);
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  if (!Method || Call->getNumArgs() != 0)
    return nullptr;
  if (!isa<CXXConversionDecl>(Method) &&
      !(Method->getIdentifier() &&
        (Method->getName() == "has_value" || Method->getName() == "defined")))
    return nullptr;
  return ownTensorField(Call->getImplicitObjectArgument());
}

/// True if \p S, a statement, is an assignment whose target is \p F or an
/// element of it (`F = ...`, `std::get<0>(F) = ...`).
bool writesField(const Stmt *S, const FieldDecl *F) {
  if (const auto *E = dyn_cast<Expr>(S))
    S = E->IgnoreImplicit();
  const Expr *LHS = nullptr;
  if (const auto *Binary = dyn_cast<BinaryOperator>(S);
      Binary && Binary->getOpcode() == BO_Assign)
    LHS = Binary->getLHS();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
           Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
    LHS = Op->getArg(0);
  if (!LHS)
    return false;
  if (ownTensorField(LHS) == F)
    return true;
  const auto *Get = dyn_cast<CallExpr>(LHS->IgnoreImplicit());
  return Get && isStdCall(*Get, "get") && Get->getNumArgs() == 1 &&
         ownTensorField(Get->getArg(0)) == F;
}

class MethodWalker {
public:
  MemberStateSummary run(const CXXMethodDecl &Method) {
    this->Method = &Method;
    walk(Method.getBody(), /*Conditional=*/false, /*NoGrad=*/false);
    MemberStateSummary Out;
    for (const auto &[Field, St] : Fields)
      if (St.Written)
        Out.Writes.push_back({Field, St.Deps.Params, St.Deps.History,
                              llvm::is_contained(St.Deps.Fields, Field),
                              St.LastWrite});
      else if (St.ElementsDetached && !St.ElementsCarried)
        Out.Writes.push_back({Field, 0, false, false, St.LastWrite});
    llvm::sort(Out.Writes, [](const FieldWrite &A, const FieldWrite &B) {
      return A.Field->getFieldIndex() < B.Field->getFieldIndex();
    });
    for (const auto &[Field, St] : Fields) {
      // Every element written with a detached value, the whole never: the
      // member is replaced (`std::get<0>(h) = std::get<0>(h).detach(); ...`).
      if (!St.Written && St.ElementsDetached && !St.ElementsCarried) {
        Out.Replaced.push_back(Field);
        continue;
      }
      if (!St.Written)
        continue;
      if (llvm::is_contained(St.Deps.Fields, Field) && St.Deps.History &&
          St.CarryWrite) {
        CarriedMember C{Field, St.CarryWrite, &Method};
        if (llvm::is_contained(Result.Fields, Field))
          Out.Carried.push_back(C);
        else
          Out.CarriedAside.push_back(C);
      } else if (!llvm::is_contained(St.Deps.Fields, Field)) {
        Out.Replaced.push_back(Field);
      }
    }
    auto ByLoc = [](const CarriedMember &A, const CarriedMember &B) {
      return A.Write->getBeginLoc() < B.Write->getBeginLoc();
    };
    llvm::sort(Out.Carried, ByLoc);
    llvm::sort(Out.CarriedAside, ByLoc);
    auto AddPasses = [&](llvm::ArrayRef<CarriedMember> Members) {
      for (const auto &[Pass, Deps] : Passes)
        for (const CarriedMember &C : Members)
          if (llvm::is_contained(Deps.Fields, C.Field))
            Out.PassesThroughState.push_back({Pass, C});
    };
    AddPasses(Out.Carried);
    AddPasses(Out.CarriedAside);
    return Out;
  }

private:
  struct FieldState {
    Dependence Deps;
    bool Written = false;
    const Expr *CarryWrite = nullptr;
    /// Elements of a tuple member written (`std::get<0>(hc_) = ...`): with
    /// values that depend on nothing (detached), and with others.
    bool ElementsDetached = false;
    bool ElementsCarried = false;
    const Expr *LastWrite = nullptr;
  };
  const CXXMethodDecl *Method = nullptr;
  llvm::DenseMap<const FieldDecl *, FieldState> Fields;
  llvm::DenseMap<const ValueDecl *, Dependence> Locals;
  Dependence Result;
  /// Backward passes, with what the backpropagated tensor is computed from.
  llvm::SmallVector<std::pair<const CallExpr *, Dependence>, 1> Passes;

  FieldState &stateOf(const FieldDecl *F) {
    auto [It, Inserted] = Fields.try_emplace(F);
    if (Inserted)
      It->second.Deps.Fields.push_back(F);
    return It->second;
  }

  static const ValueDecl *localOf(const DeclRefExpr &Ref) {
    if (const auto *Binding = dyn_cast<BindingDecl>(Ref.getDecl()))
      return Binding->getDecomposedDecl();
    return dyn_cast<VarDecl>(Ref.getDecl());
  }

  Dependence dependenceOf(const Stmt *S, bool NoGrad) {
    Dependence D;
    if (!S || isa<LambdaExpr>(S))
      return D;
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (const FieldDecl *F = ownTensorField(E))
        return stateOf(F).Deps;
      if (const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts())) {
        auto It = Locals.find(localOf(*Ref));
        if (It != Locals.end())
          return It->second;
        // A parameter the method has not reassigned: the caller's argument.
        if (const auto *Param = dyn_cast<ParmVarDecl>(Ref->getDecl());
            Param && Param->getDeclContext() ==
                         static_cast<const DeclContext *>(Method) &&
            Param->getFunctionScopeIndex() < 32)
          D.Params |= 1u << Param->getFunctionScopeIndex();
        return D;
      }
    }
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (isHistoryRemovingCall(*Call) || isTensorFactoryCall(*Call))
        return D;
      if (!NoGrad && (isModuleForwardCall(*Call) || isLossCall(*Call)))
        D.History = true;
    }
    for (const Stmt *Child : S->children())
      D.join(dependenceOf(Child, NoGrad));
    return D;
  }

  void write(const FieldDecl *F, const Expr &Site, Dependence D,
             bool Conditional, bool Compound) {
    FieldState &St = stateOf(F);
    if (Conditional || Compound) {
      St.Deps.join(D);
    } else {
      St.Deps = D;
    }
    St.Written = true;
    St.LastWrite = &Site;
    if (D.History && llvm::is_contained(D.Fields, F) && !St.CarryWrite)
      St.CarryWrite = &Site;
  }

  void writeLocal(const ValueDecl *V, Dependence D, bool Conditional) {
    if (!V)
      return;
    if (Conditional)
      Locals[V].join(D);
    else
      Locals[V] = std::move(D);
  }

  /// An assignment `LHS = RHS` (or compound): members and locals.
  void assign(const Expr &LHS, const Expr &RHS, const Expr &Site,
              bool Compound, bool Conditional, bool NoGrad) {
    walk(&RHS, Conditional, NoGrad);
    Dependence D = NoGrad ? Dependence() : dependenceOf(&RHS, NoGrad);
    if (const FieldDecl *F = ownTensorField(&LHS)) {
      write(F, Site, D, Conditional, Compound);
      return;
    }
    const Expr *Target = LHS.IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Target)) {
      if (Compound)
        D.join(dependenceOf(Ref, NoGrad));
      writeLocal(localOf(*Ref), D, Conditional);
      return;
    }
    // std::get<0>(hc_) = ...: an element of a tuple member.
    if (const auto *Get = dyn_cast<CallExpr>(LHS.IgnoreImplicit());
        Get && isStdCall(*Get, "get") && Get->getNumArgs() == 1)
      if (const FieldDecl *F = ownTensorField(Get->getArg(0))) {
        FieldState &St = stateOf(F);
        if (D.Fields.empty() && !D.History) {
          if (!Conditional)
            St.ElementsDetached = true;
          St.LastWrite = &Site;
        } else {
          St.ElementsCarried = true;
          write(F, Site, D, /*Conditional=*/true, /*Compound=*/false);
        }
        return;
      }
    // std::tie(h_, c_) = lstm_out;
    if (const auto *Tie = dyn_cast<CallExpr>(LHS.IgnoreImplicit());
        Tie && isStdCall(*Tie, "tie")) {
      for (const Expr *Arg : Tie->arguments()) {
        if (const FieldDecl *F = ownTensorField(Arg))
          write(F, Site, D, Conditional, false);
        else if (const auto *R = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts()))
          writeLocal(localOf(*R), D, Conditional);
      }
      return;
    }
    walk(&LHS, Conditional, NoGrad);
  }

  void walk(const Stmt *S, bool Conditional, bool NoGrad) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
      bool Guarded = NoGrad;
      for (const Stmt *Child : Block->body()) {
        walk(Child, Conditional, Guarded);
        if (const auto *DS = dyn_cast<DeclStmt>(Child))
          for (const Decl *D : DS->decls())
            if (const auto *VD = dyn_cast<VarDecl>(D)) {
              GradModeEffect Effect = gradModeEffectOf(*VD);
              if (Effect == GradModeEffect::Disables ||
                  Effect == GradModeEffect::Unknown)
                Guarded = true;
              else if (Effect == GradModeEffect::Enables)
                Guarded = false;
            }
      }
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit()) {
          walk(VD->getInit(), Conditional, NoGrad);
          Locals[VD] = NoGrad ? Dependence()
                              : dependenceOf(VD->getInit(), NoGrad);
        }
      return;
    }
    if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
      walk(Ret->getRetValue(), Conditional, NoGrad);
      Result.join(dependenceOf(Ret->getRetValue(), NoGrad));
      return;
    }
    if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
      if (Binary->isAssignmentOp()) {
        assign(*Binary->getLHS(), *Binary->getRHS(), *Binary,
               Binary->isCompoundAssignmentOp(), Conditional, NoGrad);
        return;
      }
      if (Binary->isLogicalOp()) {
        walk(Binary->getLHS(), Conditional, NoGrad);
        walk(Binary->getRHS(), true, NoGrad);
        return;
      }
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
      assign(*Op->getArg(0), *Op->getArg(1), *Op,
             Op->getOperator() != OO_Equal, Conditional, NoGrad);
      return;
    }
    // `loss.backward()`: what it backpropagates is computed from members.
    if (const auto *Call = dyn_cast<CallExpr>(S); Call && isBackwardCall(*Call)) {
      for (const Stmt *Child : S->children())
        walk(Child, Conditional, NoGrad);
      const Expr *Root = callObject(*Call);
      if (!Root && Call->getNumArgs() > 0)
        Root = Call->getArg(0);
      Dependence D = dependenceOf(Root, NoGrad);
      if (!D.Fields.empty())
        Passes.push_back({Call, std::move(D)});
      return;
    }
    // `h_.detach_()`: the member no longer holds a graph.
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      if (const FieldDecl *F = ownTensorField(Member->getImplicitObjectArgument());
          F && M && M->getIdentifier() && M->getName() == "detach_") {
        write(F, *Member, Dependence(), Conditional, false);
        return;
      }
    }
    // `if (h_) h_ = detached(...);` / `if (h_.defined()) { h_ = h_.detach(); }`:
    // where the condition fails the member holds no tensor, hence no graph,
    // so the branch's own writes of it decide its state on both paths.
    if (const auto *If = dyn_cast<IfStmt>(S); If && !If->getElse() &&
                                               !If->getInit() &&
                                               !If->getConditionVariable())
      if (const FieldDecl *Tested = presenceTestedField(If->getCond())) {
        walk(If->getCond(), Conditional, NoGrad);
        const Stmt *Then = If->getThen();
        llvm::ArrayRef<Stmt *> Body;
        if (const auto *Block = dyn_cast<CompoundStmt>(Then))
          Body = llvm::ArrayRef(Block->body_begin(), Block->body_end());
        else
          Body = llvm::ArrayRef(const_cast<Stmt **>(&Then), 1);
        for (const Stmt *Child : Body)
          walk(Child, writesField(Child, Tested) ? Conditional : true, NoGrad);
        return;
      }
    const bool Branches = isa<IfStmt>(S) || isa<ForStmt>(S) ||
                          isa<WhileStmt>(S) || isa<DoStmt>(S) ||
                          isa<CXXForRangeStmt>(S) || isa<SwitchStmt>(S) ||
                          isa<AbstractConditionalOperator>(S) ||
                          isa<CXXTryStmt>(S);
    bool First = true;
    for (const Stmt *Child : S->children()) {
      // The condition of an if or a while runs; the rest may not.
      walk(Child, Conditional || (Branches && !First), NoGrad);
      First = false;
    }
  }
};

struct Cache {
  llvm::DenseMap<const CXXMethodDecl *, std::optional<MemberStateSummary>>
      Methods;
  llvm::DenseMap<const CXXRecordDecl *, llvm::SmallVector<const FieldDecl *, 2>>
      Classes;
};

Cache &cache() {
  thread_local Cache C;
  return C;
}

const CXXMethodDecl *definitionOf(const CXXMethodDecl &M) {
  const FunctionDecl *Def = nullptr;
  if (!M.hasBody(Def) || !Def->getBody() || M.getParent()->isLambda() ||
      !isInUserCode(Def->getLocation(),
                    Def->getASTContext().getSourceManager()))
    return nullptr;
  return dyn_cast<CXXMethodDecl>(Def);
}

} // namespace

namespace {

/// The summary another translation unit wrote for \p M (ProjectSummaries):
/// members by name, no write to point at.
std::optional<MemberStateSummary> externalMemberState(const CXXMethodDecl &M) {
  const ExternalSummary *Other = externalSummaryOf(M);
  const CXXRecordDecl *Class = M.getParent()->getDefinition();
  if (!Other || !Class ||
      (Other->Carries.empty() && Other->CarriesAside.empty() &&
       Other->Replaces.empty()))
    return std::nullopt;
  auto FieldNamed = [&](llvm::StringRef Name) -> const FieldDecl * {
    for (const FieldDecl *F : Class->fields())
      if (F->getName() == Name && isTensorValued(F->getType()))
        return F;
    return nullptr;
  };
  MemberStateSummary S;
  for (const std::string &Name : Other->Carries)
    if (const FieldDecl *F = FieldNamed(Name))
      S.Carried.push_back({F, nullptr, &M});
  for (const std::string &Name : Other->CarriesAside)
    if (const FieldDecl *F = FieldNamed(Name))
      S.CarriedAside.push_back({F, nullptr, &M});
  for (const std::string &Name : Other->Replaces)
    if (const FieldDecl *F = FieldNamed(Name))
      S.Replaced.push_back(F);
  return S;
}

} // namespace

const MemberStateSummary *memberStateOf(const CXXMethodDecl &M) {
  const CXXMethodDecl *Def = definitionOf(M);
  if (!Def) {
    // Defined in another file: its summary, if the project's has one.
    if (M.isStatic() || M.getParent()->isLambda())
      return nullptr;
    const CXXMethodDecl *Key = M.getCanonicalDecl();
    auto [It, Inserted] = cache().Methods.try_emplace(Key);
    if (Inserted)
      It->second = externalMemberState(M);
    return It->second ? &*It->second : nullptr;
  }
  if (Def->isStatic())
    return nullptr;
  auto [It, Inserted] = cache().Methods.try_emplace(Def);
  if (Inserted) {
    MemberStateSummary S = MethodWalker().run(*Def);
    if (!S.Carried.empty() || !S.CarriedAside.empty() ||
        !S.Replaced.empty() || !S.PassesThroughState.empty() ||
        !S.Writes.empty())
      It->second = std::move(S);
  }
  return It->second ? &*It->second : nullptr;
}

llvm::ArrayRef<const FieldDecl *> stateMembersOf(const CXXRecordDecl &Class) {
  const CXXRecordDecl *Def = Class.getDefinition();
  if (!Def)
    return {};
  auto It = cache().Classes.find(Def);
  if (It != cache().Classes.end())
    return It->second;
  llvm::SmallVector<const FieldDecl *, 2> State;
  for (const CXXMethodDecl *M : Def->methods())
    if (const MemberStateSummary *S = memberStateOf(*M))
      for (const CarriedMember &C : S->Carried)
        addField(State, C.Field);
  return cache().Classes[Def] = std::move(State);
}

bool replacesState(const CXXMethodDecl &M) {
  const MemberStateSummary *S = memberStateOf(M);
  if (!S || S->Replaced.empty())
    return false;
  llvm::ArrayRef<const FieldDecl *> State = stateMembersOf(*M.getParent());
  return !State.empty() && llvm::all_of(State, [&](const FieldDecl *F) {
    return llvm::is_contained(S->Replaced, F);
  });
}

bool replacedElsewhere(const CXXRecordDecl &Class, const FieldDecl &Field,
                       const CXXMethodDecl &Except) {
  const CXXRecordDecl *Def = Class.getDefinition();
  if (!Def)
    return false;
  for (const CXXMethodDecl *M : Def->methods()) {
    if (isa<CXXConstructorDecl>(M) ||
        M->getCanonicalDecl() == Except.getCanonicalDecl())
      continue;
    if (const MemberStateSummary *S = memberStateOf(*M);
        S && llvm::is_contained(S->Replaced, &Field))
      return true;
  }
  return false;
}

void forgetMemberStates() {
  cache().Methods.clear();
  cache().Classes.clear();
}

} // namespace clang::tidy::torch::autograd
