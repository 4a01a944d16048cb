//===--- UserCodeMatchFinder.cpp - match the user's code only -------------===//

#include "utils/libtorch/UserCodeMatchFinder.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ASTContext.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {
constexpr llvm::StringLiteral TranslationUnitID = "user-code-match-finder-tu";
} // namespace

void UserCodeMatchFinder::registerWith(MatchFinder &ClangTidyFinder) {
  ClangTidyFinder.addMatcher(translationUnitDecl().bind(TranslationUnitID),
                             &Check);
}

bool UserCodeMatchFinder::handles(const MatchFinder::MatchResult &Result) {
  const auto *TU =
      Result.Nodes.getNodeAs<TranslationUnitDecl>(TranslationUnitID);
  if (!TU)
    return false;
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();

  // The top-level declarations in the traversal scope (clangd sets one: the
  // main file's declarations) that the user wrote.
  const std::vector<Decl *> Scope = Ctx.getTraversalScope();
  std::vector<Decl *> UserDecls;
  auto Consider = [&](Decl *D) {
    if (D && !D->isImplicit() && isInUserCode(D->getLocation(), SM))
      UserDecls.push_back(D);
  };
  if (Scope.size() == 1 && isa<TranslationUnitDecl>(Scope.front()))
    for (Decl *D : TU->decls())
      Consider(D);
  else
    for (Decl *D : Scope)
      Consider(D);

  // The translation unit is the first node clang-tidy's finder matches, so no
  // parent map has been built yet; one built while the scope is narrowed maps
  // only the user's code. Both setTraversalScope calls drop it.
  Ctx.setTraversalScope(UserDecls);
  Finder.matchAST(Ctx);
  Ctx.setTraversalScope(Scope);
  return true;
}

} // namespace clang::tidy::torch
