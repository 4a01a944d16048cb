//===--- SoftmaxBeforeCrossEntropyCheck.cpp -------------------------------===//
//
// torch-softmax-before-cross-entropy
//
//===----------------------------------------------------------------------===//

#include "SoftmaxBeforeCrossEntropyCheck.h"
#include "utils/analysis/BoundaryGuard.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include <functional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// What a loss's prediction visibly is.
enum class Scores { Unknown, Probabilities, LogProbabilities, Logits };

struct Origin {
  Scores Kind = Scores::Unknown;
  /// The softmax, log_softmax, linear or forward call that made it.
  const Expr *Producer = nullptr;
  /// The producer is the loss's argument as written (no variable, no view,
  /// no module forward in between): a fix-it can rewrite it in place.
  bool Inline = true;
};

constexpr unsigned MaxDepth = 8;

const FunctionDecl *userForwardOf(const CallExpr &Forward);

/// The return values of the forward a user module's forward call runs.
llvm::SmallVector<const Expr *, 2> forwardReturns(const CallExpr &Forward) {
  if (const FunctionDecl *Def = userForwardOf(Forward))
    return returnedValues(*Def);
  return {};
}

/// Every value a call returns agrees on what it is (Unknown when not).
Origin agreedOrigin(llvm::ArrayRef<const Expr *> Values,
                    BoundaryAnalysis &Locals, unsigned Depth);

const CXXRecordDecl *implOf(QualType T) { return moduleImplOf(T); }


/// What LibTorch's layer \p Impl outputs: Softmax probabilities, LogSoftmax
/// log-probabilities, Linear raw scores.
Scores scoresOfLayer(const CXXRecordDecl *Impl) {
  const auto *NS =
      Impl ? dyn_cast<NamespaceDecl>(Impl->getDeclContext()) : nullptr;
  if (!Impl || !Impl->getIdentifier() || !NS ||
      NS->getQualifiedNameAsString() != "torch::nn")
    return Scores::Unknown;
  if (Impl->getName() == "SoftmaxImpl")
    return Scores::Probabilities;
  if (Impl->getName() == "LogSoftmaxImpl")
    return Scores::LogProbabilities;
  if (isScoreLayerClass(Impl))
    return Scores::Logits;
  return Scores::Unknown;
}

/// The layer the last `push_back` into \p Entity appends in \p Body, when
/// every `push_back` into it there runs unconditionally (not in a branch or a
/// loop): `net->push_back(torch::nn::Softmax(1));`. Null otherwise.
const Expr *lastAppendedLayer(const Stmt *Body, const ValueDecl *Entity) {
  const Expr *Last = nullptr;
  bool Conditional = false;
  std::function<void(const Stmt *, bool)> Walk = [&](const Stmt *S,
                                                     bool InBranch) {
    if (!S || isa<LambdaExpr>(S))
      return;
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *M = Call->getMethodDecl();
      if (M && M->getIdentifier() && M->getName() == "push_back" &&
          Call->getNumArgs() >= 1 &&
          moduleObjectEntity(Call->getImplicitObjectArgument()) == Entity) {
        Conditional |= InBranch;
        Last = Call->getArg(Call->getNumArgs() - 1);
      }
    }
    const bool Branches =
        isa<IfStmt, ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, SwitchStmt,
            AbstractConditionalOperator>(S);
    for (const Stmt *Child : S->children())
      Walk(Child, InBranch || Branches);
  };
  Walk(Body, false);
  return Conditional ? nullptr : Last;
}

/// The last layer \p E, a Sequential's constructor argument, names.
const Expr *lastLayerOf(const Expr *E) {
  return sequentialLayerOf(E, /*Last=*/true);
}

/// For the forward of a torch::nn::Sequential declared with its layers
/// (`torch::nn::Sequential net(torch::nn::Linear(4, 3),
/// torch::nn::Softmax(1));`, a variable or a member initialised in place):
/// what its last layer outputs.
Scores scoresOfSequential(const CallExpr &Forward) {
  const CXXRecordDecl *Impl = forwardModuleClass(Forward);
  if (!Impl || !Impl->getIdentifier() || Impl->getName() != "SequentialImpl")
    return Scores::Unknown;
  const Expr *Object = nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Forward))
    Object = Op->getNumArgs() ? Op->getArg(0) : nullptr;
  else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Forward))
    Object = Member->getImplicitObjectArgument();
  const ValueDecl *Entity = moduleObjectEntity(Object);
  const Expr *Init = nullptr;
  if (const auto *Var = dyn_cast_or_null<VarDecl>(Entity))
    Init = Var->getInit();
  else if (const auto *Field = dyn_cast_or_null<FieldDecl>(Entity))
    Init = Field->getInClassInitializer();
  auto ConstructedLast = [&](const Expr *From) -> const Expr * {
    const CXXConstructExpr *Construct = nullptr;
    forEachStmt(From, [&](const Stmt &S) {
      if (const auto *C = dyn_cast<CXXConstructExpr>(&S);
          C && !Construct && C->getNumArgs() > 0 &&
          implOf(C->getType()) == Impl)
        Construct = C;
    });
    return Construct ? Construct->getArg(Construct->getNumArgs() - 1)
                     : nullptr;
  };
  // Built in place with its layers: a variable, a member's default
  // initialiser, or a member its class's constructors assign
  // (`net = register_module("net", torch::nn::Sequential(...))`).
  const CXXConstructExpr *InPlace = sequentialConstructionOf(Forward);
  const Expr *Last =
      InPlace ? InPlace->getArg(InPlace->getNumArgs() - 1) : nullptr;
  // Made by a factory of the user's code (`auto model = build_model(...)`):
  // what every return of it builds, in place or in a local it returns.
  if (const auto *Factory = dyn_cast_or_null<CallExpr>(stripImplicit(Init));
      !Last && Factory && Entity) {
    const FunctionDecl *Body =
        calledBody(*Factory, Entity->getASTContext());
    llvm::SmallVector<const Expr *, 2> Returns =
        Body ? returnedValues(*Body) : llvm::SmallVector<const Expr *, 2>();
    std::optional<Scores> Agreed;
    for (const Expr *Returned : Returns) {
      const Expr *R = stripImplicit(Returned);
      const Expr *L = ConstructedLast(R);
      if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(R))
        if (const auto *Local = dyn_cast<VarDecl>(Ref->getDecl());
            Local && Local->hasLocalStorage()) {
          L = ConstructedLast(Local->getInit());
          if (const Expr *Appended = lastAppendedLayer(Body->getBody(), Local))
            L = Appended;
        }
      L = lastLayerOf(L);
      const Scores Each = L ? scoresOfLayer(implOf(L->getType())) : Scores::Unknown;
      if (Each == Scores::Unknown || (Agreed && *Agreed != Each))
        return Scores::Unknown;
      Agreed = Each;
    }
    return Agreed ? *Agreed : Scores::Unknown;
  }
  // Built layer by layer (`net->push_back(...)`): in the function that
  // declares it, or in the constructors of the class that holds it.
  if (const auto *Var = dyn_cast_or_null<VarDecl>(Entity);
      Var && Var->hasLocalStorage())
    if (const auto *Fn = dyn_cast<FunctionDecl>(Var->getDeclContext()))
      if (const Expr *Appended = lastAppendedLayer(Fn->getBody(), Var))
        Last = Appended;
  if (const auto *Field = dyn_cast_or_null<FieldDecl>(Entity))
    if (const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent()))
      for (const CXXConstructorDecl *Ctor : Class->ctors())
        if (const Expr *Appended = lastAppendedLayer(Ctor->getBody(), Field))
          Last = Appended;
  Last = lastLayerOf(Last);
  if (!Last)
    return Scores::Unknown;
  return scoresOfLayer(implOf(Last->getType()));
}

/// The values element \p Index of \p Whole can hold (a struct's field in
/// declaration order, a tuple's element), when \p Whole is (a local defined
/// as) a call of the user's code, a module's forward included, whose every
/// return builds it in place: `return {logits, torch::softmax(logits, 1)};`,
/// `return std::make_tuple(logits, probs);`. Empty otherwise.
llvm::SmallVector<const Expr *, 2> elementValues(const Expr *Whole,
                                                 unsigned Index,
                                                 const ASTContext &Ctx,
                                                 BoundaryAnalysis &Locals) {
  Whole = stripImplicit(Whole);
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Whole))
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl()))
      Whole = stripImplicit(Locals.definitionAt(VD, Ref));
  const auto *Call = dyn_cast_or_null<CallExpr>(Whole);
  if (!Call)
    return {};
  llvm::SmallVector<const Expr *, 2> Returns;
  if (isModuleForwardCall(*Call))
    Returns = forwardReturns(*Call);
  else if (const FunctionDecl *Body = calledBody(*Call, Ctx))
    Returns = returnedValues(*Body);
  llvm::SmallVector<const Expr *, 2> Values;
  for (const Expr *Returned : Returns) {
    Returned = stripImplicit(Returned);
    const Expr *Element = nullptr;
    if (const auto *Init = dyn_cast_or_null<InitListExpr>(Returned)) {
      if (Index < Init->getNumInits())
        Element = Init->getInit(Index);
    } else if (const auto *Construct =
                   dyn_cast_or_null<CXXConstructExpr>(Returned)) {
      if (Index < Construct->getNumArgs() && Construct->getNumArgs() > 1)
        Element = Construct->getArg(Index);
    } else if (const auto *Make = dyn_cast_or_null<CallExpr>(Returned);
               Make && (isStdCall(*Make, "make_tuple") ||
                        isStdCall(*Make, "make_pair")) &&
               Index < Make->getNumArgs()) {
      Element = Make->getArg(Index);
    }
    if (!Element)
      return {};
    Values.push_back(Element);
  }
  return Values;
}

/// What \p E is: softmax or log_softmax output, raw scores of a linear layer,
/// or unknown; through local variables with one definition, views, and the
/// return values of a user module's forward.
Origin originOf(const Expr *E, BoundaryAnalysis &Locals, unsigned Depth) {
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth)
    return {};
  // A field or element of a struct or tuple a function built and returned:
  // `out.probs`, `std::get<1>(out)`, `auto [logits, probs] = model(x);`.
  std::optional<TupleElement> Element = tupleElementOf(E);
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
        Field && !Field->getParent()->isUnion())
      Element = TupleElement{Member->getBase(), Field->getFieldIndex()};
  if (Element) {
    Origin O = agreedOrigin(elementValues(Element->Tuple, Element->Index,
                                          Locals.context(), Locals),
                            Locals, Depth);
    O.Inline = false;
    return O;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    const Expr *Def = VD ? Locals.definitionAt(VD, Ref) : nullptr;
    Origin O = Def ? originOf(Def, Locals, Depth + 1) : Origin{};
    O.Inline = false;
    return O;
  }
  if (std::optional<LibTorchCall> C = asLibTorchCall(E)) {
    if (C->is(op::Softmax))
      return {Scores::Probabilities, E, true};
    if (C->is(op::LogSoftmax))
      return {Scores::LogProbabilities, E, true};
    if (C->is(op::Affine))
      return {Scores::Logits, E, true};
    if (C->is(op::ValuePreserving) && !C->is(op::Detach)) {
      Origin O = originOf(operandOf(*C), Locals, Depth + 1);
      O.Inline = false;
      return O;
    }
    return {};
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call || isLossCall(*Call))
    return {};
  if (!isModuleForwardCall(*Call)) {
    // A function, lambda or callable of the user's code: what it returns.
    const Decl *Callee = Call->getCalleeDecl();
    const FunctionDecl *Body =
        Callee ? calledBody(*Call, Callee->getASTContext()) : nullptr;
    return Body ? agreedOrigin(returnedValues(*Body), Locals, Depth)
                : Origin{};
  }
  if (isScoreLayerClass(forwardModuleClass(*Call)))
    return {Scores::Logits, E, true};
  // torch::nn::Softmax / LogSoftmax as modules, and a Sequential whose last
  // layer is one of them.
  if (Scores Layer = scoresOfLayer(forwardModuleClass(*Call));
      Layer != Scores::Unknown)
    return {Layer, E, false};
  if (Scores Last = scoresOfSequential(*Call); Last != Scores::Unknown)
    return {Last, E, false};
  // A user module: what every return of its forward is.
  return agreedOrigin(forwardReturns(*Call), Locals, Depth);
}

Origin agreedOrigin(llvm::ArrayRef<const Expr *> Values,
                    BoundaryAnalysis &Locals, unsigned Depth) {
  Origin Result;
  bool First = true;
  for (const Expr *Value : Values) {
    Origin O = originOf(Value, Locals, Depth + 1);
    if (First)
      Result = O;
    else if (O.Kind != Result.Kind)
      return {};
    First = false;
  }
  Result.Inline = false;
  return Result;
}

/// The source text of \p E, or "" when it is not plain file text.
StringRef sourceText(const Expr &E, const SourceManager &SM,
                     const LangOptions &LO) {
  CharSourceRange Range = CharSourceRange::getTokenRange(
      SourceRange(beginLoc(E), endLoc(E)));
  if (!Range.getBegin().isFileID() || !Range.getEnd().isFileID())
    return "";
  return Lexer::getSourceText(Range, SM, LO);
}

/// True if the softmax call \p C has only its operand and the dimension
/// (no dtype): dropping it or renaming it changes nothing else.
bool hasOnlyDim(const LibTorchCall &C) {
  const unsigned Written =
      llvm::count_if(C.Args, [](const Expr *A) {
        return !isa<CXXDefaultArgExpr>(A);
      });
  return Written == (C.Object ? 1u : 2u);
}

bool takesScoresCall(const CallExpr &Call) {
  StringRef Loss = lossOpName(Call);
  return !Loss.empty() &&
         opHas(Loss, op::TakesLogits | op::TakesLogProbabilities);
}

AST_MATCHER(CallExpr, takesScores) { return takesScoresCall(Node); }

/// The message for a loss that takes logits (cross_entropy) or
/// log-probabilities (nll_loss) given \p Kind; null when the pairing is right.
const char *messageFor(bool TakesLogits, Scores Kind) {
  if (TakesLogits && Kind == Scores::Probabilities)
    return "cross_entropy applied to softmax output applies softmax twice, "
           "so the loss cannot fall below its floor and its gradients "
           "shrink; pass the logits";
  if (TakesLogits && Kind == Scores::LogProbabilities)
    return "cross_entropy applies log_softmax itself, so the log_softmax "
           "before it is redundant; pass the logits";
  if (!TakesLogits && Kind == Scores::Probabilities)
    return "nll_loss applied to softmax output takes probabilities for "
           "log-probabilities, so the loss goes negative and stops "
           "training; use log_softmax";
  if (!TakesLogits && Kind == Scores::Logits)
    return "nll_loss applied to raw scores without log_softmax takes them "
           "for log-probabilities, so the loss is unbounded below; apply "
           "log_softmax first or use cross_entropy";
  return nullptr;
}

const char *producerNote(Scores Kind) {
  return Kind == Scores::Probabilities      ? "softmax applied here"
         : Kind == Scores::LogProbabilities ? "log_softmax applied here"
                                            : "raw scores computed here";
}

/// True if \p Param is assigned in \p Fn (`pred = log_softmax(pred, 1);`):
/// the loss then takes another value than the caller's.
bool isReassigned(const ParmVarDecl &Param, const FunctionDecl &Fn) {
  auto IsParam = [&](const Expr *E) {
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripImplicit(E));
    return Ref && Ref->getDecl() == &Param;
  };
  bool Written = false;
  forEachStmt(Fn.getBody(), [&](const Stmt &S) {
    if (const auto *BO = dyn_cast<BinaryOperator>(&S))
      Written |= BO->isAssignmentOp() && IsParam(BO->getLHS());
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S))
      Written |= Op->isAssignmentOp() && IsParam(Op->getArg(0));
    else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&S)) {
      const CXXMethodDecl *M = Member->getMethodDecl();
      Written |= IsParam(Member->getImplicitObjectArgument()) && M &&
                 M->getIdentifier() && M->getName().ends_with("_");
    }
  });
  return Written;
}

/// The index of the parameter of \p Fn whose argument \p E is: the
/// parameter itself where it still holds the caller's value, or a
/// value-preserving view of it (`pred.permute(...).contiguous()`, through
/// the local or reassigned parameter that holds it: `predict =
/// predict.view({-1, c}); cross_entropy(predict, target)`).
std::optional<unsigned> parameterIndex(const Expr *E, const FunctionDecl &Fn,
                                       BoundaryAnalysis &Locals,
                                       unsigned Depth = 0) {
  E = stripImplicit(E);
  if (!E || Depth > MaxDepth)
    return std::nullopt;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (!VD || VD->getDeclContext() != &Fn)
      return std::nullopt;
    const auto *Param = dyn_cast<ParmVarDecl>(VD);
    if (Param && !isReassigned(*Param, Fn))
      return Param->getFunctionScopeIndex();
    if (Param && Locals.holdsArgumentAt(Param, Ref))
      return Param->getFunctionScopeIndex();
    const Expr *Def = Locals.definitionAt(VD, Ref);
    return Def ? parameterIndex(Def, Fn, Locals, Depth + 1) : std::nullopt;
  }
  if (std::optional<LibTorchCall> C = asLibTorchCall(E);
      C && C->is(op::ValuePreserving) && !C->is(op::Detach))
    return parameterIndex(operandOf(*C), Fn, Locals, Depth + 1);
  return std::nullopt;
}

/// The definition of the forward a call of a user module runs
/// (`criterion(pred, label)` on a holder, `criterion->forward(...)`).
const FunctionDecl *userForwardOf(const CallExpr &Forward) {
  const CXXMethodDecl *Method = forwardMethodOf(Forward);
  const FunctionDecl *Def = nullptr;
  if (!Method || !Method->hasBody(Def) || !Def->getBody() ||
      isInLibTorchHeader(Def->getLocation(),
                         Def->getASTContext().getSourceManager()))
    return nullptr;
  return Def;
}

/// The first argument of \p Call that stands for the callee's parameters
/// (a lambda or functor called with `f(x)` has the object as argument 0).
unsigned firstParameterArg(const CallExpr &Call) {
  return isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
}

} // namespace

std::optional<SoftmaxBeforeCrossEntropyCheck::LossWrapper>
SoftmaxBeforeCrossEntropyCheck::wrapperOf(const FunctionDecl &Fn,
                                          unsigned Depth) {
  if (auto It = Wrappers.find(&Fn); It != Wrappers.end())
    return It->second;
  Wrappers[&Fn] = std::nullopt; // Recursion: not a wrapper.
  std::optional<LossWrapper> Found;
  const ASTContext &Ctx = Fn.getASTContext();
  static const llvm::Regex NoEpsilonNames("^$");
  BoundaryAnalysis Locals(Fn.getASTContext(), NoEpsilonNames, &Parents);
  auto Visit = [&](auto &&Self, const Stmt *S) -> void {
    if (!S || Found || isa<LambdaExpr>(S))
      return;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (takesScoresCall(*Call)) {
        if (std::optional<unsigned> P =
                parameterIndex(lossPredictionArg(*Call), Fn, Locals))
          Found = LossWrapper{Call, *P};
      } else if (Depth < 3) {
        const FunctionDecl *Body = calledBody(*Call, Ctx);
        if (!Body && isModuleForwardCall(*Call))
          Body = userForwardOf(*Call);
        if (Body && Body != &Fn)
          if (std::optional<LossWrapper> Inner = wrapperOf(*Body, Depth + 1)) {
            const unsigned Arg = Inner->Param + firstParameterArg(*Call);
            if (Arg < Call->getNumArgs())
              if (std::optional<unsigned> P =
                      parameterIndex(Call->getArg(Arg), Fn, Locals))
                Found = LossWrapper{Inner->Loss, *P};
          }
      }
    }
    for (const Stmt *Child : S->children())
      Self(Self, Child);
  };
  Visit(Visit, Fn.getBody());
  return Wrappers[&Fn] = Found;
}

void SoftmaxBeforeCrossEntropyCheck::checkWrapperCall(
    const CallExpr &Call, const MatchFinder::MatchResult &Result) {
  // A std::function assigned lambdas on several paths: the call may run any.
  std::optional<LossWrapper> W;
  for (const FunctionDecl *Body : calledBodies(Call, *Result.Context))
    if (Body->getBody() && !W)
      W = wrapperOf(*Body, 0);
  // A user module's forward (a loss module of the user's: `criterion(pred,
  // label)`).
  if (!W && isModuleForwardCall(Call))
    if (const FunctionDecl *Forward = userForwardOf(Call))
      W = wrapperOf(*Forward, 0);
  const unsigned Arg = W ? W->Param + firstParameterArg(Call) : 0;
  if (!W || Arg >= Call.getNumArgs())
    return;
  static const llvm::Regex NoEpsilonNames("^$");
  BoundaryAnalysis Locals(*Result.Context, NoEpsilonNames, &Parents);
  const Origin O = originOf(Call.getArg(Arg), Locals, 0);
  const char *Message =
      messageFor(opHas(lossOpName(*W->Loss), op::TakesLogits), O.Kind);
  if (!Message ||
      !Reported.insert(Result.SourceManager->getExpansionLoc(beginLoc(Call)))
           .second)
    return;
  diag(beginLoc(Call), Message);
  diag(beginLoc(*W->Loss), "the loss is computed here on the argument",
       DiagnosticIDs::Note);
  if (O.Producer)
    diag(beginLoc(*O.Producer), producerNote(O.Kind), DiagnosticIDs::Note);
}

void SoftmaxBeforeCrossEntropyCheck::registerMatchers(MatchFinder *Finder) {
  // Templates are checked in their written form (unresolved LibTorch calls
  // included), once; their instantiations are skipped.
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()),
               takesScores())
          .bind("loss"));
  // A call of a function, lambda or std::function of the user's code that
  // computes such a loss on its argument.
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(),
               unless(ast_matchers::isInTemplateInstantiation()),
               unless(takesScores()), argumentCountAtLeast(1))
          .bind("call"));
  UserCode.registerWith(*Finder);
}

void SoftmaxBeforeCrossEntropyCheck::check(
    const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call")) {
    checkWrapperCall(*Call, Result);
    return;
  }
  const auto *Loss = Result.Nodes.getNodeAs<CallExpr>("loss");
  const SourceManager &SM = *Result.SourceManager;
  const StringRef LossName = lossOpName(*Loss);
  const Expr *Prediction = lossPredictionArg(*Loss);
  if (!Prediction)
    return;
  static const llvm::Regex NoEpsilonNames("^$");
  BoundaryAnalysis Locals(*Result.Context, NoEpsilonNames, &Parents);
  const Origin O = originOf(Prediction, Locals, 0);
  const bool TakesLogits = opHas(LossName, op::TakesLogits);
  const bool Wrong =
      TakesLogits ? O.Kind == Scores::Probabilities ||
                        O.Kind == Scores::LogProbabilities
                  : O.Kind == Scores::Probabilities || O.Kind == Scores::Logits;
  if (!Wrong || !Reported.insert(SM.getExpansionLoc(beginLoc(*Loss))).second)
    return;

  const char *Message = messageFor(TakesLogits, O.Kind);
  {
    auto Diag = diag(beginLoc(*Loss), Message);
    std::optional<LibTorchCall> Producer =
        O.Inline && O.Producer ? asLibTorchCall(O.Producer) : std::nullopt;
    if (Producer && O.Kind != Scores::Logits && hasOnlyDim(*Producer)) {
      const LangOptions &LO = Result.Context->getLangOpts();
      if (TakesLogits) {
        // cross_entropy(softmax(x, 1), y) -> cross_entropy(x, y).
        StringRef Operand = sourceText(*operandOf(*Producer), SM, LO);
        if (!Operand.empty() && O.Producer->getBeginLoc().isFileID() &&
            O.Producer->getEndLoc().isFileID())
          Diag << FixItHint::CreateReplacement(
              CharSourceRange::getTokenRange(beginLoc(*O.Producer),
                                             endLoc(*O.Producer)),
              Operand);
      } else if (!Producer->Functional) {
        // nll_loss(softmax(x, 1), y) -> nll_loss(log_softmax(x, 1), y); the
        // functional form takes SoftmaxFuncOptions, which log_softmax does
        // not.
        SourceLocation Name = calleeNameLoc(*Producer);
        if (Name.isValid() && Name.isFileID())
          Diag << FixItHint::CreateReplacement(
              CharSourceRange::getTokenRange(Name, Name), "log_softmax");
      }
    }
  }
  if (O.Producer && !O.Inline)
    diag(beginLoc(*O.Producer), producerNote(O.Kind), DiagnosticIDs::Note);
}

} // namespace clang::tidy::torch
