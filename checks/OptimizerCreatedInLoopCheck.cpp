//===--- OptimizerCreatedInLoopCheck.cpp ----------------------------------===//
//
// torch-optimizer-created-in-loop
//
//===----------------------------------------------------------------------===//

#include "OptimizerCreatedInLoopCheck.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "utils/libtorch/ObjectIdentity.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// A condition that holds on every k-th iteration: it tests a remainder
/// (`epoch % 20 == 0`, `(step + 1) % decay_every == 0`).
bool isPeriodicCondition(const Expr *Cond) {
  bool Found = false;
  forEachStmt(Cond, [&](const Stmt &S) {
    if (const auto *BO = dyn_cast<BinaryOperator>(&S);
        BO && BO->getOpcode() == BO_Rem)
      Found = true;
  });
  return Found;
}

/// The local variable or parameter an lvalue is part of: `cfg`, `cfg.lr`,
/// `flags[i]`.
const VarDecl *rootVariable(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(Ref->getDecl());
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (ME->isArrow())
        return nullptr;
      E = ME->getBase();
    } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      E = AS->getBase();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

/// True if \p Loop may change \p VD: an assignment, an increment, its
/// address, a non-const reference argument, a non-const method call on it.
bool mayChangeIn(const VarDecl &VD, const Stmt &Loop) {
  bool Found = false;
  auto Is = [&](const Expr *E) { return rootVariable(E) == &VD; };
  forEachStmt(&Loop, [&](const Stmt &S) {
    if (Found)
      return;
    if (const auto *B = dyn_cast<BinaryOperator>(&S))
      Found = B->isAssignmentOp() && Is(B->getLHS());
    else if (const auto *U = dyn_cast<UnaryOperator>(&S))
      Found = (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
              Is(U->getSubExpr());
    else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&S)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      Found = (!M || !M->isConst()) && Is(Member->getImplicitObjectArgument());
    }
    if (Found)
      return;
    if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      const FunctionDecl *F = Call->getDirectCallee();
      const unsigned First = isa<CXXOperatorCallExpr>(Call) &&
                                     isa_and_nonnull<CXXMethodDecl>(F)
                                 ? 1
                                 : 0;
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
          Op && Op->isAssignmentOp() && Op->getNumArgs() > 0 &&
          Is(Op->getArg(0))) {
        Found = true;
        return;
      }
      for (unsigned I = First; I < Call->getNumArgs() && !Found; ++I) {
        if (!Is(Call->getArg(I)))
          continue;
        const unsigned P = I - First;
        const ParmVarDecl *Param =
            F && P < F->getNumParams() ? F->getParamDecl(P) : nullptr;
        QualType T = Param ? Param->getType() : QualType();
        Found = T.isNull() || (T->isReferenceType() &&
                               !T.getNonReferenceType().isConstQualified()) ||
                T->isPointerType();
      }
    }
  });
  return Found;
}

/// True if \p Cond reads only variables declared outside \p Loop that the
/// loop never changes (`if (cfg.reset_optimizer)`, `if (use_adam)`): when it
/// holds once it holds on every iteration. Calls, members of `this` and
/// globals may change behind the loop's back: not invariant.
bool isLoopInvariantCondition(const Expr *Cond, const Stmt &Loop,
                              const SourceManager &SM) {
  if (!Cond)
    return false;
  bool Invariant = true;
  bool ReadsVariable = false;
  forEachStmt(Cond, [&](const Stmt &S) {
    if (!Invariant)
      return;
    if (isa<CallExpr, CXXThisExpr, LambdaExpr>(&S)) {
      Invariant = false;
      return;
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(&S);
    if (!Ref)
      return;
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (!VD) {
      Invariant = isa<EnumConstantDecl>(Ref->getDecl());
      return;
    }
    if (!VD->hasLocalStorage() && !VD->getType().isConstQualified()) {
      Invariant = false;
      return;
    }
    ReadsVariable = true;
    if (VD->getType()->isReferenceType() ||
        SM.isBeforeInTranslationUnit(Loop.getBeginLoc(), VD->getLocation()) ||
        mayChangeIn(*VD, Loop))
      Invariant = false;
  });
  return Invariant && ReadsVariable;
}

/// True if a creation under the condition \p Cond of \p Loop may happen on
/// some iterations only (`if (!opt)`, `if (epoch == 0)`, `if (improved)`):
/// not when the condition holds periodically or, once it holds, always.
bool conditionMakesItRare(const Expr *Cond, const Stmt &Loop,
                          const SourceManager &SM) {
  return !isPeriodicCondition(Cond) && !isLoopInvariantCondition(Cond, Loop, SM);
}

/// How many local variables are followed back to their initialisers.
constexpr unsigned MaxDepth = 4;

const CXXRecordDecl *optimizerClassOf(QualType T) {
  if (T.isNull() || T->isDependentType())
    return nullptr;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return RD && isOptimizerClass(RD) ? RD : nullptr;
}

/// The optimizer class of `std::make_unique<Opt>(...)` /
/// `std::make_shared<Opt>(...)`, also while its arguments are dependent.
const CXXRecordDecl *madeOptimizer(const CallExpr &Call) {
  const Expr *Callee = Call.getCallee()->IgnoreParenImpCasts();
  if (const FunctionDecl *F = Call.getDirectCallee()) {
    if (!F->getIdentifier() || (F->getName() != "make_unique" &&
                                F->getName() != "make_shared"))
      return nullptr;
    const std::string Name = F->getQualifiedNameAsString();
    const TemplateArgumentList *Args = F->getTemplateSpecializationArgs();
    if ((Name != "std::make_unique" && Name != "std::make_shared") || !Args ||
        Args->size() == 0 || Args->get(0).getKind() != TemplateArgument::Type)
      return nullptr;
    return optimizerClassOf(Args->get(0).getAsType());
  }
  const auto *ULE = dyn_cast<UnresolvedLookupExpr>(Callee);
  if (!ULE || ULE->getNumTemplateArgs() == 0)
    return nullptr;
  StringRef Name = identifierOf(ULE->getName());
  if (Name != "make_unique" && Name != "make_shared")
    return nullptr;
  const TemplateArgument &Arg = ULE->getTemplateArgs()[0].getArgument();
  return Arg.getKind() == TemplateArgument::Type
             ? optimizerClassOf(Arg.getAsType())
             : nullptr;
}

/// True if every `return` of \p Helper returns a new optimizer (a
/// construction or std::make_unique/make_shared of one, either arm of a
/// conditional), and it has one.
bool everyReturnMakesOptimizer(const FunctionDecl &Helper) {
  bool Any = false, All = true;
  auto Makes = [](auto &&Self, const Expr *E) -> bool {
    E = E ? stripImplicit(E) : nullptr;
    if (!E)
      return false;
    if (const auto *Cond = dyn_cast<ConditionalOperator>(E))
      return Self(Self, Cond->getTrueExpr()) && Self(Self, Cond->getFalseExpr());
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
      return CE->getConstructor() &&
             !CE->getConstructor()->isCopyOrMoveConstructor() &&
             optimizerClassOf(CE->getType());
    const auto *Call = dyn_cast<CallExpr>(E);
    return Call && madeOptimizer(*Call);
  };
  forEachStmt(Helper.getBody(), [&](const Stmt &S) {
    if (const auto *Ret = dyn_cast<ReturnStmt>(&S)) {
      Any = true;
      All &= Makes(Makes, Ret->getRetValue());
    }
  });
  return Any && All;
}

/// The arguments of a still-dependent initialiser (`Adam opt(params)` with
/// dependent params is a ParenListExpr, not a construction, in a template).
llvm::SmallVector<const Expr *, 2> dependentInitArgs(const Expr *Init) {
  llvm::SmallVector<const Expr *, 2> Args;
  if (const auto *PL = dyn_cast_or_null<ParenListExpr>(Init))
    for (unsigned I = 0; I < PL->getNumExprs(); ++I)
      Args.push_back(PL->getExpr(I));
  else if (const auto *IL = dyn_cast_or_null<InitListExpr>(Init))
    Args.append(IL->inits().begin(), IL->inits().end());
  return Args;
}

/// True if \p D is declared inside \p Loop (its header included).
bool isDeclaredIn(const Decl &D, const Stmt &Loop, const SourceManager &SM) {
  const SourceLocation Loc = SM.getExpansionLoc(D.getLocation());
  return !SM.isBeforeInTranslationUnit(Loc,
                                       SM.getExpansionLoc(beginLoc(Loop))) &&
         !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(endLoc(Loop)), Loc);
}

bool containsStep(const Stmt &S, ASTContext &Ctx) {
  bool Found = false;
  forEachStmt(&S, [&](const Stmt &Child) {
    const auto *Call = dyn_cast<CallExpr>(&Child);
    if (!Call || Found)
      return;
    Found = isOptimizerStepCall(*Call) ||
            (dependentCalleeName(*Call) == "step" && callObject(*Call));
    // A helper of the user's code that steps (`train(model, *opt, epoch)`
    // in the epoch loop, the batch loop inside it).
    if (!Found)
      if (const FunctionSummary *Summary = summaryAt(*Call, Ctx))
        Found = Summary->Trains;
  });
  return Found;
}

/// True if \p E (an SGD construction's arguments) sets a momentum.
bool setsMomentum(llvm::ArrayRef<const Expr *> Args) {
  bool Found = false;
  for (const Expr *Arg : Args)
    forEachStmt(Arg, [&](const Stmt &S) {
      const auto *Call = dyn_cast<CallExpr>(&S);
      if (!Call || Found)
        return;
      const FunctionDecl *F = Call->getDirectCallee();
      StringRef Name = F && F->getIdentifier() ? F->getName()
                                               : dependentCalleeName(*Call);
      Found = Name == "momentum";
    });
  return Found;
}

/// What the parameters handed to an optimizer come from.
struct Roots {
  /// Entities that live across iterations of the loop: `this`, members,
  /// parameters, globals, locals declared before the loop.
  llvm::SmallVector<const ValueDecl *, 2> Outliving;
  bool This = false;
};

class RootFinder {
public:
  RootFinder(const Stmt &Loop, const SourceManager &SM) : Loop(Loop), SM(SM) {}
  Roots R;

  void visit(const Expr *E, unsigned Depth) {
    E = E ? stripImplicit(E) : nullptr;
    if (!E || Depth > MaxDepth)
      return;
    if (isa<CXXThisExpr>(E)) {
      R.This = true;
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      visitVariable(dyn_cast<VarDecl>(DRE->getDecl()), Depth);
    } else if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
          FD && (ME->isImplicitAccess() ||
                 isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())))
        R.Outliving.push_back(FD);
      else
        visit(ME->getBase(), Depth);
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      // `model->parameters()`, `*model`; an element (`models[i]`) may be
      // another model every iteration.
      if (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star)
        visit(Op->getArg(0), Depth);
    } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (const Expr *Object = callObject(*Call))
        visit(Object, Depth); // model.parameters(), named_parameters().values()
      else if ((isStdCall(*Call, "move") || isStdCall(*Call, "forward")) &&
               Call->getNumArgs() == 1)
        visit(Call->getArg(0), Depth); // Adam(std::move(groups), options)
    } else if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() == UO_Deref)
        visit(U->getSubExpr(), Depth);
    } else if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(E)) {
      if (DM->isImplicitAccess())
        R.This = true;
      else
        visit(DM->getBase(), Depth);
    } else if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      for (const Expr *Arg : CE->arguments())
        visit(Arg, Depth); // std::vector<torch::Tensor>{w, b}
    } else if (const auto *IL = dyn_cast<InitListExpr>(E)) {
      for (const Expr *Init : IL->inits())
        visit(Init, Depth);
    } else if (const auto *SIL = dyn_cast<CXXStdInitializerListExpr>(E)) {
      visit(SIL->getSubExpr(), Depth);
    } else if (const auto *PL = dyn_cast<ParenListExpr>(E)) {
      for (unsigned I = 0; I < PL->getNumExprs(); ++I)
        visit(PL->getExpr(I), Depth);
    }
  }

private:
  void visitVariable(const VarDecl *VD, unsigned Depth) {
    if (!VD)
      return;
    if (isa<ParmVarDecl>(VD) || VD->hasGlobalStorage() ||
        !isDeclaredIn(*VD, Loop, SM)) {
      R.Outliving.push_back(VD);
      return;
    }
    // A module made in the iteration (`Net net;`, `Mlp net(in, hidden)`,
    // `std::make_shared<NetImpl>(cfg)`): a fresh model, whatever its
    // constructor's arguments are; not a copy of a holder, which shares
    // the module it copies (`Net net = model;`).
    if (!VD->getType()->isReferenceType() &&
        isFreshModuleConstruction(VD->getInit()))
      return;
    // A local of the iteration: what it was initialised from (a range-for's
    // variable is another element every iteration).
    if (!isa<CXXForRangeStmt>(Loop) ||
        cast<CXXForRangeStmt>(Loop).getLoopVariable() != VD)
      visit(VD->getInit(), Depth + 1);
    // A container filled in the iteration: what is put into it
    // (`trainable.push_back(p)` over `model->parameters()`, param groups
    // `groups.emplace_back(model->encoder->parameters(), options)`).
    forEachStmt(&Loop, [&](const Stmt &S) {
      const auto *Insert = dyn_cast<CXXMemberCallExpr>(&S);
      if (Insert && isContainerInsertion(*Insert) &&
          Insert->getImplicitObjectArgument() &&
          namedEntity(*Insert->getImplicitObjectArgument()) == VD)
        for (const Expr *Arg : Insert->arguments())
          visit(Arg, Depth + 1);
    });
  }

  const Stmt &Loop;
  const SourceManager &SM;
};

/// True if \p Loop gives \p D a new value (a fresh model each iteration):
/// `model = Net(...)`, `model->reset()`, `model.reset(new ...)`, or a new
/// element for a container of models (`models.push_back(Net())`, then
/// `models.back()->parameters()`), also in a function of the user's code
/// called there: a member function called on the same object that renews a
/// member (`init_model()` doing `model_ = Net()`), or a function that renews
/// what it receives by non-const reference (`rebuild(model)`).
bool isRefreshedIn(const ValueDecl &D, const Stmt &Loop, ASTContext &Ctx,
                   unsigned Depth = 0) {
  auto Names = [&](const Expr *E) {
    while (E) {
      E = stripImplicit(E);
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
          Op && (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star))
        E = Op->getArg(0);
      else
        break;
    }
    return E && namedEntity(*E) == &D;
  };
  bool Found = false;
  forEachStmt(&Loop, [&](const Stmt &S) {
    if (Found)
      return;
    if (const auto *B = dyn_cast<BinaryOperator>(&S))
      Found = B->isAssignmentOp() && Names(B->getLHS());
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S))
      Found = Op->getOperator() == OO_Equal && Names(Op->getArg(0));
    else if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      const FunctionDecl *F = Call->getDirectCallee();
      StringRef Name = F && F->getIdentifier() ? F->getName()
                                               : dependentCalleeName(*Call);
      Found = (Name == "reset" || Name == "reset_parameters" ||
               Name == "push_back" || Name == "emplace_back" ||
               Name == "push_front" || Name == "emplace_front" ||
               Name == "emplace" || Name == "insert") &&
              Names(callObject(*Call));
      const FunctionDecl *Callee =
          Found || Depth >= MaxDepth ? nullptr : userCallee(*Call, Ctx);
      if (!Callee || !Callee->getBody())
        return;
      const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
      const Expr *Object =
          Member ? Member->getImplicitObjectArgument() : nullptr;
      if (isa<FieldDecl>(D) && Object &&
          isa<CXXThisExpr>(Object->IgnoreParenImpCasts()))
        Found = isRefreshedIn(D, *Callee->getBody(), Ctx, Depth + 1);
      const unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
      for (unsigned I = 0; !Found && I < Callee->getNumParams() &&
                           I + First < Call->getNumArgs();
           ++I) {
        const ParmVarDecl *P = Callee->getParamDecl(I);
        if (P->getType()->isLValueReferenceType() &&
            !P->getType().getNonReferenceType().isConstQualified() &&
            Names(Call->getArg(I + First)))
          Found = isRefreshedIn(*P, *Callee->getBody(), Ctx, Depth + 1);
      }
    }
  });
  return Found;
}

} // namespace

void OptimizerCreatedInLoopCheck::registerMatchers(MatchFinder *Finder) {
  // Matched per function, in its written form (a template once).
  UserCode.addMatcher(
      functionDecl(isExpansionInUserCode(), isDefinition()).bind("fn"));
  UserCode.registerWith(*Finder);
}

void OptimizerCreatedInLoopCheck::check(
    const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  const SourceManager &SM = *Result.SourceManager;
  if (!Fn->getBody() || isInTemplateInstantiation(*Fn))
    return;
  forEachStmt(Fn->getBody(), [&](const Stmt &S) {
    Construction C{&S, SourceLocation(), nullptr, {}};
    if (const auto *CE = dyn_cast<CXXConstructExpr>(&S)) {
      const CXXConstructorDecl *Ctor = CE->getConstructor();
      if (!Ctor || Ctor->isCopyOrMoveConstructor())
        return;
      C.Class = optimizerClassOf(CE->getType());
      C.Loc = beginLoc(*CE);
      C.Args.append(CE->arg_begin(), CE->arg_end());
    } else if (const auto *New = dyn_cast<CXXNewExpr>(&S)) {
      if (New->getConstructExpr())
        return; // Its construction is examined.
      C.Class = optimizerClassOf(New->getAllocatedType());
      C.Loc = beginLoc(*New);
      C.Args = dependentInitArgs(New->getInitializer());
    } else if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      C.Class = madeOptimizer(*Call);
      C.Loc = beginLoc(*Call);
      C.Args.append(Call->arg_begin(), Call->arg_end());
    } else if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D)) {
          if (!optimizerClassOf(VD->getType()))
            continue;
          Construction V{&S, VD->getLocation(),
                         optimizerClassOf(VD->getType()),
                         dependentInitArgs(VD->getInit()), VD->isStaticLocal()};
          if (!V.Args.empty())
            examine(V, *Fn, SM); // Still dependent: no construction yet.
        }
      return;
    }
    if (C.Class)
      examine(C, *Fn, SM);
  });
}

void OptimizerCreatedInLoopCheck::examine(const Construction &C,
                                          const FunctionDecl &Fn,
                                          const SourceManager &SM) {
  if (C.StaticLocal || !isInUserCode(SM.getSpellingLoc(C.Loc), SM) ||
      Reported.contains(C.Loc))
    return;
  if (!Parents.isOwnCode(*C.At, Fn)) {
    // In a lambda of Fn with no loop around it there (a factory:
    // `auto make_opt = [&] { return torch::optim::Adam(model->parameters()); };`).
    const LambdaExpr *Lambda = enclosingLambda(*C.At, Fn, Parents);
    if (Lambda && Lambda->getCallOperator() && !C.Args.empty() &&
        enclosingLoops(*C.At, Fn, Parents).empty() &&
        !(C.Class->getQualifiedNameAsString() == "torch::optim::SGD" &&
          !setsMomentum(C.Args)))
      examineThroughCalls(C, Fn, SM, Lambda);
    return;
  }
  // Plain SGD keeps no state between steps: a new one changes nothing.
  if (C.Class->getQualifiedNameAsString() == "torch::optim::SGD" &&
      !setsMomentum(C.Args))
    return;
  // The training loop: the innermost loop around the construction that steps.
  const Stmt *Loop = nullptr;
  for (const Stmt *L : enclosingLoops(*C.At, Fn, Parents))
    if (containsStep(*L, Fn.getASTContext())) {
      Loop = L;
      break;
    }
  if (!Loop && enclosingLoops(*C.At, Fn, Parents).empty() && !C.Args.empty())
    return examineThroughCalls(C, Fn, SM);
  // Arguments clang could not make sense of: not judged.
  if (!Loop || C.Args.empty() ||
      llvm::any_of(C.Args, [](const Expr *A) { return A->containsErrors(); }))
    return;

  // Created under a condition and kept outside the iteration (`if (!opt) opt =
  // ...`): created once, or reset on purpose.
  bool Conditional = false;
  // ... unless the condition holds periodically (`if (epoch % 20 == 0)`: a
  // learning-rate schedule by reconstruction throws the state away every
  // period) or on every iteration once it holds (`if (cfg.reset)`).
  bool Periodic = false;
  bool Invariant = false;
  bool LocalVariable = isa<DeclStmt>(C.At);
  bool InExpression = isa<Expr>(C.At);
  const Stmt *Child = C.At;
  for (const Stmt *P = Parents.parentOf(*C.At, Fn); P && P != Loop;
       Child = P, P = Parents.parentOf(*P, Fn)) {
    if (InExpression && !isa<Expr>(P)) {
      LocalVariable = isa<DeclStmt>(P);
      InExpression = false;
      if (const auto *DS = dyn_cast<DeclStmt>(P))
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->isStaticLocal())
            return; // Constructed once.
    }
    if (const auto *If = dyn_cast<IfStmt>(P); If && If->getCond() != Child) {
      Conditional = true;
      Periodic |= isPeriodicCondition(If->getCond());
      Invariant |= isLoopInvariantCondition(If->getCond(), *Loop, SM);
    }
    if (isa<SwitchCase, ConditionalOperator>(P))
      Conditional = true;
  }
  if (Conditional && !LocalVariable && !Periodic && !Invariant)
    return;

  RootFinder Finder(*Loop, SM);
  Finder.visit(C.Args.front(), 0);
  const ValueDecl *Outliving = nullptr;
  for (const ValueDecl *D : Finder.R.Outliving)
    if (!isRefreshedIn(*D, *Loop, Fn.getASTContext())) {
      Outliving = D;
      break;
    }
  if (!Outliving && !Finder.R.This)
    return;
  Reported.insert(C.Loc);
  if (Conditional && Periodic && !LocalVariable)
    diag(C.Loc, "optimizer reconstructed periodically inside the training "
                "loop starts from fresh state every time (moments, momentum "
                "buffers, step count); construct it once before the loop and "
                "change the learning rate in its param_groups() options");
  else
    diag(C.Loc, "optimizer constructed inside the training loop starts from "
                "fresh state on every iteration (moments, momentum buffers, "
                "step count); construct it once before the loop");
  if (Outliving)
    diag(Outliving->getLocation(),
         "its parameters come from '%0', which outlives the loop",
         DiagnosticIDs::Note)
        << Outliving->getName();
}

void OptimizerCreatedInLoopCheck::examineThroughCalls(
    const Construction &C, const FunctionDecl &Fn, const SourceManager &SM,
    const LambdaExpr *Lambda) {
  if (llvm::any_of(C.Args, [](const Expr *A) { return A->containsErrors(); }) ||
      !Fn.getBody())
    return;
  // The function whose calls make the optimizer: Fn, or the lambda.
  const FunctionDecl &Helper = Lambda ? *Lambda->getCallOperator() : Fn;
  if (!Helper.getBody())
    return;
  // Only a local variable of the function, or what it returns, made on
  // every call: one kept elsewhere or made under a condition may be made
  // once.
  bool Local = isa<DeclStmt>(C.At);
  bool Returned = false;
  bool UnderCondition = false;
  // A member of the method's object it replaces (`opt_ =
  // std::make_unique<torch::optim::Adam>(...)`, `opt_.reset(new ...)`): a
  // new optimizer for the object on every call.
  auto IsOwnMember = [](const Expr *E) {
    const auto *ME = dyn_cast_or_null<MemberExpr>(E ? E->IgnoreParenImpCasts()
                                                    : nullptr);
    return ME && isa<FieldDecl>(ME->getMemberDecl()) &&
           isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts());
  };
  for (const Stmt *P = Parents.parentOf(*C.At, Fn); P && P != Lambda;
       P = Parents.parentOf(*P, Fn)) {
    if (isa<LambdaExpr>(P))
      return;
    if (isa<IfStmt, SwitchCase, ConditionalOperator, BinaryConditionalOperator>(
            P))
      UnderCondition = true;
    if (!Local && !Returned && !Lambda) {
      const Expr *Target = nullptr;
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P);
          Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
        Target = Op->getArg(0);
      else if (const auto *BO = dyn_cast<BinaryOperator>(P);
               BO && BO->getOpcode() == BO_Assign)
        Target = BO->getLHS();
      else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(P);
               MC && MC->getMethodDecl() &&
               MC->getMethodDecl()->getIdentifier() &&
               MC->getMethodDecl()->getName() == "reset")
        Target = MC->getImplicitObjectArgument();
      if (Target && IsOwnMember(Target)) {
        Local = true; // Stored in the object, anew on every call.
        continue;
      }
    }
    if (!Local && !Returned && isa<Expr>(P))
      continue;
    // `return torch::optim::Adam(model->parameters(), ...);`, a factory.
    if (!Local && !Returned && isa<ReturnStmt>(P)) {
      Returned = true;
      continue;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(P); DS && !Local && !Returned)
      Local = llvm::all_of(DS->decls(), [](const Decl *D) {
        const auto *VD = dyn_cast<VarDecl>(D);
        return VD && VD->hasLocalStorage();
      });
    if (!Local && !Returned)
      return;
  }
  if (!Local && !Returned)
    return;
  // A factory that picks the kind (`if (cfg.name == "adam") return
  // make_unique<Adam>(...); return make_unique<SGD>(...);`) still makes a new
  // optimizer on every call when every return makes one.
  if (UnderCondition && !(Returned && everyReturnMakesOptimizer(Helper)))
    return;
  // What the parameters come from, seen from the whole body of the helper.
  RootFinder Inside(*Helper.getBody(), SM);
  Inside.visit(C.Args.front(), 0);
  ASTContext &Ctx = Fn.getASTContext();
  const bool HelperSteps = containsStep(*Helper.getBody(), Fn.getASTContext());
  for (const CallSite &Site : callSitesOf(Helper, Ctx)) {
    if (!Site.Caller || !Site.Caller->getBody() ||
        isInTemplateInstantiation(*Site.Caller))
      continue;
    const Stmt *Loop = nullptr;
    for (const Stmt *L : enclosingLoops(*Site.Call, *Site.Caller, Parents))
      if (HelperSteps || containsStep(*L, Fn.getASTContext())) {
        Loop = L;
        break;
      }
    if (!Loop)
      continue;
    // A factory's optimizer is made where the caller asks for it: on every
    // iteration only when the call is not under a condition in the loop that
    // holds on some iterations only (`if (!opt)`, `if (stage_changed)`; not
    // `if (epoch % 20 == 0)` nor `if (cfg.reset_optimizer)`).
    if (Returned) {
      bool Conditional = false;
      const Stmt *Child = Site.Call;
      for (const Stmt *P = Parents.parentOf(*Site.Call, *Site.Caller);
           P && P != Loop; Child = P, P = Parents.parentOf(*P, *Site.Caller)) {
        if (const auto *If = dyn_cast<IfStmt>(P)) {
          if (If->getCond() != Child &&
              conditionMakesItRare(If->getCond(), *Loop, SM))
            Conditional = true;
        } else if (isa<SwitchCase, ConditionalOperator,
                       BinaryConditionalOperator, LambdaExpr>(P)) {
          Conditional = true;
        }
      }
      if (Conditional)
        continue;
    }
    // The model the caller hands over on every iteration.
    RootFinder Outside(*Loop, SM);
    const unsigned First = isa<CXXOperatorCallExpr>(Site.Call) ? 1 : 0;
    for (const ValueDecl *D : Inside.R.Outliving) {
      if (const auto *P = dyn_cast<ParmVarDecl>(D);
          P && P->getDeclContext() == &Helper) {
        const unsigned I = P->getFunctionScopeIndex();
        if (I + First < Site.Call->getNumArgs())
          Outside.visit(Site.Call->getArg(I + First), 0);
      } else if (const auto *V = dyn_cast<VarDecl>(D); V && Lambda) {
        // Captured by the lambda: the caller's own variable, unless the loop
        // makes it anew.
        if (!isDeclaredIn(*V, *Loop, SM) && !isRefreshedIn(*V, *Loop, Ctx))
          Outside.R.Outliving.push_back(V);
      } else if (isa<FieldDecl>(D)) {
        const auto *Member = dyn_cast<CXXMemberCallExpr>(Site.Call);
        const Expr *Object =
            Member ? Member->getImplicitObjectArgument() : nullptr;
        if (Object && isa<CXXThisExpr>(Object->IgnoreParenImpCasts()) &&
            !isRefreshedIn(*D, *Loop, Ctx))
          Outside.R.Outliving.push_back(D);
      }
    }
    const ValueDecl *Outliving = nullptr;
    for (const ValueDecl *D : Outside.R.Outliving)
      if (!isRefreshedIn(*D, *Loop, Ctx)) {
        Outliving = D;
        break;
      }
    // One warning per call, whichever of the factory's optimizers it makes.
    if (!Outliving || Reported.contains(beginLoc(*Site.Call)) ||
        !Reported.insert(C.Loc).second)
      continue;
    Reported.insert(beginLoc(*Site.Call));
    diag(C.Loc, "optimizer constructed in a function called inside the "
                "training loop starts from fresh state on every iteration "
                "(moments, momentum buffers, step count); construct it once "
                "before the loop and pass it in");
    diag(beginLoc(*Site.Call), "called inside the training loop here",
         DiagnosticIDs::Note);
    diag(Outliving->getLocation(),
         "its parameters come from '%0', which outlives the loop",
         DiagnosticIDs::Note)
        << Outliving->getName();
    return;
  }
}

} // namespace clang::tidy::torch
