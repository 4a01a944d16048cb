//===--- DiscardedTensorResultCheck.cpp - torch-discarded-tensor-result --===//

#include "DiscardedTensorResultCheck.h"
#include "utils/libtorch/AutogradOps.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// \p E as a LibTorch operation whose dropped result makes the statement do
/// nothing: out of place (the table's decision), returning tensors, and not a
/// factory (a tensor made and dropped on purpose initialises a device or
/// draws random numbers; it changes no operand the writer could have meant).
std::optional<LibTorchCall> outOfPlaceCall(const Expr &E) {
  std::optional<LibTorchCall> C = asLibTorchCall(&E);
  // A member of an operand of dependent type is known by its name only.
  if (!C || isa_and_nonnull<CXXDependentScopeMemberExpr>(C->Member))
    return std::nullopt;
  const OpInfo *Info = lookupOp(C->Name);
  // An operation the hand-written table does not list but PyTorch's autograd
  // formulas do (gelu, silu, logit, ...: AutogradOps.def): out of place
  // unless its name is an in-place one. Not the internal ones (`_foo`,
  // `foo_backward`) nor random draws, whose call advances the generator.
  if (!Info && !C->Name.ends_with("_") && !C->Name.starts_with("_") &&
      !C->Name.ends_with("_backward") && !C->Name.contains("dropout") &&
      !C->Name.contains("rrelu") &&
      !llvm::is_contained({"bernoulli", "normal", "multinomial", "poisson",
                           "binomial"},
                          C->Name) &&
      autogradEntryOf(C->Name))
    Info = &generatedOrDefaultOp(C->Name);
  if (!Info || !isOutOfPlace(*Info) ||
      (Info->Roles & (op::Fresh | op::FromValues)) || !returnsTensors(*C))
    return std::nullopt;
  return C;
}

/// \p E if it names a tensor the fix-it may write to: a variable, or a field
/// reached from a variable or `this`, not const.
const Expr *namedTensor(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (!E || !isTensorType(E->getType()) || E->getType().isConstQualified())
    return nullptr;
  for (const Expr *Part = E;;) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Part))
      return isa<VarDecl>(Ref->getDecl()) ? E : nullptr;
    if (isa<CXXThisExpr>(Part))
      return E;
    const auto *Member = dyn_cast<MemberExpr>(Part);
    if (!Member || !isa<FieldDecl>(Member->getMemberDecl()))
      return nullptr;
    Part = Member->getBase()->IgnoreParenImpCasts();
  }
}

/// The in-place spelling of \p C that changes values as \p C computes them
/// and that LibTorch declares where \p C's callee lives; "" if none. In-place
/// forms that only change metadata (detach_, squeeze_, t_) are not offered:
/// they change the tensor object every handle shares (detach_ on a parameter
/// stops its training) and detach_ refuses views.
StringRef valueChangingTwin(const LibTorchCall &C) {
  const OpInfo *Twin = inPlaceTwinOf(C.Name);
  if (!Twin || (Twin->Roles & (op::KeepsValues | op::RemovesHistory)) ||
      !declaresSibling(C, Twin->Name))
    return "";
  return Twin->Name;
}

StringRef fileText(const Expr &E, const SourceManager &SM,
                   const LangOptions &LO) {
  if (!beginLoc(E).isFileID() || !endLoc(E).isFileID())
    return "";
  return Lexer::getSourceText(
      CharSourceRange::getTokenRange(beginLoc(E), endLoc(E)), SM, LO);
}

/// The call at \p Loc in \p Body (the pattern of an instantiated function).
const CallExpr *callAt(const Stmt *Body, SourceLocation Loc) {
  const CallExpr *Found = nullptr;
  forEachStmt(Body, [&](const Stmt &S) {
    if (!Found && isa<CallExpr>(S) && beginLoc(S) == Loc)
      Found = cast<CallExpr>(&S);
  });
  return Found;
}

} // namespace

void DiscardedTensorResultCheck::registerMatchers(MatchFinder *Finder) {
  // Every function body of the user's code, walked from its declaration (no
  // parent map): templates as written, and their instantiations for the calls
  // on an operand of dependent type, which only an instantiation shows to be
  // tensors.
  UserCode.addMatcher(
      functionDecl(isDefinition(), isExpansionInUserCode()).bind("function"));
  UserCode.registerWith(*Finder);
}

void DiscardedTensorResultCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("function");
  if (!Fn->getBody())
    return;
  const bool Instance = isInTemplateInstantiation(*Fn);
  const FunctionDecl *Pattern =
      Instance ? Fn->getTemplateInstantiationPattern() : nullptr;
  forEachStmt(Fn->getBody(), [&](const Stmt &Parent) {
    forEachDiscardedValue(Parent, [&](const Expr &Dropped) {
      if (!Instance) {
        report(Dropped, /*InInstantiation=*/false, Result);
        return;
      }
      // Reported from the template as written unless its operand's type was
      // dependent there.
      const CallExpr *Written =
          Pattern && Pattern->getBody()
              ? callAt(Pattern->getBody(), beginLoc(Dropped))
              : nullptr;
      if (!Written || !outOfPlaceCall(*Written))
        report(Dropped, /*InInstantiation=*/true, Result);
    });
  });
}

void DiscardedTensorResultCheck::report(
    const Expr &Dropped, bool InInstantiation,
    const MatchFinder::MatchResult &Result) {
  std::optional<LibTorchCall> C = outOfPlaceCall(Dropped);
  if (!C) {
    reportHelper(Dropped, Result);
    return;
  }
  const SourceManager &SM = *Result.SourceManager;
  SourceLocation Name = calleeNameLoc(*C);
  if (Name.isInvalid())
    Name = beginLoc(*C->Call);
  // A call written inside a LibTorch or system macro is not the user's.
  if (!isInUserCode(SM.getSpellingLoc(Name), SM) ||
      !Reported.insert(SM.getExpansionLoc(Name)).second)
    return;

  const StringRef Twin = valueChangingTwin(*C);
  auto Diag = diag(Name, "result of out-of-place '%0' is discarded, so the "
                         "statement changes nothing; %select{assign the "
                         "result|use '%2' to change the tensor in place, or "
                         "assign the result}1")
              << C->Name << !Twin.empty() << Twin;
  // Fix-its: for the template as written only (an instantiation's operand
  // may be another type in another instantiation), for a named tensor, and
  // for code spelled in the file.
  const Expr *Target = InInstantiation ? nullptr : namedTensor(operandOf(*C));
  if (!Target || !Name.isFileID() || !beginLoc(*C->Call).isFileID() ||
      !endLoc(*C->Call).isFileID())
    return;
  if (!Twin.empty()) {
    Diag << FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Name, Name), Twin);
    return;
  }
  // The same values in another form (a conversion, a view, detach): the
  // writer meant to keep the result in the tensor's place.
  const StringRef Text = fileText(*Target, SM, Result.Context->getLangOpts());
  if (!Text.empty() && C->is(op::ValuePreserving | op::RemovesHistory) &&
      isTensorType(C->Call->getType()))
    Diag << FixItHint::CreateInsertion(beginLoc(*C->Call),
                                       (Text + " = ").str());
}

void DiscardedTensorResultCheck::reportHelper(
    const Expr &Dropped, const MatchFinder::MatchResult &Result) {
  const auto *Call = dyn_cast_or_null<CallExpr>(stripImplicit(&Dropped));
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isa<CXXMemberCallExpr>(Call))
    return;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
      Method && Method->isVirtual())
    return;
  if (!Helpers.isPure(*Callee))
    return;
  // The name the call is written with: the function's, or the variable that
  // holds the lambda.
  SourceLocation Name = beginLoc(*Call);
  std::string Spelling = Callee->getNameAsString();
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    const ValueDecl *Holder = namedEntity(*Op->getArg(0));
    if (!Holder)
      return;
    Spelling = Holder->getNameAsString();
  } else if (const auto *Ref = dyn_cast<DeclRefExpr>(
                 Call->getCallee()->IgnoreParenImpCasts())) {
    Name = Ref->getLocation();
  }
  const SourceManager &SM = *Result.SourceManager;
  if (!isInUserCode(SM.getSpellingLoc(Name), SM) ||
      !Reported.insert(SM.getExpansionLoc(Name)).second)
    return;
  diag(Name, "result of '%0' is discarded, and it only computes a tensor out "
             "of place, so the statement changes nothing; assign the result")
      << Spelling;
}

} // namespace clang::tidy::torch
