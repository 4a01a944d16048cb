//===--- DeviceMismatchCheck.cpp - torch-device-mismatch ------------------===//
//
// torch-device-mismatch
//
//===----------------------------------------------------------------------===//

#include "DeviceMismatchCheck.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// The arguments a call passes, without the object of `model(x)`.
llvm::SmallVector<const Expr *, 4> passedArguments(const CallExpr &Call) {
  llvm::SmallVector<const Expr *, 4> Args;
  const bool SkipObject =
      isa<CXXOperatorCallExpr>(Call) &&
      cast<CXXOperatorCallExpr>(Call).getOperator() == OO_Call;
  for (unsigned I = SkipObject ? 1 : 0; I < Call.getNumArgs(); ++I)
    if (const Expr *Arg = writtenArg(Call, I))
      Args.push_back(Arg);
  return Args;
}

/// The tensors an argument of a forward holds: itself, the elements of
/// `module.forward({x, y})`, and what was pushed into a local
/// std::vector<torch::jit::IValue> passed as `module.forward(inputs)`.
void collectInputs(const Expr *E, const FunctionDecl &Fn,
                   llvm::SmallVectorImpl<const Expr *> &Out, unsigned Depth) {
  if (!E || Depth > 6)
    return;
  E = E->IgnoreUnlessSpelledInSource();
  if (isTensorType(E->getType()) || E->isTypeDependent()) {
    Out.push_back(E);
    return;
  }
  if (const auto *Init = dyn_cast<InitListExpr>(E)) {
    for (const Expr *Element : Init->inits())
      collectInputs(Element, Fn, Out, Depth + 1);
    return;
  }
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E)) {
    collectInputs(List->getSubExpr(), Fn, Out, Depth + 1);
    return;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    for (const Expr *Arg : Construct->arguments())
      collectInputs(Arg, Fn, Out, Depth + 1);
    return;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Inputs = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Inputs || !Inputs->hasLocalStorage() || isa<ParmVarDecl>(Inputs))
    return;
  forEachStmt(Fn.getBody(), [&](const Stmt &S) {
    const auto *Insert = dyn_cast<CXXMemberCallExpr>(&S);
    if (Insert && isContainerInsertion(*Insert) &&
        namedEntity(*Insert->getImplicitObjectArgument()) == Inputs &&
        Insert->getNumArgs() == 1 &&
        (Insert->getMethodDecl()->getName() == "push_back" ||
         Insert->getMethodDecl()->getName() == "emplace_back"))
      collectInputs(Insert->getArg(0), Fn, Out, Depth + 1);
  });
}

/// The text of \p E as written in the main file, or "".
StringRef writtenText(const Expr &E, const SourceManager &SM,
                      const LangOptions &LO) {
  if (!beginLoc(E).isFileID() || !endLoc(E).isFileID())
    return "";
  return Lexer::getSourceText(
      CharSourceRange::getTokenRange(beginLoc(E), endLoc(E)), SM, LO);
}

/// A postfix expression takes `.to(...)` without parentheses.
bool isPostfix(const Expr &E) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&E))
    return Op->getOperator() == OO_Subscript || Op->getOperator() == OO_Call;
  return isa<DeclRefExpr, MemberExpr, CallExpr, ParenExpr,
             CXXDependentScopeMemberExpr>(E);
}

} // namespace

void DeviceMismatchCheck::forgetTranslationUnit() {
  Placement.reset();
  Parents.clear();
  Reported.clear();
}

void DeviceMismatchCheck::registerMatchers(MatchFinder *Finder) {
  // Templates are checked in their written form, once.
  UserCode.addMatcher(
      functionDecl(
          isExpansionInUserCode(), isDefinition(),
          unless(ast_matchers::isTemplateInstantiation()),
          hasBody(forEachDescendant(
              callExpr(isExpansionInUserCode(),
                       unless(ast_matchers::isInTemplateInstantiation()),
                       anyOf(isModuleForward(), isLoss()))
                  .bind("use"))))
          .bind("fn"));
  // Calls of the user's functions: what their forwards receive depends on
  // the arguments.
  UserCode.addMatcher(
      functionDecl(
          isExpansionInUserCode(), isDefinition(),
          unless(ast_matchers::isTemplateInstantiation()),
          hasBody(forEachDescendant(
              callExpr(isExpansionInUserCode(),
                       unless(ast_matchers::isInTemplateInstantiation()),
                       callee(functionDecl(isDefinition())))
                  .bind("helper-call"))))
          .bind("fn"));
  UserCode.registerWith(*Finder);
}

/// The parameter of \p Callee at \p Index and the argument \p Call passes
/// for it.
static const Expr *argumentFor(const CallExpr &Call, unsigned Index) {
  const bool SkipObject =
      isa<CXXOperatorCallExpr>(Call) &&
      isa_and_nonnull<CXXMethodDecl>(Call.getDirectCallee());
  return writtenArg(Call, SkipObject ? Index + 1 : Index);
}

std::optional<DeviceMismatchCheck::ForwardSite>
DeviceMismatchCheck::forwardSiteOf(const Expr *Prediction,
                                   const FunctionDecl &Fn, ASTContext &Ctx) {
  if (const CallExpr *Forward = Placement->forwardOrigin(Prediction)) {
    const ValueDecl *Module = DevicePlacement::aliasTarget(
        moduleObjectEntity(callObject(*Forward)));
    if (!Module)
      return std::nullopt;
    return ForwardSite{Forward, Module, nullptr};
  }
  // The result of a helper of the user's that returns its module
  // parameter's output (`auto output = run(model, x);`).
  const Expr *E = Prediction;
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripImplicit(E);
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
    if (!Ref)
      break;
    const auto *VD =
        dyn_cast<VarDecl>(DevicePlacement::aliasTarget(Ref->getDecl()));
    if (!VD || isa<ParmVarDecl>(VD))
      return std::nullopt;
    const DevicePlacement::Definitions &D = Placement->definitionsOf(*VD);
    if (!D.Known || D.Values.size() != 1 || !D.Loads.empty())
      return std::nullopt;
    E = D.Values.front();
  }
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  const FunctionDecl *Callee = Call ? userCallee(*Call, Ctx) : nullptr;
  if (!Callee || Callee == &Fn || !Callee->getBody() || Callee->isTemplated())
    return std::nullopt;
  const ParmVarDecl *ModuleParam = nullptr;
  const CallExpr *InnerForward = nullptr;
  for (const Expr *Returned : returnedValues(*Callee)) {
    const CallExpr *Forward = Placement->forwardOrigin(Returned);
    const auto *Param =
        Forward ? dyn_cast_or_null<ParmVarDecl>(DevicePlacement::aliasTarget(
                      moduleObjectEntity(callObject(*Forward))))
                : nullptr;
    if (!Param || (ModuleParam && ModuleParam != Param))
      return std::nullopt;
    ModuleParam = Param;
    InnerForward = Forward;
  }
  if (!ModuleParam || Placement->movesModule(*ModuleParam, *Callee))
    return std::nullopt;
  const Expr *Arg = argumentFor(*Call, ModuleParam->getFunctionScopeIndex());
  const ValueDecl *Module =
      Arg ? DevicePlacement::aliasTarget(moduleObjectEntity(stripImplicit(Arg)))
          : nullptr;
  if (!Module)
    return std::nullopt;
  return ForwardSite{Call, Module, InnerForward};
}

void DeviceMismatchCheck::checkHelperCall(const CallExpr &Call,
                                          const FunctionDecl &Fn,
                                          ASTContext &Ctx) {
  const FunctionDecl *Callee = userCallee(Call, Ctx);
  if (!Callee || Callee == &Fn || !Callee->getBody() || Callee->isTemplated() ||
      isa<CXXMethodDecl>(Callee))
    return;
  // What the caller knows of each tensor argument.
  llvm::SmallVector<DevicePlacement::ParamFact, 4> Facts;
  for (const ParmVarDecl *Param : Callee->parameters()) {
    if (!isTensorType(Param->getType()))
      continue;
    const Expr *Arg = argumentFor(Call, Param->getFunctionScopeIndex());
    if (const Expr *Origin = Arg ? Placement->cpuOrigin(Arg) : nullptr)
      Facts.push_back({Param, Origin});
  }
  forEachStmt(Callee->getBody(), [&](const Stmt &S) {
    const auto *Use = dyn_cast<CallExpr>(&S);
    if (!Use || !(isModuleForwardCall(*Use) || isLossCall(*Use)))
      return;
    const bool InLoss = isLossCall(*Use);
    const CallExpr *Forward = Use;
    llvm::SmallVector<const Expr *, 4> Inputs;
    // A loss of a prediction the caller hands over: the module whose output
    // the caller's argument is.
    std::optional<ForwardSite> CallerSite;
    if (InLoss) {
      const Expr *Prediction = lossPredictionArg(*Use);
      Forward = Placement->forwardOrigin(Prediction);
      if (!Forward) {
        const auto *Ref = dyn_cast_or_null<DeclRefExpr>(
            Prediction ? stripImplicit(Prediction) : nullptr);
        const auto *Param = Ref ? dyn_cast<ParmVarDecl>(
                                      DevicePlacement::aliasTarget(Ref->getDecl()))
                                : nullptr;
        if (!Param || Param->getDeclContext() != Callee ||
            !Placement->definitionsOf(*Param).Known ||
            !Placement->definitionsOf(*Param).Values.empty())
          return;
        const Expr *Arg = argumentFor(Call, Param->getFunctionScopeIndex());
        CallerSite = Arg ? forwardSiteOf(Arg, Fn, Ctx) : std::nullopt;
        if (!CallerSite)
          return;
        Forward = Use;
      }
      for (const Expr *Arg : passedArguments(*Use))
        if (stripImplicit(Arg) != stripImplicit(Prediction))
          Inputs.push_back(Arg);
    } else {
      for (const Expr *Arg : passedArguments(*Use))
        collectInputs(Arg, *Callee, Inputs, 0);
    }
    const ValueDecl *Module =
        CallerSite ? CallerSite->Module
                   : DevicePlacement::aliasTarget(
                         moduleObjectEntity(callObject(*Forward)));
    if (!Module)
      return;
    // The module's device: the caller's, for a module parameter the helper
    // does not move itself; the helper's own otherwise.
    std::optional<DevicePlacement::Move> Move;
    const ValueDecl *CallerModule = nullptr;
    if (CallerSite) {
      CallerModule = Module;
      Move = Placement->moduleDeviceAt(*Module, *CallerSite->Site, Fn);
    } else if (const auto *Param = dyn_cast<ParmVarDecl>(Module)) {
      if (Param->getDeclContext() != Callee ||
          Placement->movesModule(*Param, *Callee))
        return;
      const Expr *Arg = argumentFor(Call, Param->getFunctionScopeIndex());
      CallerModule =
          Arg ? DevicePlacement::aliasTarget(moduleObjectEntity(stripImplicit(Arg)))
          : nullptr;
      if (!CallerModule)
        return;
      Move = Placement->moduleDeviceAt(*CallerModule, Call, Fn);
    } else {
      Move = Placement->moduleDeviceAt(*Module, *Forward, *Callee);
    }
    if (!Move)
      return;
    for (const Expr *Input : Inputs) {
      const ParmVarDecl *Used = nullptr;
      const Expr *Origin = Placement->cpuOriginAtCall(Input, Facts, Used);
      // A tensor the helper makes itself, passed to a module it moves
      // itself, is the helper's own finding.
      if (!Origin || (!CallerModule && !Used))
        continue;
      const Expr *At = Used ? argumentFor(Call, Used->getFunctionScopeIndex())
                            : nullptr;
      const SourceManager &SM = Ctx.getSourceManager();
      const SourceLocation Loc =
          At ? beginLoc(*At->IgnoreUnlessSpelledInSource()) : beginLoc(Call);
      if (!isInUserCode(SM.getSpellingLoc(Loc), SM) ||
          !Reported.insert(SM.getExpansionLoc(Loc)).second)
        continue;
      const ValueDecl &Named = CallerModule ? *CallerModule : *Module;
      diag(Loc, InLoss ? "tensor created on the CPU is combined by %0 in a "
                         "loss with the output of module %1, which was moved "
                         "to a device that may be a GPU; move the tensor to "
                         "that device with .to()"
                       : "tensor created on the CPU is passed by %0 to module "
                         "%1, which was moved to a device that may be a GPU; "
                         "move the tensor to that device with .to()")
          << Callee << &Named;
      diag(beginLoc(*Use),
           InLoss ? "%0 computes the loss here" : "%0 calls the module here",
           DiagnosticIDs::Note)
          << Callee;
      diag(beginLoc(*Move->Site), "module %0 is moved to the device here",
           DiagnosticIDs::Note)
          << &Named;
      if (beginLoc(*Origin) != Loc)
        diag(beginLoc(*Origin), "tensor created on the CPU here",
             DiagnosticIDs::Note);
    }
  });
}

void DeviceMismatchCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Use = Result.Nodes.getNodeAs<CallExpr>("use");
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (!Placement)
    Placement = std::make_unique<DevicePlacement>(*Result.Context);
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("helper-call")) {
    checkHelperCall(*Call, *Fn, *Result.Context);
    return;
  }

  // The module whose device matters, and the call that ran it.
  const CallExpr *Forward = Use;
  llvm::SmallVector<const Expr *, 4> Inputs;
  const bool InLoss = isLossCall(*Use);
  const ValueDecl *Module = nullptr;
  if (InLoss) {
    const Expr *Prediction = lossPredictionArg(*Use);
    std::optional<ForwardSite> Site =
        forwardSiteOf(Prediction, *Fn, *Result.Context);
    if (!Site)
      return;
    Forward = Site->Site;
    Module = Site->Module;
    for (const Expr *Arg : passedArguments(*Use))
      if (stripImplicit(Arg) != stripImplicit(Prediction))
        Inputs.push_back(Arg);
  } else {
    for (const Expr *Arg : passedArguments(*Use))
      collectInputs(Arg, *Fn, Inputs, 0);
    Module = DevicePlacement::aliasTarget(
        moduleObjectEntity(callObject(*Forward)));
  }
  if (!Module)
    return;
  std::optional<DevicePlacement::Move> Move =
      Placement->moduleDeviceAt(*Module, *Forward, *Fn);
  if (!Move)
    return;
  for (const Expr *Input : Inputs)
    reportIfOnCpu(*Input, *Move, *Module, *Use, *Fn, InLoss, *Result.Context);
}

void DeviceMismatchCheck::reportIfOnCpu(const Expr &Arg,
                                        const DevicePlacement::Move &Move,
                                        const ValueDecl &Module,
                                        const CallExpr &Use,
                                        const FunctionDecl &Fn, bool InLoss,
                                        ASTContext &Ctx) {
  const Expr *Origin = Placement->cpuOrigin(&Arg);
  if (!Origin)
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  const Expr &Written = *Arg.IgnoreUnlessSpelledInSource();
  const SourceLocation Loc = beginLoc(Written);
  if (!isInUserCode(SM.getSpellingLoc(Loc), SM) ||
      !Reported.insert(SM.getExpansionLoc(Loc)).second)
    return;
  {
    auto Diag =
        diag(Loc, InLoss ? "tensor created on the CPU is combined in a loss "
                           "with the output of module %0, which was moved to "
                           "a device that may be a GPU; move the tensor to "
                           "that device with .to()"
                         : "tensor created on the CPU is passed to module %0, "
                           "which was moved to a device that may be a GPU; "
                           "move the tensor to that device with .to()")
        << &Module;
    // The fix-it names the module's device when exactly one device
    // expression is in scope: the torch::Device variable it was moved to (the
    // only one visible here), a member of this class, or a constant.
    const Expr *Device = Move.Device->IgnoreUnlessSpelledInSource();
    const auto Visible = visibleLocalVariables(
        Use, Fn, Parents, [](const VarDecl &VD) {
          return VD.getIdentifier() && isDeviceClassType(VD.getType());
        });
    bool Usable = false;
    if (deviceConstantOf(Device) != DeviceConstant::NotConstant)
      Usable = Visible.empty();
    else if (const auto *Ref = dyn_cast<DeclRefExpr>(Device))
      Usable = Visible.size() == 1 && Visible.front() == Ref->getDecl();
    else if (const auto *Member = dyn_cast<MemberExpr>(Device)) {
      const auto *Method = dyn_cast<CXXMethodDecl>(&Fn);
      const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
      Usable = Visible.empty() && Method && Field &&
               isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()) &&
               Method->getParent() == Field->getParent();
    }
    StringRef DeviceText = Usable ? writtenText(*Device, SM, LO) : "";
    if (!DeviceText.empty() && isDeviceType(Device->getType()) &&
        Loc.isFileID() && endLoc(Written).isFileID()) {
      SourceLocation End =
          Lexer::getLocForEndOfToken(endLoc(Written), 0, SM, LO);
      if (isPostfix(Written)) {
        Diag << FixItHint::CreateInsertion(
            End, (".to(" + DeviceText + ")").str());
      } else {
        Diag << FixItHint::CreateInsertion(Loc, "(")
             << FixItHint::CreateInsertion(
                    End, (").to(" + DeviceText + ")").str());
      }
    }
  }
  diag(beginLoc(*Move.Site), "module %0 is moved to the device here",
       DiagnosticIDs::Note)
      << &Module;
  if (Origin != &Written && beginLoc(*Origin) != Loc)
    diag(beginLoc(*Origin), "tensor created on the CPU here",
         DiagnosticIDs::Note);
}

} // namespace clang::tidy::torch
