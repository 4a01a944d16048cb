//===--- MissingEpsilonCheck.cpp - torch-missing-epsilon ------------------===//

#include "MissingEpsilonCheck.h"
#include "utils/BoundaryGuard.h"
#include "utils/LibTorch.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include <cmath>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

// Names that can spell a boundary operation, as at:: functions and as
// at::Tensor methods (in-place variants included).
const StringRef OperationNames[] = {
    "sqrt",        "sqrt_",       "rsqrt",       "rsqrt_", "pow",     "pow_",
    "float_power", "log",         "log_",        "log2",   "log2_",   "log10",
    "log10_",      "acos",        "acos_",       "arccos", "arccos_", "asin",
    "asin_",       "arcsin",      "arcsin_",     "div",    "div_",    "divide",
    "divide_",     "true_divide", "true_divide_"};

const char DefaultEpsilonNames[] =
    "^(k|m_|_)?(eps|epsilon|tiny|smooth)([_0-9].*)?$|_(eps|epsilon)[0-9]*_?$";

bool parseBool(StringRef Value) {
  return Value.equals_insensitive("true") || Value == "1" ||
         Value.equals_insensitive("on");
}

SourceLocation memberNameLoc(const Expr *Member) {
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(Member))
    return ME->getMemberLoc();
  if (const auto *UME = dyn_cast_or_null<UnresolvedMemberExpr>(Member))
    return UME->getMemberLoc();
  if (const auto *DM = dyn_cast_or_null<CXXDependentScopeMemberExpr>(Member))
    return DM->getMemberLoc();
  return {};
}

bool isArrowAccess(const Expr *Member) {
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(Member))
    return ME->isArrow();
  if (const auto *UME = dyn_cast_or_null<UnresolvedMemberExpr>(Member))
    return UME->isArrow();
  if (const auto *DM = dyn_cast_or_null<CXXDependentScopeMemberExpr>(Member))
    return DM->isArrow();
  return true;
}

/// Where a free function's name is written (`softmax` in torch::softmax).
SourceLocation calleeNameLoc(const CallExpr *Call) {
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee))
    return DRE->getLocation();
  if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(Callee))
    return ULE->getNameLoc();
  return {};
}

/// True if `E + eps` needs parentheses around E (E binds looser than +).
bool bindsLooserThanAdd(const Expr *E) {
  E = E->IgnoreImplicit();
  if (isa<AbstractConditionalOperator>(E))
    return true;
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    return BO->getOpcode() > BO_Sub;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E))
    if (OC->getNumArgs() == 2 && OC->isInfixBinaryOp())
      return BinaryOperator::getOverloadedOpcode(OC->getOperator()) > BO_Sub;
  return false;
}

/// True if E can be the object of `E.clamp(...)` as written.
bool isPostfixExpression(const Expr *E) {
  E = E->IgnoreImplicit();
  if (isa<BinaryOperator, UnaryOperator, AbstractConditionalOperator,
          CStyleCastExpr, LambdaExpr>(E))
    return false;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E))
    return OC->getOperator() == OO_Subscript || OC->getOperator() == OO_Call ||
           OC->getOperator() == OO_Arrow;
  return true;
}

/// True if \p Fn is, or lies inside, a template instantiation.
bool isInInstantiation(const FunctionDecl *Fn) {
  for (const DeclContext *DC = Fn; DC; DC = DC->getParent()) {
    if (const auto *F = dyn_cast<FunctionDecl>(DC))
      if (F->isTemplateInstantiation())
        return true;
    if (const auto *RD = dyn_cast<CXXRecordDecl>(DC)) {
      TemplateSpecializationKind K = RD->getTemplateSpecializationKind();
      if (K == TSK_ImplicitInstantiation ||
          K == TSK_ExplicitInstantiationDeclaration ||
          K == TSK_ExplicitInstantiationDefinition)
        return true;
    }
  }
  return false;
}

/// The grad mode the innermost guard visible at \p Target sets, walking down
/// from \p S (a function body): a guard variable declared earlier in an
/// enclosing block (see gradModeEffectOf).
GradModeEffect gradModeAt(const Stmt &S, const Stmt &Target,
                          const SourceManager &SM, GradModeEffect Current) {
  if (&S == &Target)
    return Current;
  SourceLocation Loc = SM.getExpansionLoc(beginLoc(Target));
  auto Contains = [&](const Stmt *Child) {
    return Child &&
           SM.isPointWithin(Loc, SM.getExpansionLoc(beginLoc(*Child)),
                            SM.getExpansionLoc(endLoc(*Child)));
  };
  for (const Stmt *Child : S.children()) {
    if (Contains(Child))
      return gradModeAt(*Child, Target, SM, Current);
    if (isa<CompoundStmt>(S))
      if (const auto *DS = dyn_cast_or_null<DeclStmt>(Child))
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D)) {
            GradModeEffect E = gradModeEffectOf(*VD);
            if (E != GradModeEffect::None)
              Current = E;
          }
  }
  return Current;
}

/// True if gradient recording is (or may be) off at \p Call.
bool gradModeOffAt(const Stmt &Body, const CallExpr &Call,
                   const SourceManager &SM) {
  GradModeEffect E = gradModeAt(Body, Call, SM, GradModeEffect::None);
  return E == GradModeEffect::Disables || E == GradModeEffect::Unknown;
}

using Fixes = llvm::SmallVector<FixItHint, 3>;

/// Edits that turn \p E, as written, into `E + Eps`. \p NeedsPrimary: E stands
/// where only a primary expression fits (the object of a member call, the
/// denominator of `/`), so the sum is parenthesised.
std::optional<Fixes> addEpsilon(const Expr *E, bool NeedsPrimary, StringRef Eps,
                                const SourceManager &SM,
                                const LangOptions &LangOpts) {
  const Expr *W = E->IgnoreImplicit();
  const std::string Plus = (" + " + Eps).str();
  if (const auto *P = dyn_cast<ParenExpr>(W)) {
    SourceLocation L = P->getLParen(), R = P->getRParen();
    if (L.isMacroID() || R.isMacroID())
      return std::nullopt;
    if (!bindsLooserThanAdd(P->getSubExpr()))
      return Fixes{FixItHint::CreateInsertion(R, Plus)};
    return Fixes{FixItHint::CreateInsertion(L.getLocWithOffset(1), "("),
                 FixItHint::CreateInsertion(R, ")" + Plus)};
  }
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(W->getSourceRange()), SM, LangOpts);
  if (Range.isInvalid())
    return std::nullopt;
  if (NeedsPrimary)
    return Fixes{FixItHint::CreateInsertion(Range.getBegin(), "("),
                 FixItHint::CreateInsertion(Range.getEnd(), Plus + ")")};
  if (bindsLooserThanAdd(W))
    return Fixes{FixItHint::CreateInsertion(Range.getBegin(), "("),
                 FixItHint::CreateInsertion(Range.getEnd(), ")" + Plus)};
  return Fixes{FixItHint::CreateInsertion(Range.getEnd(), Plus)};
}

/// Edits that turn \p E into `E.clamp(-1 + M, 1 - M)`.
std::optional<Fixes> clampInsideUnit(const Expr *E, StringRef M,
                                     const SourceManager &SM,
                                     const LangOptions &LangOpts) {
  const Expr *W = E->IgnoreImplicit();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(W->getSourceRange()), SM, LangOpts);
  if (Range.isInvalid())
    return std::nullopt;
  const std::string Clamp = (".clamp(-1 + " + M + ", 1 - " + M + ")").str();
  if (isPostfixExpression(W))
    return Fixes{FixItHint::CreateInsertion(Range.getEnd(), Clamp)};
  return Fixes{FixItHint::CreateInsertion(Range.getBegin(), "("),
               FixItHint::CreateInsertion(Range.getEnd(), ")" + Clamp)};
}

/// `log(softmax(x, d))` / `softmax(x, d).log()` -> `log_softmax(x, d)`.
std::optional<Fixes> useLogSoftmax(const LibTorchCall &Log, const Expr *Operand,
                                   const SourceManager &SM,
                                   const LangOptions &LangOpts) {
  std::optional<LibTorchCall> Softmax = asLibTorchCall(Operand);
  if (!Softmax || Softmax->Name != "softmax" || Softmax->Functional)
    return std::nullopt;
  SourceLocation NameLoc = Softmax->Member ? memberNameLoc(Softmax->Member)
                                           : calleeNameLoc(Softmax->Call);
  const Expr *Written = Operand->IgnoreImplicit();
  SourceLocation LogBegin = beginLoc(*Log.Call);
  SourceLocation LogEnd = endLoc(*Log.Call);
  SourceLocation OpBegin = beginLoc(*Written);
  SourceLocation OpEnd = endLoc(*Written);
  for (SourceLocation L : {NameLoc, LogBegin, LogEnd, OpBegin, OpEnd})
    if (L.isInvalid() || L.isMacroID())
      return std::nullopt;
  SourceLocation AfterOp = Lexer::getLocForEndOfToken(OpEnd, 0, SM, LangOpts);
  SourceLocation AfterLog = Lexer::getLocForEndOfToken(LogEnd, 0, SM, LangOpts);
  Fixes F;
  F.push_back(FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(NameLoc, NameLoc), "log_softmax"));
  if (!Log.Object) // torch::log( ... )
    F.push_back(FixItHint::CreateRemoval(
        CharSourceRange::getCharRange(LogBegin, OpBegin)));
  F.push_back(FixItHint::CreateRemoval(
      CharSourceRange::getCharRange(AfterOp, AfterLog)));
  return F;
}

} // namespace

MissingEpsilonCheck::MissingEpsilonCheck(StringRef Name,
                                         ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      EpsilonLiteral(Options.get("EpsilonLiteral", "1e-8")),
      ClampEpsilonLiteral(Options.get("ClampEpsilonLiteral", "1e-6")),
      EpsilonNames(Options.get("EpsilonNames", DefaultEpsilonNames)),
      // Read as a string: the bool overload of OptionsView::get is mangled
      // differently by GCC and by the clang that built libclangTidy.a.
      StrictMode(parseBool(Options.get("StrictMode", "false"))),
      EpsilonNamesRegex(EpsilonNames, llvm::Regex::IgnoreCase) {
  std::string Error;
  if (!EpsilonNamesRegex.isValid(Error)) {
    configurationDiag("invalid regular expression in EpsilonNames '%0': %1; "
                      "using the default")
        << EpsilonNames << Error;
    EpsilonNamesRegex =
        llvm::Regex(DefaultEpsilonNames, llvm::Regex::IgnoreCase);
  }
}

void MissingEpsilonCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "EpsilonLiteral", EpsilonLiteral);
  Options.store(Opts, "ClampEpsilonLiteral", ClampEpsilonLiteral);
  Options.store(Opts, "EpsilonNames", EpsilonNames);
  Options.store(Opts, "StrictMode", StrictMode ? "true" : "false");
}

void MissingEpsilonCheck::registerMatchers(MatchFinder *Finder) {
  std::vector<std::string> FreeNames;
  std::vector<StringRef> MethodNames;
  for (StringRef Name : OperationNames) {
    FreeNames.push_back(("::at::" + Name).str());
    MethodNames.push_back(Name);
  }
  FreeNames.push_back("::at::operator/");
  MethodNames.push_back("operator/=");
  std::vector<StringRef> FreeRefs(FreeNames.begin(), FreeNames.end());

  const auto Operation = functionDecl(
      anyOf(hasAnyName(FreeRefs),
            cxxMethodDecl(hasAnyName(MethodNames),
                          ofClass(cxxRecordDecl(hasAnyName(
                              "::at::Tensor", "::at::TensorBase"))))));
  // Inside templates a call with dependent arguments is still an overload
  // set; templates are checked once, in their written form.
  // Only the user's top-level declarations are searched
  // (UserCodeMatchFinder); the location test is the cheapest one left.
  UserCode.addMatcher(
      callExpr(
          isExpansionInUserCode(),
          anyOf(callee(Operation),
                callee(unresolvedLookupExpr(hasAnyDeclaration(Operation))),
                callee(unresolvedMemberExpr(hasAnyDeclaration(Operation)))))
          .bind("call"));
  // The functions around those calls, in traversal (pre-)order: the check
  // finds a call's enclosing function, whether it is a template instantiation
  // and which grad-mode guards are in scope without the AST's parent map,
  // whose construction for a TU with <torch/torch.h> costs seconds.
  UserCode.addMatcher(
      functionDecl(isExpansionInUserCode(), isDefinition()).bind("function"));
  UserCode.registerWith(*Finder);
}

void MissingEpsilonCheck::onStartOfTranslationUnit() { Functions.clear(); }

void MissingEpsilonCheck::check(const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  if (const auto *Fn = Result.Nodes.getNodeAs<FunctionDecl>("function")) {
    if (Fn->getBody())
      Functions.push_back(Fn);
    return;
  }
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  const SourceManager &SM = *Result.SourceManager;
  // The innermost function around the call: in pre-order, the latest one
  // recorded whose body contains it.
  const FunctionDecl *Enclosing = nullptr;
  {
    SourceLocation Loc = SM.getExpansionLoc(beginLoc(*Call));
    for (const FunctionDecl *Fn : llvm::reverse(Functions)) {
      const Stmt *Body = Fn->getBody();
      if (SM.isPointWithin(Loc, SM.getExpansionLoc(beginLoc(*Body)),
                           SM.getExpansionLoc(endLoc(*Body)))) {
        Enclosing = Fn;
        break;
      }
    }
  }
  // Templates are checked once, in their written form: instantiations would
  // repeat each diagnostic.
  if (Enclosing && isInInstantiation(Enclosing))
    return;
  ASTContext &Ctx = *Result.Context;
  const LangOptions &LangOpts = Ctx.getLangOpts();
  // An operation spelled inside a macro of LibTorch or of a system header is
  // not the user's to fix.
  if (!isInUserCode(SM.getSpellingLoc(beginLoc(*Call)), SM))
    return;
  // No fix-it when the operation comes out of a macro: the edit would change
  // every expansion.
  const bool CanFix =
      !beginLoc(*Call).isMacroID() && !endLoc(*Call).isMacroID();
  BoundaryAnalysis Analysis(Ctx, EpsilonNamesRegex);
  auto GradModeOff = [&] {
    return Enclosing && gradModeOffAt(*Enclosing->getBody(), *Call, SM);
  };

  auto NoteThrough = [&](const VarDecl *VD) {
    if (!VD)
      return;
    const Expr *Def = Analysis.definitionOf(VD);
    diag(Def ? beginLoc(*Def) : VD->getLocation(), "%0 gets its value here",
         DiagnosticIDs::Note)
        << VD;
  };

  auto CheckDivision = [&](const Expr *Denominator, SourceLocation Loc,
                           bool NeedsPrimary) {
    const Expr *D = stripImplicit(Denominator);
    // Scalar and size denominators (x / 255.0, x / x.size(0)) are fine.
    if (!D || (!isTensorType(D->getType()) && !D->isTypeDependent()))
      return;
    DenominatorInfo Info = Analysis.denominator(Denominator);
    if (Info.What.empty() || Info.Guarded ||
        (Info.OperandUnknown && !StrictMode))
      return;
    // A square root written as the denominator is reported itself (with
    // autograd its gradient fails first), and its fix-it guards both.
    if (!Info.Through && !GradModeOff())
      if (std::optional<LibTorchCall> Root = asLibTorchCall(Denominator))
        if (Root->Name == "sqrt" || Root->Name == "pow") {
          ReachResult R = Analysis.nearZero(operandOf(*Root));
          if ((R.State == Reach::Reaches ||
               (StrictMode && R.State == Reach::Unknown)) &&
              !R.Detached)
            return;
        }
    {
      auto Diag = diag(Loc, "division by %0 that can be 0 gives inf or NaN; "
                            "add an epsilon to the denominator or clamp it")
                  << Info.What;
      if (CanFix && Info.NonNegative)
        if (auto F = addEpsilon(Denominator, NeedsPrimary, EpsilonLiteral, SM,
                                LangOpts))
          for (const FixItHint &H : *F)
            Diag << H;
    }
    NoteThrough(Info.Through);
  };

  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if ((OC->getOperator() == OO_Slash || OC->getOperator() == OO_SlashEqual) &&
        OC->getNumArgs() == 2)
      CheckDivision(OC->getArg(1), OC->getOperatorLoc(),
                    OC->getOperator() == OO_Slash);
    return;
  }

  std::optional<LibTorchCall> Op = asLibTorchCall(Call);
  if (!Op)
    return;
  StringRef Name = Op->Name;
  if (Name.ends_with("_"))
    Name = Name.drop_back();
  const Expr *Operand = operandOf(*Op);
  if (!Operand)
    return;
  const SourceLocation Loc =
      Op->Member ? memberNameLoc(Op->Member) : beginLoc(*Call);
  // The operand is the object of a member call: `x + eps` needs parentheses.
  const bool IsMethod = Op->Object != nullptr;
  const bool CanFixOperand =
      CanFix && (!IsMethod || (!isArrowAccess(Op->Member) &&
                               !isa<CXXThisExpr>(Operand->IgnoreImplicit())));

  if (Name == "div" || Name == "divide" || Name == "true_divide") {
    if (const Expr *Denominator = argumentAfterOperand(*Op, 0))
      CheckDivision(Denominator, Loc, /*NeedsPrimary=*/false);
    return;
  }

  const Expr *Base = stripImplicit(Operand);
  if (!isTensorType(Base->getType()) && !Base->isTypeDependent())
    return; // torch::pow(2.0, t): a scalar base.

  auto Flagged = [&](const ReachResult &R) {
    return R.State == Reach::Reaches ||
           (StrictMode && R.State == Reach::Unknown);
  };
  // Operations whose value stays finite at the boundary and only whose
  // gradient is infinite: nothing to report without autograd.
  auto GradientOnly = [&](const ReachResult &R) {
    return R.Detached || GradModeOff();
  };

  if (Name == "acos" || Name == "arccos" || Name == "asin" ||
      Name == "arcsin") {
    ReachResult R = Analysis.nearUnit(Operand);
    if (!Flagged(R) || GradientOnly(R))
      return;
    {
      auto Diag =
          diag(Loc, "%0 of a value that nothing keeps inside (-1, 1) has an "
                    "infinite gradient at -1 and 1; clamp the argument to "
                    "[-1 + eps, 1 - eps]")
          << Name;
      if (CanFixOperand && !R.FromClamp)
        if (auto F =
                clampInsideUnit(Operand, ClampEpsilonLiteral, SM, LangOpts))
          for (const FixItHint &H : *F)
            Diag << H;
    }
    NoteThrough(R.Through);
    return;
  }

  ReachResult R = Analysis.nearZero(Operand);
  if (!Flagged(R))
    return;
  std::optional<Fixes> Fix;
  auto EpsilonFix = [&] {
    if (CanFixOperand)
      Fix = addEpsilon(Operand, IsMethod, EpsilonLiteral, SM, LangOpts);
  };

  std::string Message;
  if (Name == "sqrt") {
    if (GradientOnly(R))
      return;
    Message = "sqrt of a value that nothing keeps away from 0 has an infinite "
              "gradient at 0; add an epsilon to the argument";
    EpsilonFix();
  } else if (Name == "rsqrt") {
    Message = "rsqrt of a value that nothing keeps away from 0 is infinite at "
              "0; add an epsilon to the argument";
    EpsilonFix();
  } else if (Name == "log" || Name == "log2" || Name == "log10") {
    if (Name == "log" && R.Softmax) {
      Message = "log of a softmax is -inf where a probability underflows to "
                "0; use log_softmax instead";
      if (CanFix && !R.Through)
        Fix = useLogSoftmax(*Op, Operand, SM, LangOpts);
    } else {
      Message = (Name + " of a value that nothing keeps away from 0 is -inf "
                        "at 0; add an epsilon to the argument or clamp it")
                    .str();
      EpsilonFix();
    }
  } else if (Name == "pow" || Name == "float_power") {
    const Expr *Exponent = argumentAfterOperand(*Op, 0);
    if (!Exponent)
      return;
    std::optional<double> E = Analysis.constantValue(Exponent);
    bool Reciprocal = false;
    if (!E) {
      // pow(x, 1.0 / p): the p-th root, singular at 0 for every p > 1.
      const Expr *X = stripImplicit(Exponent);
      const Expr *Numerator = nullptr;
      if (const auto *BO = dyn_cast<BinaryOperator>(X))
        if (BO->getOpcode() == BO_Div)
          Numerator = BO->getLHS();
      if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(X))
        if (OC->getOperator() == OO_Slash && OC->getNumArgs() == 2)
          Numerator = OC->getArg(0);
      std::optional<double> N =
          Numerator ? Analysis.constantValue(Numerator) : std::nullopt;
      if (!N || *N != 1.0)
        return;
      Reciprocal = true;
    }
    if (Reciprocal || (*E > 0 && *E < 1)) {
      if (GradientOnly(R))
        return;
      Message = Reciprocal
                    ? "pow with a reciprocal exponent of a base that nothing "
                      "keeps away from 0 has an infinite gradient at 0; add "
                      "an epsilon to the base"
                    : "pow with a fractional exponent of a base that nothing "
                      "keeps away from 0 has an infinite gradient at 0; add "
                      "an epsilon to the base";
      EpsilonFix();
    } else if (*E < 0) {
      // x + eps does not help a base that may be negative: no fix-it.
      Message = "pow with a negative exponent of a base that nothing keeps "
                "away from 0 is infinite at 0; add an epsilon to the base or "
                "clamp it";
    } else {
      return; // Integer and other exponents >= 1 are finite at 0.
    }
  } else {
    return;
  }

  {
    auto Diag = diag(Loc, Message);
    if (Fix)
      for (const FixItHint &H : *Fix)
        Diag << H;
  }
  NoteThrough(R.Through);
}

} // namespace clang::tidy::torch
