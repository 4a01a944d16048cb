//===--- UserCodeMatchFinder.cpp - match the user's code only -------------===//

#include "utils/libtorch/UserCodeMatchFinder.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyModule.h"
#if TORCH_TIDY_LLVM_MAJOR < 22
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif
#include "utils/analysis/ProjectSummaries.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ASTContext.h"
#include "clang/StaticAnalyzer/Core/AnalyzerOptions.h"
#include <string>
#include <vector>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {
constexpr llvm::StringLiteral TranslationUnitID = "user-code-match-finder-tu";

thread_local ClangTidyContext *TidyContext = nullptr;

/// Every check this clang-tidy knows that is not ours: the registered
/// modules' checks (upstream's, other plugins') and the static analyzer's,
/// by the names a Checks glob enables them with. Computed once per process.
const std::vector<std::string> &otherCheckNames() {
  static const std::vector<std::string> Names = [] {
    std::vector<std::string> Result;
    ClangTidyCheckFactories Factories;
    for (const auto &Entry : ClangTidyModuleRegistry::entries())
      Entry.instantiate()->addCheckFactories(Factories);
    for (const auto &Factory : Factories)
      if (!Factory.getKey().starts_with("torch-"))
        Result.push_back(Factory.getKey().str());
    for (StringRef Checker :
         AnalyzerOptions::getRegisteredCheckers(/*IncludeExperimental=*/true))
      Result.push_back(("clang-analyzer-" + Checker).str());
    return Result;
  }();
  return Names;
}

/// True when the file's Checks enable no check but torch-* ones.
bool onlyTorchChecksRun() {
  if (!TidyContext)
    return false;
  for (const std::string &Name : otherCheckNames())
    if (TidyContext->isCheckEnabled(Name))
      return false;
  return true;
}
} // namespace

void setTidyContextForThisThread(ClangTidyContext *Context) {
  TidyContext = Context;
}

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
  // The summaries of other files this one reads, and its own to write (the
  // first check to get here does it, once per translation unit). Their
  // walks over the translation unit see the narrowed scope too: reading
  // every declaration of a precompiled LibTorch back would cost more than
  // the whole analysis.
  startTranslationUnitSummaries(Ctx, TidyContext);
  Finder.matchAST(Ctx);
  // clang-tidy's finder reads the scope after matching the translation unit,
  // before it visits its children: left narrowed, it traverses only the user's
  // code too. Only when no other check wants the rest.
  if (!onlyTorchChecksRun())
    Ctx.setTraversalScope(Scope);
  return true;
}

} // namespace clang::tidy::torch
