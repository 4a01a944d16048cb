//===--- EvalLoopWithoutNoGradCheck.cpp -----------------------------------===//
//
// torch-eval-loop-without-no-grad
//
//===----------------------------------------------------------------------===//

#include "EvalLoopWithoutNoGradCheck.h"
#include "utils/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

constexpr llvm::StringLiteral DefaultEvaluationFunctionRegex =
    "(?i)(eval|valid|test|infer|predict)";

/// A regex with an optional leading "(?i)" for case-insensitive matching,
/// which llvm::Regex does not understand itself.
llvm::Regex makeRegex(StringRef Pattern) {
  llvm::Regex::RegexFlags Flags = llvm::Regex::NoFlags;
  if (Pattern.consume_front("(?i)"))
    Flags = llvm::Regex::IgnoreCase;
  return {Pattern, Flags};
}

/// The names the code around \p S is known by, innermost first: a lambda
/// stored in a variable is named by the variable (`auto evaluate = [&] {...}`),
/// then the enclosing functions up to the first that is not a lambda.
llvm::SmallVector<std::string, 2> contextNames(const Stmt &S, ASTContext &Ctx) {
  llvm::SmallVector<std::string, 2> Names;
  DynTypedNode Node = DynTypedNode::create(S);
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty())
      break;
    Node = Parents[0];
    if (Node.get<LambdaExpr>()) {
      // The variable the lambda initialises, through implicit wrappers.
      DynTypedNode Up = Node;
      while (true) {
        DynTypedNodeList UpParents = Ctx.getParents(Up);
        if (UpParents.empty())
          break;
        Up = UpParents[0];
        if (const auto *E = Up.get<Expr>();
            E && E->IgnoreImplicit() != E &&
            isa<LambdaExpr>(E->IgnoreImplicit()))
          continue;
        if (Up.get<CXXConstructExpr>() || Up.get<ExprWithCleanups>() ||
            Up.get<MaterializeTemporaryExpr>() || Up.get<ImplicitCastExpr>() ||
            Up.get<CXXBindTemporaryExpr>())
          continue;
        if (const auto *VD = Up.get<VarDecl>())
          Names.push_back(VD->getNameAsString());
        break;
      }
      continue;
    }
    if (const auto *Fn = Node.get<FunctionDecl>()) {
      const auto *Method = dyn_cast<CXXMethodDecl>(Fn);
      if (Method && Method->getParent()->isLambda())
        continue;
      Names.push_back(Fn->getNameAsString());
      break;
    }
  }
  return Names;
}

/// A name for the guard variable that no visible or sibling declaration uses.
std::string freshGuardName(const Stmt &Loop, const CompoundStmt &Block,
                           ASTContext &Ctx) {
  auto Taken = [&](StringRef Name) {
    for (const Stmt *St : Block.body())
      if (const auto *DS = dyn_cast<DeclStmt>(St))
        for (const Decl *D : DS->decls())
          if (const auto *ND = dyn_cast<NamedDecl>(D);
              ND && ND->getIdentifier() && ND->getName() == Name)
            return true;
    return !visibleLocalVariables(
                Loop, Ctx,
                [&](const VarDecl &VD) {
                  return VD.getIdentifier() && VD.getName() == Name;
                },
                /*CrossLambdas=*/true)
                .empty();
  };
  if (!Taken("no_grad"))
    return "no_grad";
  if (!Taken("no_grad_guard"))
    return "no_grad_guard";
  for (unsigned I = 1;; ++I) {
    std::string Name = "no_grad_" + std::to_string(I);
    if (!Taken(Name))
      return Name;
  }
}

} // namespace

EvalLoopWithoutNoGradCheck::EvalLoopWithoutNoGradCheck(
    StringRef Name, ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      EvaluationFunctionRegex(Options.get("EvaluationFunctionRegex",
                                          DefaultEvaluationFunctionRegex)),
      EvaluationFunction(makeRegex(EvaluationFunctionRegex)) {
  std::string Error;
  if (!EvaluationFunction.isValid(Error))
    configurationDiag("invalid EvaluationFunctionRegex '%0': %1; using the "
                      "default")
        << EvaluationFunctionRegex << Error;
  if (!EvaluationFunction.isValid(Error))
    EvaluationFunction = makeRegex(DefaultEvaluationFunctionRegex);
}

void EvalLoopWithoutNoGradCheck::storeOptions(
    ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "EvaluationFunctionRegex", EvaluationFunctionRegex);
}

void EvalLoopWithoutNoGradCheck::registerMatchers(MatchFinder *Finder) {
  // Instantiations are checked too: a forward through a dependent module
  // (`model->forward(x)` with `Model &model`) is only resolved there. Each
  // loop is reported once.
  Finder->addMatcher(
      callExpr(isExpansionInUserCode(), isModuleForward(), unless(isLoss()))
          .bind("forward"),
      this);
}

void EvalLoopWithoutNoGradCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Forward = Result.Nodes.getNodeAs<CallExpr>("forward");
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  if (!isInUserCode(SM.getSpellingLoc(Forward->getBeginLoc()), SM))
    return;
  const auto Loops = enclosingLoops(*Forward, Ctx);
  if (Loops.empty() || hasNoGradGuardInScope(*Forward, Ctx))
    return;
  const FunctionDecl *Outer =
      enclosingFunction(*Forward, Ctx, /*Outermost=*/true);
  if (!Outer || !Outer->getBody())
    return;

  // What the function does around the loop: backward passes and optimizer
  // steps, module mode changes, grad mode set by hand.
  llvm::SmallVector<const CallExpr *, 4> TrainingCalls;
  const CallExpr *LastModeCall = nullptr;
  bool SetsGradMode = false;
  const SourceLocation ForwardLoc = SM.getExpansionLoc(Forward->getBeginLoc());
  auto Visit = [&](auto &&Self, const Stmt *S) -> void {
    if (!S)
      return;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (isTrainingCall(*Call))
        TrainingCalls.push_back(Call);
      else if (isGradModeSetCall(*Call))
        SetsGradMode = true;
      else if ((isModuleEvalCall(*Call, Ctx) ||
                isModuleTrainCall(*Call, Ctx)) &&
               SM.isBeforeInTranslationUnit(
                   SM.getExpansionLoc(Call->getBeginLoc()), ForwardLoc) &&
               (!LastModeCall ||
                SM.isBeforeInTranslationUnit(
                    SM.getExpansionLoc(LastModeCall->getBeginLoc()),
                    SM.getExpansionLoc(Call->getBeginLoc()))))
        LastModeCall = Call;
    }
    for (const Stmt *Child : S->children())
      Self(Self, Child);
  };
  Visit(Visit, Outer->getBody());
  // A generic lambda's instantiated body is not part of the enclosing
  // function's (which holds its pattern).
  if (const FunctionDecl *Inner = enclosingFunction(*Forward, Ctx);
      Inner && Inner != Outer && Inner->isTemplateInstantiation())
    Visit(Visit, Inner->getBody());
  if (SetsGradMode)
    return;

  // A backward pass in a loop around the forward (or outside any loop) means
  // gradients are wanted: adversarial inputs, style transfer, fine-tuning.
  // One in a sibling loop (the training loop of an epoch) does not.
  const auto AllLoops = enclosingLoops(*Forward, Ctx, /*CrossLambdas=*/true);
  for (const CallExpr *Training : TrainingCalls) {
    const auto TrainingLoops =
        enclosingLoops(*Training, Ctx, /*CrossLambdas=*/true);
    if (TrainingLoops.empty() ||
        llvm::is_contained(AllLoops, TrainingLoops.front()))
      return;
  }

  // Evaluation context: the function's name, or a module put into eval mode
  // (the last mode change before the forward is eval()).
  bool NamedForEvaluation = false;
  for (const std::string &Name : contextNames(*Forward, Ctx))
    NamedForEvaluation |= EvaluationFunction.match(Name);
  const CallExpr *EvalCall =
      LastModeCall && isModuleEvalCall(*LastModeCall, Ctx) ? LastModeCall
                                                           : nullptr;
  if (!NamedForEvaluation && !EvalCall)
    return;

  // The evaluation loop: the outermost loop around the forward that trains
  // nothing (an epoch loop that also trains is not one).
  const Stmt *EvalLoop = nullptr;
  for (const Stmt *Loop : llvm::reverse(Loops))
    if (!containsTrainingCall(*Loop)) {
      EvalLoop = Loop;
      break;
    }
  if (!EvalLoop)
    return;
  if (!ReportedLoops.insert(EvalLoop->getBeginLoc()).second)
    return;

  {
    auto Diag =
        diag(Forward->getBeginLoc(),
             "module forward in an evaluation loop without a "
             "gradient-disabling guard records an autograd graph on every "
             "iteration; add 'torch::NoGradGuard no_grad;' before the loop");

    // Fix-it: the guard on its own line before the loop, in the loop's block.
    DynTypedNodeList Parents = Ctx.getParents(*EvalLoop);
    const auto *Block =
        Parents.empty() ? nullptr : Parents[0].get<CompoundStmt>();
    SourceLocation LoopLoc = EvalLoop->getBeginLoc();
    // The guard lives until the end of the block: not if later statements of
    // the block train, and not twice in one block (the first one covers the
    // rest of the block).
    bool LaterStatementsTrain = false;
    if (Block) {
      bool AfterLoop = false;
      for (const Stmt *St : Block->body()) {
        if (AfterLoop && containsTrainingCall(*St))
          LaterStatementsTrain = true;
        AfterLoop |= St == EvalLoop;
      }
    }
    if (Block && LoopLoc.isFileID() && !LaterStatementsTrain &&
        GuardedBlocks.insert(Block->getBeginLoc()).second) {
      const std::string Guard =
          "torch::NoGradGuard " + freshGuardName(*EvalLoop, *Block, Ctx) + ";";
      auto [File, Offset] = SM.getDecomposedLoc(LoopLoc);
      StringRef Buffer = SM.getBufferData(File);
      StringRef BeforeLoop = Buffer.substr(0, Offset);
      StringRef LineStart = BeforeLoop.substr(BeforeLoop.rfind('\n') + 1);
      if (LineStart.find_first_not_of(" \t") == StringRef::npos)
        Diag << FixItHint::CreateInsertion(LoopLoc,
                                           Guard + "\n" + LineStart.str());
      else
        Diag << FixItHint::CreateInsertion(LoopLoc, Guard + " ");
    }
  }
  if (EvalCall)
    diag(EvalCall->getBeginLoc(), "module put into evaluation mode here",
         DiagnosticIDs::Note);
}

} // namespace clang::tidy::torch
