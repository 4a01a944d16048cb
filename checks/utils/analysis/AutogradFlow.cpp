//===--- AutogradFlow.cpp - function-local autograd dataflow --------------===//
//
// The entry point of the analysis (AutogradFlow::analyze), its queries per
// expression, and the selection and sharing of analyses for the graph checks.
// The dataflow itself is built in autograd/ (autograd/Builder.h lists which
// file holds which concern).
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/AutogradFlow.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/autograd/Builder.h"
#include "utils/analysis/autograd/MemberState.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>
#include <utility>

namespace clang::tidy::torch {

std::unique_ptr<AutogradFlow> AutogradFlow::analyze(const FunctionDecl &F,
                                                    ASTContext &Ctx, Mode M) {
  auto Result = std::make_unique<AutogradFlow>();
  Result->Function = &F;
  AutogradFlowBuilder Builder(F, Ctx, *Result, M);
  if (!Builder.run())
    return nullptr;
  return Result;
}

// --- Queries
// ----------------------------------------------------------------------------

const AutogradFlow::Evidence *AutogradFlow::evidenceOf(const Expr &E) const {
  // The expression as the caller holds it, then as written: a check may hold
  // a node the analysis saw under an implicit conversion, or the reverse.
  for (const Expr *Form :
       {&E, E.IgnoreImplicit(), E.IgnoreParenImpCasts(), stripImplicit(&E)}) {
    if (!Form)
      continue;
    auto It = ExprEvidence.find(Form);
    if (It != ExprEvidence.end())
      return &It->second;
  }
  return nullptr;
}

HistoryEvidence AutogradFlow::historyOf(const Expr &E) const {
  const Evidence *Found = evidenceOf(E);
  return Found ? Found->History : HistoryEvidence::None;
}

bool AutogradFlow::hasHistoryEvidence(const Expr &E) const {
  const Evidence *Found = evidenceOf(E);
  return Found &&
         (Found->History == HistoryEvidence::Evident || Found->Backpropagated);
}

// --- Selection and sharing for the graph checks
// ----------------------------------

namespace {

using FlowKey = std::pair<const ASTContext *, const FunctionDecl *>;

/// The analyses of the current translation unit on this thread; a null value
/// records that the function has no CFG. See AutogradFunctions.
llvm::DenseMap<FlowKey, std::unique_ptr<AutogradFlow>> &flowCache() {
  thread_local llvm::DenseMap<FlowKey, std::unique_ptr<AutogradFlow>> Cache;
  return Cache;
}

} // namespace

void AutogradFunctions::registerMatchers(
    UserCodeMatchFinder &Finder, const ast_matchers::StatementMatcher &Filter) {
  using namespace ast_matchers;
  // Only the user's top-level declarations are searched (UserCodeMatchFinder);
  // then whether the body has a statement of interest at all. Instantiations
  // are skipped in analysisOf(), by declaration context (no parent map).
  Finder.addMatcher(functionDecl(isExpansionInUserCode(), isDefinition(),
                                 hasBody(stmt(hasDescendant(Filter))))
                        .bind("fn"));
  Finder.addMatcher(lambdaExpr(isExpansionInUserCode(), hasDescendant(Filter))
                        .bind("lambda"));
}

const AutogradFlow *AutogradFlow::of(const FunctionDecl &F, ASTContext &Ctx) {
  auto [It, Inserted] = flowCache().try_emplace(FlowKey(&Ctx, &F));
  if (Inserted)
    It->second = AutogradFlow::analyze(F, Ctx);
  return It->second.get();
}

void AutogradFlow::forgetTranslationUnit() {
  flowCache().clear();
  FunctionSummary::forgetTranslationUnit();
  autograd::forgetMemberStates();
}

const AutogradFlow *AutogradFunctions::analysisOf(
    const ast_matchers::MatchFinder::MatchResult &Result) {
  const FunctionDecl *Fn = Result.Nodes.getNodeAs<FunctionDecl>("fn");
  if (const auto *Lambda = Result.Nodes.getNodeAs<LambdaExpr>("lambda"))
    Fn = Lambda->getCallOperator();
  // Templates are analysed once, in their written form.
  if (!Fn || isInTemplateInstantiation(*Fn) || !Handed.insert(Fn).second)
    return nullptr;
  return AutogradFlow::of(*Fn, *Result.Context);
}

void AutogradFunctions::startTranslationUnit() {
  Handed.clear();
  AutogradFlow::forgetTranslationUnit();
}

void AutogradFunctions::endTranslationUnit() {
  Handed.clear();
  AutogradFlow::forgetTranslationUnit();
}

} // namespace clang::tidy::torch
