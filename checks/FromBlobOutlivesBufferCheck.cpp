//===--- FromBlobOutlivesBufferCheck.cpp - torch-from-blob-outlives-buffer ===//

#include "FromBlobOutlivesBufferCheck.h"
#include "utils/analysis/BorrowedMemory.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/MapVector.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// What the memory is called in a message: 'buf', or a temporary.
std::string memoryName(const ShortLivedMemory &Memory) {
  if (!Memory.Owner)
    return "a temporary";
  return "'" + Memory.Owner->getNameAsString() + "'";
}

std::string targetName(const ValueDecl *Target) {
  if (!Target || !Target->getIdentifier())
    return "memory outside the function";
  return "'" + Target->getNameAsString() + "'";
}

/// A returned tensor expression `.clone()` can be appended to as written.
bool acceptsClone(const Expr *Returned) {
  const Expr *E = Returned->IgnoreUnlessSpelledInSource();
  if (!isTensorType(E->getType()) && !E->isTypeDependent())
    return false;
  if (isa<DeclRefExpr, ParenExpr>(E))
    return true;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return Op->getOperator() == OO_Subscript;
  return isa<CallExpr>(E);
}

/// A call of a function of the user's that wraps the memory of one of its
/// arguments into its result or an out-parameter.
bool wrapsArgumentMemory(const CallExpr &Call, ASTContext &Ctx) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee || isa<CXXMethodDecl>(Callee))
    return false;
  const FunctionDecl *Def = Callee->getDefinition();
  return Def && Def->getBody() && !Def->isTemplated() &&
         isInUserCode(Def->getLocation(), Ctx.getSourceManager()) &&
         !argumentWraps(*Def, Ctx).empty();
}

} // namespace

void FromBlobOutlivesBufferCheck::registerMatchers(MatchFinder *Finder) {
  // Templates are checked once, in their written form.
  UserCode.addMatcher(functionDecl(isExpansionInUserCode(), isDefinition(),
                                   unless(ast_matchers::isInstantiated()))
                          .bind("fn"));
  UserCode.registerWith(*Finder);
}

void FromBlobOutlivesBufferCheck::check(
    const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (!Fn || !Fn->getBody() || isInTemplateInstantiation(*Fn))
    return;
  // A lambda's body is analysed with the function that contains it (a lambda
  // outside any function, as its own).
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Fn);
      Method && Method->getParent()->isLambda() &&
      Method->getParent()->getDeclContext()->isFunctionOrMethod())
    return;
  bool Wraps = false;
  llvm::SmallVector<const FunctionDecl *, 2> Functions{Fn};
  forEachStmt(Fn->getBody(), [&](const Stmt &S) {
    if (const auto *Lambda = dyn_cast<LambdaExpr>(&S))
      Functions.push_back(Lambda->getCallOperator());
    else if (const auto *Call = dyn_cast<CallExpr>(&S))
      Wraps = Wraps || asMemoryWrappingCall(Call).has_value() ||
              wrapsArgumentMemory(*Call, *Result.Context);
  });
  if (!Wraps)
    return;
  for (const FunctionDecl *F : Functions)
    if (Analysed.insert(F).second)
      checkFunction(*F, *Result.Context);
}

void FromBlobOutlivesBufferCheck::checkFunction(const FunctionDecl &Fn,
                                                ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LangOpts = Ctx.getLangOpts();
  llvm::MapVector<const CallExpr *, llvm::SmallVector<MemoryEscape, 2>> ByWrap;
  for (const MemoryEscape &E : findMemoryEscapes(Fn, Ctx))
    ByWrap[E.Wrap].push_back(E);

  for (const auto &[Wrap, Escapes] : ByWrap) {
    // A call spelled inside a macro of LibTorch or of a system header is not
    // the user's to fix.
    if (!isInUserCode(SM.getSpellingLoc(beginLoc(*Wrap)), SM))
      continue;
    const MemoryEscape &First = Escapes.front();
    const std::string Memory = memoryName(First.Memory);
    // A helper's wrapping call is reported at the call, where the memory is
    // the caller's.
    const std::string Wrapper =
        First.Helper ? "from_blob in '" + First.Helper->getNameAsString() + "'"
                     : std::string("from_blob");
    {
      auto Diag = [&]() {
        switch (First.Kind) {
        case MemoryEscapeKind::Returned:
          return diag(beginLoc(*Wrap),
                      "%2 does not copy or own the memory of %0, and "
                      "the tensor is returned from the scope that frees it; "
                      "call .clone() before the tensor escapes")
                 << Memory << "" << Wrapper;
        case MemoryEscapeKind::StoredOutside:
          return diag(beginLoc(*Wrap),
                      "%2 does not copy or own the memory of %0, and "
                      "the tensor is stored in %1, which outlives it; call "
                      ".clone() before the tensor escapes")
                 << Memory << targetName(First.Target) << Wrapper;
        case MemoryEscapeKind::ReadAfterEnd:
          break;
        }
        return diag(beginLoc(*Wrap),
                    "%2 does not copy or own the memory of %0, and the "
                    "tensor is used through %1 after that memory is freed; "
                    "call .clone() before the tensor escapes")
               << Memory << targetName(First.Target) << Wrapper;
      }();

      // Fix-it: where every escape is a return of this tensor alone.
      bool Fixable = llvm::all_of(Escapes, [](const MemoryEscape &E) {
        return E.Kind == MemoryEscapeKind::Returned && E.OnlyWrap &&
               acceptsClone(cast<Expr>(E.At));
      });
      llvm::SmallVector<FixItHint, 2> Fixes;
      for (const MemoryEscape &E : Escapes) {
        if (!Fixable)
          break;
        const auto *Returned = cast<Expr>(E.At);
        if (beginLoc(*Returned).isMacroID() || endLoc(*Returned).isMacroID()) {
          Fixable = false;
          break;
        }
        SourceLocation End =
            Lexer::getLocForEndOfToken(endLoc(*Returned), 0, SM, LangOpts);
        if (End.isInvalid()) {
          Fixable = false;
          break;
        }
        Fixes.push_back(FixItHint::CreateInsertion(End, ".clone()"));
      }
      if (Fixable)
        for (const FixItHint &Fix : Fixes)
          Diag << Fix;
    }

    if (First.Inner && First.Helper)
      diag(beginLoc(*First.Inner),
           "from_blob wraps the memory here, in a call of %0",
           DiagnosticIDs::Note)
          << First.Helper;
    for (const MemoryEscape &E : Escapes) {
      switch (E.Kind) {
      case MemoryEscapeKind::Returned:
        diag(beginLoc(*E.At), "the tensor is returned here",
             DiagnosticIDs::Note);
        break;
      case MemoryEscapeKind::StoredOutside:
        diag(beginLoc(*E.At), "the tensor is stored here", DiagnosticIDs::Note);
        break;
      case MemoryEscapeKind::ReadAfterEnd:
        diag(beginLoc(*E.At), "%0 is read here after %1 is freed",
             DiagnosticIDs::Note)
            << targetName(E.Target) << memoryName(E.Memory);
        break;
      }
    }
  }
}

} // namespace clang::tidy::torch
