//===--- DeviceMismatchCheck.cpp - torch-device-mismatch ------------------===//
//
// torch-device-mismatch
//
//===----------------------------------------------------------------------===//

#include "DeviceMismatchCheck.h"
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
  UserCode.registerWith(*Finder);
}

void DeviceMismatchCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Use = Result.Nodes.getNodeAs<CallExpr>("use");
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (!Placement)
    Placement = std::make_unique<DevicePlacement>(*Result.Context);

  // The module whose device matters, and the call that ran it.
  const CallExpr *Forward = Use;
  llvm::SmallVector<const Expr *, 4> Inputs;
  const bool InLoss = isLossCall(*Use);
  if (InLoss) {
    const Expr *Prediction = lossPredictionArg(*Use);
    Forward = Placement->forwardOrigin(Prediction);
    if (!Forward)
      return;
    for (const Expr *Arg : passedArguments(*Use))
      if (stripImplicit(Arg) != stripImplicit(Prediction))
        Inputs.push_back(Arg);
  } else {
    for (const Expr *Arg : passedArguments(*Use))
      collectInputs(Arg, *Fn, Inputs, 0);
  }
  const ValueDecl *Module = moduleObjectEntity(callObject(*Forward));
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
