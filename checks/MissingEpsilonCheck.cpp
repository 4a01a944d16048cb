//===--- MissingEpsilonCheck.cpp - torch-missing-epsilon ------------------===//

#include "MissingEpsilonCheck.h"
#include "utils/analysis/AccessPath.h"
#include "utils/analysis/BoundaryGuard.h"
#include "utils/analysis/GradMode.h"
#include "utils/analysis/PathGuard.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "utils/libtorch/OpTable.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include <cmath>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

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

/// `log(inner(x))` / `inner(x).log()` -> `fused(x)`: the log of \p Inner (the
/// operand, a LibTorch call) folded into it by renaming it \p Fused and
/// removing the log around it.
std::optional<Fixes> foldLogInto(const LibTorchCall &Log, const Expr *Operand,
                                 const LibTorchCall &Inner, StringRef Fused,
                                 const SourceManager &SM,
                                 const LangOptions &LangOpts) {
  SourceLocation NameLoc =
      Inner.Member ? memberNameLoc(Inner.Member) : calleeNameLoc(Inner.Call);
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
      CharSourceRange::getTokenRange(NameLoc, NameLoc), Fused));
  if (!Log.Object) // torch::log( ... )
    F.push_back(FixItHint::CreateRemoval(
        CharSourceRange::getCharRange(LogBegin, OpBegin)));
  F.push_back(FixItHint::CreateRemoval(
      CharSourceRange::getCharRange(AfterOp, AfterLog)));
  return F;
}

/// `log(softmax(x, d))` / `softmax(x, d).log()` -> `log_softmax(x, d)`.
std::optional<Fixes> useLogSoftmax(const LibTorchCall &Log, const Expr *Operand,
                                   const SourceManager &SM,
                                   const LangOptions &LangOpts) {
  std::optional<LibTorchCall> Softmax = asLibTorchCall(Operand);
  if (!Softmax || !Softmax->is(op::Softmax) || Softmax->Functional)
    return std::nullopt;
  return foldLogInto(Log, Operand, *Softmax, "log_softmax", SM, LangOpts);
}

/// `log(sigmoid(x))` / `sigmoid(x).log()` -> `log_sigmoid(x)`, for a sigmoid
/// written as a function (LibTorch has no log_sigmoid method).
std::optional<Fixes> useLogSigmoid(const LibTorchCall &Log, const Expr *Operand,
                                   const SourceManager &SM,
                                   const LangOptions &LangOpts) {
  std::optional<LibTorchCall> Sigmoid = asLibTorchCall(Operand);
  if (!Sigmoid || Sigmoid->Name != "sigmoid" || Sigmoid->Member ||
      Sigmoid->Functional)
    return std::nullopt;
  return foldLogInto(Log, Operand, *Sigmoid, "log_sigmoid", SM, LangOpts);
}

/// Where a boundary operation is reported: the method name of `x.sqrt()`,
/// the call of `torch::sqrt(x)`.
SourceLocation memberOrCallLoc(const LibTorchCall &Op) {
  return Op.Member ? memberNameLoc(Op.Member) : beginLoc(*Op.Call);
}

/// The exponents of pow that make it singular at 0.
enum class PowExponent { Fractional, Reciprocal, Negative };

/// Classifies the exponent of pow; nullopt when pow is finite at 0 or the
/// exponent is not known.
std::optional<PowExponent> classifyExponent(const Expr *Exponent,
                                            const BoundaryAnalysis &Analysis) {
  if (std::optional<double> E = Analysis.constantValue(Exponent)) {
    if (*E > 0 && *E < 1)
      return PowExponent::Fractional;
    if (*E < 0)
      return PowExponent::Negative;
    return std::nullopt;
  }
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
  if (N && *N == 1.0)
    return PowExponent::Reciprocal;
  return std::nullopt;
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
  // Every spelling the operation table gives a boundary.
  forEachOp([&](const OpInfo &Op) {
    if (Op.Boundary == op::NoBoundary)
      return;
    FreeNames.push_back(("::at::" + Op.Name).str());
    MethodNames.push_back(Op.Name);
  });
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

void MissingEpsilonCheck::onStartOfTranslationUnit() {
  Functions.clear();
  GradMode.clear();
  Parents.clear();
}

void MissingEpsilonCheck::onEndOfTranslationUnit() {
  Functions.clear();
  GradMode.clear();
  Parents.clear();
}

/// One boundary operation being judged: its context, and the reports the
/// check makes about it. Each kind of boundary has a member function short
/// enough to read on one screen.
class MissingEpsilonCheck::Site {
public:
  Site(MissingEpsilonCheck &Check, const CallExpr &Call,
       const FunctionDecl *Enclosing, ASTContext &Ctx)
      : Check(Check), Call(Call), Enclosing(Enclosing), Ctx(Ctx),
        SM(Ctx.getSourceManager()), LangOpts(Ctx.getLangOpts()),
        Analysis(Ctx, Check.EpsilonNamesRegex, &Check.Parents),
        // No fix-it when the operation comes out of a macro: the edit would
        // change every expansion.
        CanFix(!beginLoc(Call).isMacroID() && !endLoc(Call).isMacroID()) {}

  /// `a / b`, `a /= b`, `a.div(b)`, `at::div(a, b)`.
  void checkDivision(const Expr *Numerator, const Expr *Denominator,
                     SourceLocation Loc, bool NeedsPrimary);
  /// acos, asin of a value that can reach -1 or 1.
  void checkUnitBoundary(const LibTorchCall &Op, StringRef Name);
  /// sqrt, rsqrt, log, pow of a value that can reach 0.
  /// rsqrt and pow with a negative exponent: a division by their operand.
  void checkReciprocal(const LibTorchCall &Op, op::Boundary Boundary);
  void checkZeroBoundary(const LibTorchCall &Op, StringRef Name,
                         op::Boundary Boundary);

private:
  bool gradModeOff() {
    return Enclosing && Check.GradMode.isOffAt(Call, *Enclosing);
  }
  /// True if the operation is reached only after a test that excludes 0
  /// for \p Value (`if (n.item<double>() == 0) ... else w / n`).
  bool pathExcludesZero(const Expr *Value) {
    return Enclosing && PathGuards(Check.Parents, Ctx, Check.EpsilonNamesRegex)
                            .excludesZero(Call, Value, *Enclosing);
  }
  bool flagged(const ReachResult &R) const {
    return R.State == Reach::Reaches ||
           (Check.StrictMode && R.State == Reach::Unknown);
  }
  /// Operations whose value stays finite at the boundary and only whose
  /// gradient is infinite: nothing to report without autograd.
  bool gradientOnly(const ReachResult &R) {
    return R.Detached || gradModeOff();
  }
  /// True if the operand can take `+ eps` (or a clamp) in place: not the
  /// object of `p->f()` or of a member call on `this`.
  bool canFixOperand(const LibTorchCall &Op, const Expr *Operand) const {
    return CanFix &&
           (!Op.Object || (!isArrowAccess(Op.Member) &&
                           !isa<CXXThisExpr>(Operand->IgnoreImplicit())));
  }
  void noteThrough(const VarDecl *VD);
  /// The message for a value that can reach 0 under \p Boundary, and its
  /// fix-it; an empty message when nothing is to be reported.
  std::string zeroMessage(const LibTorchCall &Op, StringRef Name,
                          op::Boundary Boundary, const ReachResult &R,
                          std::optional<Fixes> &Fix);
  void report(SourceLocation Loc, StringRef Message,
              const std::optional<Fixes> &Fix, const VarDecl *Through) {
    {
      auto Diag = Check.diag(Loc, Message);
      if (Fix)
        for (const FixItHint &H : *Fix)
          Diag << H;
    }
    noteThrough(Through);
  }

  MissingEpsilonCheck &Check;
  const CallExpr &Call;
  const FunctionDecl *Enclosing;
  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LangOpts;
  BoundaryAnalysis Analysis;
  const bool CanFix;
};

void MissingEpsilonCheck::Site::noteThrough(const VarDecl *VD) {
  if (!VD)
    return;
  const Expr *Def = Analysis.definitionOf(VD);
  Check.diag(Def ? beginLoc(*Def) : VD->getLocation(), "%0 gets its value here",
             DiagnosticIDs::Note)
      << VD;
}

/// True if \p E refers to the variable, parameter or member \p Terms names,
/// or to the same field or element of a local (`k[0] / k[0].sum()`: the same
/// access path).
static bool mentionsSameEntity(const Expr *E, const Expr *Terms) {
  const ValueDecl *Target = nullptr;
  Terms = stripImplicit(Terms);
  if (std::optional<AccessPath> Path = Terms ? accessPathOf(*Terms) : std::nullopt;
      Path && E && !Path->Steps.empty()) {
    llvm::SmallVector<const Stmt *, 16> Work{E};
    unsigned Budget = 256;
    while (!Work.empty() && Budget--) {
      const Stmt *S = Work.pop_back_val();
      if (const auto *Sub = dyn_cast_or_null<Expr>(S))
        if (std::optional<AccessPath> Other = accessPathOf(*Sub);
            Other && *Other == *Path)
          return true;
      if (S)
        for (const Stmt *Child : S->children())
          Work.push_back(Child);
    }
    return false;
  }
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Terms))
    Target = DRE->getDecl();
  else if (const auto *ME = dyn_cast_or_null<MemberExpr>(Terms))
    Target = ME->getMemberDecl();
  if (!Target || !E)
    return false;
  llvm::SmallVector<const Stmt *, 16> Work{E};
  unsigned Budget = 256;
  while (!Work.empty() && Budget--) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S);
        DRE && DRE->getDecl() == Target)
      return true;
    if (const auto *ME = dyn_cast<MemberExpr>(S);
        ME && ME->getMemberDecl() == Target)
      return true;
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  return false;
}

void MissingEpsilonCheck::Site::checkDivision(const Expr *Numerator,
                                              const Expr *Denominator,
                                              SourceLocation Loc,
                                              bool NeedsPrimary) {
  const Expr *D = stripImplicit(Denominator);
  // Scalar and size denominators (x / 255.0, x / x.size(0)) are fine.
  if (!D || (!isTensorType(D->getType()) && !D->isTypeDependent()))
    return;
  DenominatorInfo Info = Analysis.denominator(Denominator);
  // A sum of terms nothing is known about is reported, unless the numerator
  // is weighted by the same terms: `(loss * mask).sum() / mask.sum()` is a
  // masked average, 0 / 0 only for an empty mask, which its author rules out.
  bool Weighted = Info.SumTerms && mentionsSameEntity(Numerator, Info.SumTerms);
  if (Info.What.empty() || Info.Guarded ||
      (Info.OperandUnknown && !Check.StrictMode) ||
      (Weighted && !Check.StrictMode) || pathExcludesZero(Denominator))
    return;
  // A square root written as the denominator is reported itself (with
  // autograd its gradient fails first), and its fix-it guards both.
  if (!Info.Through && !gradModeOff())
    if (std::optional<LibTorchCall> Root = asLibTorchCall(Denominator))
      if (Root->is(op::Sqrt | op::Pow) && !Root->is(op::InPlace)) {
        ReachResult R = Analysis.nearZero(operandOf(*Root));
        if (flagged(R) && !R.Detached)
          return;
      }
  std::optional<Fixes> Fix;
  if (CanFix && Info.NonNegative)
    Fix = addEpsilon(Denominator, NeedsPrimary, Check.EpsilonLiteral, SM,
                     LangOpts);
  {
    auto Diag = Check.diag(Loc, "division by %0 that can be 0 gives inf or "
                                "NaN; add an epsilon to the denominator or "
                                "clamp it")
                << Info.What;
    if (Fix)
      for (const FixItHint &H : *Fix)
        Diag << H;
  }
  noteThrough(Info.Through);
}

void MissingEpsilonCheck::Site::checkReciprocal(const LibTorchCall &Op,
                                                op::Boundary Boundary) {
  // rsqrt(x) and pow(x, -k) divide by x: a denominator that division would
  // report (a sum or mean of values nothing is known about, a norm, ...) is
  // reported here too (`deg.pow(-0.5)` of a graph's degrees, 0 for an
  // isolated node).
  const Expr *Operand = operandOf(Op);
  StringRef Form;
  if (Boundary == op::RsqrtBoundary) {
    Form = "rsqrt";
  } else if (Boundary == op::PowBoundary) {
    const Expr *Exponent = argumentAfterOperand(Op, 0);
    std::optional<PowExponent> E =
        Exponent ? classifyExponent(Exponent, Analysis) : std::nullopt;
    if (!E || *E != PowExponent::Negative)
      return;
    Form = "pow with a negative exponent";
  } else {
    return;
  }
  const Expr *D = stripImplicit(Operand);
  if (!D || (!isTensorType(D->getType()) && !D->isTypeDependent()))
    return;
  DenominatorInfo Info = Analysis.denominator(Operand);
  if (Info.What.empty() || Info.Guarded ||
      (Info.OperandUnknown && !Check.StrictMode))
    return;
  std::optional<Fixes> Fix;
  if (CanFix && Info.NonNegative && canFixOperand(Op, Operand))
    Fix = addEpsilon(Operand, Op.Object != nullptr, Check.EpsilonLiteral, SM,
                     LangOpts);
  {
    auto Diag = Check.diag(memberOrCallLoc(Op),
                           "%0 of %1 that can be 0 is infinite at 0; add an "
                           "epsilon to the argument or clamp it")
                << Form << Info.What;
    if (Fix)
      for (const FixItHint &H : *Fix)
        Diag << H;
  }
  noteThrough(Info.Through);
}

void MissingEpsilonCheck::Site::checkUnitBoundary(const LibTorchCall &Op,
                                                  StringRef Name) {
  const Expr *Operand = operandOf(Op);
  ReachResult R = Analysis.nearUnit(Operand);
  // A value computed here and handed to acos/asin is meant to be a cosine
  // (`(trace - 1) / 2` of a rotation, `dot / (na * nb)` by hand): nothing
  // keeps it inside, and rounding takes it past -1 or 1.
  if (R.State == Reach::Unknown && Analysis.computedHere(Operand))
    R.State = Reach::Reaches;
  if (!flagged(R) || gradientOnly(R))
    return;
  std::optional<Fixes> Fix;
  if (canFixOperand(Op, Operand) && !R.FromClamp)
    Fix = clampInsideUnit(Operand, Check.ClampEpsilonLiteral, SM, LangOpts);
  {
    auto Diag =
        Check.diag(memberOrCallLoc(Op),
                   "%0 of a value that nothing keeps inside (-1, 1) has an "
                   "infinite gradient at -1 and 1; clamp the argument to "
                   "[-1 + eps, 1 - eps]")
        << Name;
    if (Fix)
      for (const FixItHint &H : *Fix)
        Diag << H;
  }
  noteThrough(R.Through);
}

std::string MissingEpsilonCheck::Site::zeroMessage(const LibTorchCall &Op,
                                                   StringRef Name,
                                                   op::Boundary Boundary,
                                                   const ReachResult &R,
                                                   std::optional<Fixes> &Fix) {
  const Expr *Operand = operandOf(Op);
  auto EpsilonFix = [&] {
    if (canFixOperand(Op, Operand))
      Fix = addEpsilon(Operand, Op.Object != nullptr, Check.EpsilonLiteral, SM,
                       LangOpts);
  };
  switch (Boundary) {
  case op::SqrtBoundary:
    if (gradientOnly(R))
      return {};
    EpsilonFix();
    return "sqrt of a value that nothing keeps away from 0 has an infinite "
           "gradient at 0; add an epsilon to the argument";
  case op::RsqrtBoundary:
    EpsilonFix();
    return "rsqrt of a value that nothing keeps away from 0 is infinite at "
           "0; add an epsilon to the argument";
  case op::LogBoundary:
    // Only the natural log of a softmax is a log_softmax.
    if (Name == "log" && R.Softmax) {
      if (CanFix && !R.Through)
        Fix = useLogSoftmax(Op, Operand, SM, LangOpts);
      return "log of a softmax is -inf where a probability underflows to "
             "0; use log_softmax instead";
    }
    EpsilonFix();
    return (Name + " of a value that nothing keeps away from 0 is -inf at 0; "
                   "add an epsilon to the argument or clamp it")
        .str();
  case op::PowBoundary: {
    const Expr *Exponent = argumentAfterOperand(Op, 0);
    std::optional<PowExponent> E =
        Exponent ? classifyExponent(Exponent, Analysis) : std::nullopt;
    if (!E)
      return {}; // Integer and other exponents >= 1 are finite at 0.
    if (*E == PowExponent::Negative) // x + eps does not help a negative base.
      return "pow with a negative exponent of a base that nothing keeps away "
             "from 0 is infinite at 0; add an epsilon to the base or clamp it";
    if (gradientOnly(R))
      return {};
    EpsilonFix();
    return *E == PowExponent::Reciprocal
               ? "pow with a reciprocal exponent of a base that nothing keeps "
                 "away from 0 has an infinite gradient at 0; add an epsilon "
                 "to the base"
               : "pow with a fractional exponent of a base that nothing keeps "
                 "away from 0 has an infinite gradient at 0; add an epsilon "
                 "to the base";
  }
  default:
    return {};
  }
}

void MissingEpsilonCheck::Site::checkZeroBoundary(const LibTorchCall &Op,
                                                  StringRef Name,
                                                  op::Boundary Boundary) {
  ReachResult R = Analysis.nearZero(operandOf(Op));
  // The natural log of a sigmoid: -inf once the sigmoid rounds to 0, and
  // log_sigmoid is its stable form (as log_softmax is softmax's).
  if (Name == "log" && R.Sigmoid && R.State == Reach::Guarded) {
    std::optional<Fixes> Fix;
    if (CanFix && !R.Through)
      Fix = useLogSigmoid(Op, operandOf(Op), SM, LangOpts);
    report(memberOrCallLoc(Op),
           "log of a sigmoid is -inf where the sigmoid rounds to 0 (inputs "
           "below about -88 in float32); use log_sigmoid instead",
           Fix, R.Through);
    return;
  }
  if (pathExcludesZero(operandOf(Op)))
    return;
  if (!flagged(R)) {
    checkReciprocal(Op, Boundary);
    return;
  }
  std::optional<Fixes> Fix;
  std::string Message = zeroMessage(Op, Name, Boundary, R, Fix);
  if (!Message.empty())
    report(memberOrCallLoc(Op), Message, Fix, R.Through);
}

const FunctionDecl *
MissingEpsilonCheck::enclosingFunction(const CallExpr &Call,
                                       const SourceManager &SM) const {
  // The innermost function around the call: in pre-order, the latest one
  // recorded whose body contains it.
  SourceLocation Loc = SM.getExpansionLoc(beginLoc(Call));
  for (const FunctionDecl *Fn : llvm::reverse(Functions)) {
    const Stmt *Body = Fn->getBody();
    if (SM.isPointWithin(Loc, SM.getExpansionLoc(beginLoc(*Body)),
                         SM.getExpansionLoc(endLoc(*Body))))
      return Fn;
  }
  return nullptr;
}

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
  const FunctionDecl *Enclosing = enclosingFunction(*Call, SM);
  // Templates are checked once, in their written form: instantiations would
  // repeat each diagnostic. An operation spelled inside a macro of LibTorch
  // or of a system header is not the user's to fix.
  if ((Enclosing && isInTemplateInstantiation(*Enclosing)) ||
      !isInUserCode(SM.getSpellingLoc(beginLoc(*Call)), SM))
    return;
  Site Here(*this, *Call, Enclosing, *Result.Context);

  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if ((OC->getOperator() == OO_Slash || OC->getOperator() == OO_SlashEqual) &&
        OC->getNumArgs() == 2)
      Here.checkDivision(OC->getArg(0), OC->getArg(1), OC->getOperatorLoc(),
                         OC->getOperator() == OO_Slash);
    return;
  }
  std::optional<LibTorchCall> Op = asLibTorchCall(Call);
  if (!Op || !operandOf(*Op))
    return;
  const op::Boundary Boundary = boundaryOf(Op->Name);
  if (Boundary == op::DivisionBoundary) {
    if (const Expr *Denominator = argumentAfterOperand(*Op, 0))
      Here.checkDivision(operandOf(*Op), Denominator, memberOrCallLoc(*Op),
                         /*NeedsPrimary=*/false);
    return;
  }
  const Expr *Base = stripImplicit(operandOf(*Op));
  if (!isTensorType(Base->getType()) && !Base->isTypeDependent())
    return; // torch::pow(2.0, t): a scalar base.
  // The name in messages: the operation, not its in-place spelling.
  StringRef Name = Op->Name;
  if (Op->is(op::InPlace))
    Name = Name.drop_back();
  if (Boundary == op::UnitBoundary)
    Here.checkUnitBoundary(*Op, Name);
  else
    Here.checkZeroBoundary(*Op, Name, Boundary);
}

} // namespace clang::tidy::torch
