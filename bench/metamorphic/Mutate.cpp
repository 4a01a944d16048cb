//===- Mutate.cpp - semantics-preserving variants of a C++ test case -------===//
//
// torch-tidy-mutate: the rewriting half of bench/metamorphic.py. It parses one
// C++ file (with the compiler arguments after `--`), applies one named
// transformation to every *unit* of the file (a function defined at namespace
// scope in the main file) where the transformation applies, and prints the
// rewritten file. The rewriting is clang's: the AST says what a statement, a
// declaration and a use are, clang's Rewriter edits the buffer, clang's
// ExprMutationAnalyzer says whether an extracted statement may change a
// variable (then the helper takes it by reference).
//
// Expectation markers are comments at the end of a line, `// EXPECT#<id>: <check>`
// (bench/metamorphic.py writes them from `// EXPECT:` markers and lit
// CHECK-MESSAGES lines). Text moved by a transformation carries its markers
// along; where moved code is called from (a helper's call, the wrapper of a
// member function), the call's line gets `// EXPECT-ALT#<id>: <check>`: a
// diagnostic there is at the corresponding place too.
//
// Every unit is preceded by a line `// @unit <name> changed|same` so the driver
// can attribute diagnostics to units and count only the units the
// transformation changed.
//
// Exit status: 0 a variant was written; 3 the transformation applies to no
// unit; 1 the file does not parse or bad arguments.
//
//===----------------------------------------------------------------------===//

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <string>
#include <vector>

using namespace clang;

namespace {

llvm::cl::OptionCategory Category("torch-tidy-mutate options");
llvm::cl::opt<std::string> TransformName("transform", llvm::cl::desc("the transformation"),
                                         llvm::cl::cat(Category));
llvm::cl::opt<std::string> OutputFile("o", llvm::cl::desc("output file (default: stdout)"),
                                      llvm::cl::cat(Category));
llvm::cl::opt<bool> ListTransforms("list", llvm::cl::desc("list the transformations and exit"),
                                   llvm::cl::cat(Category));

struct TransformInfo {
  const char *Name;
  const char *What;
};
const TransformInfo Transforms[] = {
    {"identity", "no change (the baseline)"},
    {"extract-value", "flagged statement into a free helper; unchanged variables by value"},
    {"extract-cref", "flagged statement into a free helper; unchanged variables by const reference"},
    {"extract-ref", "flagged statement into a free helper; every variable by non-const reference"},
    {"extract-out", "flagged tensor declaration's initialiser into a helper writing an out-parameter"},
    {"member-function", "unit body into a member function of a class holding the parameters as members"},
    {"class-template", "unit body into a member function of a class template never instantiated"},
    {"lambda-in-place", "unit body into a lambda called in place"},
    {"lambda-std-function", "unit body into a lambda stored in a std::function member"},
    {"box-struct", "every local tensor held in a struct field"},
    {"box-pair", "every local tensor held in a std::pair element"},
    {"box-tuple", "every local tensor held in a std::tuple element"},
    {"box-vector", "every local tensor held in a std::vector element"},
    {"box-nested-vector", "every local tensor held in a vector of vectors"},
    {"box-map", "every local tensor held as a map value"},
    {"alias-reference", "local tensors and class-typed parameters used through a reference"},
    {"alias-accessor", "unit body into a member function reading the parameters through accessor methods"},
    {"if-both-branches", "flagged statement duplicated into both branches of an opaque if"},
    {"early-exit", "an unrelated early continue (in the loop) or return (in the function)"},
    {"split-declaration", "tensor declarations split from their initialisation"},
    {"reorder-functions", "unit definitions moved to the end of the file, forward-declared in place"},
    {"loop-iterator", "range-for loops as iterator loops"},
    {"loop-while", "range-for and counted for loops as while loops"},
    {"op-same-class", "operations replaced by one of the same autograd class"},
    {"rename", "every identifier the file declares renamed"},
};

// --- Small helpers ------------------------------------------------------------

bool isTensorType(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || RD->getName() != "Tensor")
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(RD->getDeclContext());
  return NS && NS->getName() == "at";
}

bool containsUnexpandedOrDependent(QualType T) {
  return T.isNull() || T->isDependentType() || T->isInstantiationDependentType();
}

// Types printed as written, not canonical: PrintingPolicy::PrintCanonicalTypes in
// LLVM 19, PrintAsCanonical in LLVM 22; whichever this clang has is set.
template <typename Policy>
auto printTypesAsWritten(Policy &P, int) -> decltype(P.PrintAsCanonical = false, void()) {
  P.PrintAsCanonical = false;
}
template <typename Policy> void printTypesAsWritten(Policy &P, long) {
  P.PrintCanonicalTypes = false;
}

struct Marker {
  unsigned Line;
  std::string Id;
  std::string Check;
};

class Mutator {
public:
  Mutator(ASTContext &Ctx, Rewriter &RW) : Ctx(Ctx), SM(Ctx.getSourceManager()), RW(RW) {
    Policy = std::make_unique<PrintingPolicy>(Ctx.getLangOpts());
    Policy->SuppressScope = false;
    Policy->FullyQualifiedName = true;
    Policy->SuppressUnwrittenScope = true;
    printTypesAsWritten(*Policy, 0);
    readMarkers();
    collectUnits();
  }

  bool run(StringRef Name);

private:
  ASTContext &Ctx;
  SourceManager &SM;
  Rewriter &RW;
  std::unique_ptr<PrintingPolicy> Policy;
  std::vector<Marker> Markers;
  std::map<unsigned, std::vector<const Marker *>> MarkersByLine;
  struct Unit {
    FunctionDecl *FD;
    Decl *Outer; // FD or its FunctionTemplateDecl
    bool Changed = false;
    bool Moved = false; // reorder-functions wrote it, with its marker, at the end
  };
  std::vector<Unit> Units;
  std::set<std::string> EventNames; // callee names on marker lines
  unsigned Counter = 0;
  bool NeedOpaque = false, NeedGetter = false;
  // Variables some unit's extraction could not move (a use we cannot rewrite).
  llvm::DenseSet<const VarDecl *> Untouchable;

  // -- markers and units --
  void readMarkers() {
    StringRef Buf = SM.getBufferData(SM.getMainFileID());
    llvm::Regex Re("EXPECT#([0-9]+): *([A-Za-z0-9_.-]+)");
    unsigned Line = 1;
    for (size_t Pos = 0; Pos <= Buf.size();) {
      size_t End = Buf.find('\n', Pos);
      if (End == StringRef::npos)
        End = Buf.size();
      StringRef L = Buf.slice(Pos, End);
      // A line may hold several markers.
      StringRef Rest = L;
      llvm::SmallVector<StringRef, 3> M;
      while (Re.match(Rest, &M)) {
        if (!Rest.take_front(Rest.find(M[0])).ends_with("-ALT"))
          Markers.push_back({Line, M[1].str(), M[2].str()});
        Rest = Rest.drop_front(Rest.find(M[0]) + M[0].size());
      }
      Pos = End + 1;
      ++Line;
    }
    for (const Marker &Mk : Markers)
      MarkersByLine[Mk.Line].push_back(&Mk);
  }

  unsigned line(SourceLocation L) const { return SM.getSpellingLineNumber(SM.getExpansionLoc(L)); }

  bool inMainFile(SourceLocation L) const {
    return L.isValid() && SM.isWrittenInMainFile(SM.getExpansionLoc(L));
  }

  void collectUnits() {
    std::function<void(DeclContext *)> Walk = [&](DeclContext *DC) {
      for (Decl *D : DC->decls()) {
        if (!inMainFile(D->getLocation()) || D->getBeginLoc().isMacroID())
          continue;
        if (auto *NS = dyn_cast<NamespaceDecl>(D)) {
          Walk(NS);
          continue;
        }
        if (auto *LS = dyn_cast<LinkageSpecDecl>(D)) {
          Walk(LS);
          continue;
        }
        FunctionDecl *FD = nullptr;
        Decl *Outer = D;
        if (auto *FT = dyn_cast<FunctionTemplateDecl>(D))
          FD = FT->getTemplatedDecl();
        else
          FD = dyn_cast<FunctionDecl>(D);
        if (!FD || !FD->doesThisDeclarationHaveABody() || isa<CXXMethodDecl>(FD) ||
            FD->getBody()->getBeginLoc().isMacroID() || !FD->getIdentifier())
          continue;
        Units.push_back({FD, Outer});
      }
    };
    Walk(Ctx.getTranslationUnitDecl());
    // Names of the calls on marker lines: the events the checks report.
    struct V : RecursiveASTVisitor<V> {
      Mutator &M;
      V(Mutator &M) : M(M) {}
      bool VisitCallExpr(CallExpr *CE) {
        if (!M.inMainFile(CE->getBeginLoc()))
          return true;
        unsigned L = M.line(CE->getExprLoc());
        if (!M.MarkersByLine.count(L))
          return true;
        if (auto *OC = dyn_cast<CXXOperatorCallExpr>(CE)) {
          M.EventNames.insert(getOperatorSpelling(OC->getOperator()));
        } else if (const auto *FD = CE->getDirectCallee()) {
          if (FD->getIdentifier())
            M.EventNames.insert(FD->getName().str());
        }
        return true;
      }
    } Visitor(*this);
    Visitor.TraverseDecl(Ctx.getTranslationUnitDecl());
  }

  // -- text --
  std::string text(SourceRange R) const {
    return Lexer::getSourceText(CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts()).str();
  }
  std::string rewritten(SourceRange R) const { return RW.getRewrittenText(R); }

  // End of the statement including its ';' (for expression statements).
  SourceLocation stmtEnd(const Stmt *S) const {
    // A statement's end location is its last token, without the ';' of an
    // expression statement (also when it is the body of a for or an if).
    SourceLocation E = S->getEndLoc();
    if (E.isMacroID())
      return E;
    Token Last;
    if (!Lexer::getRawToken(E, Last, SM, Ctx.getLangOpts()) &&
        (Last.is(tok::semi) || Last.is(tok::r_brace)))
      return E;
    std::optional<Token> Tok = Lexer::findNextToken(E, SM, Ctx.getLangOpts());
    if (Tok && Tok->is(tok::semi))
      return Tok->getLocation();
    return E;
  }

  // The markers inside [B, E] (by line).
  std::vector<const Marker *> markersIn(SourceLocation B, SourceLocation E) const {
    std::vector<const Marker *> R;
    unsigned LB = line(B), LE = line(E);
    for (auto It = MarkersByLine.lower_bound(LB); It != MarkersByLine.end() && It->first <= LE; ++It)
      R.insert(R.end(), It->second.begin(), It->second.end());
    return R;
  }
  static std::string altComment(const std::vector<const Marker *> &Ms) {
    std::string S;
    for (const Marker *M : Ms)
      S += " // EXPECT-ALT#" + M->Id + ": " + M->Check;
    return S;
  }
  // The trailing comment of the line E ends on, when the rest of the line is one.
  // Moving a statement moves its last line's marker with it.
  SourceRange withTrailingComment(SourceRange R) const {
    SourceLocation E = Lexer::getLocForEndOfToken(R.getEnd(), 0, SM, Ctx.getLangOpts());
    bool Invalid = false;
    const char *P = SM.getCharacterData(E, &Invalid);
    if (Invalid)
      return R;
    const char *Q = P;
    while (*Q == ' ' || *Q == '\t')
      ++Q;
    if (Q[0] == '/' && Q[1] == '/') {
      const char *End = Q;
      while (*End && *End != '\n')
        ++End;
      return SourceRange(R.getBegin(), E.getLocWithOffset(End - P - 1));
    }
    return R;
  }

  std::string typeName(QualType T) const {
    if (isTensorType(T) && !T->isReferenceType())
      return std::string(T.isConstQualified() ? "const " : "") + "torch::Tensor";
    if (const auto *AT = T->getContainedAutoType())
      if (AT->isDeduced())
        T = AT->getDeducedType();
    return TypeName::getFullyQualifiedName(T, Ctx, *Policy, /*WithGlobalNsPrefix=*/false);
  }

  // -- statement selection --
  // The statements a transformation moves: direct children of a compound
  // statement, innermost, that hold a marker (units with markers) or a call of
  // an event name (units without: the negatives' counterparts).
  void selectStatements(Unit &U, std::vector<Stmt *> &Out) {
    bool Positive = !markersIn(U.FD->getBeginLoc(), U.FD->getEndLoc()).empty();
    std::function<void(Stmt *)> Walk = [&](Stmt *S) {
      if (!S)
        return;
      if (auto *CS = dyn_cast<CompoundStmt>(S)) {
        for (Stmt *Child : CS->body()) {
          if (!wanted(Child, Positive))
            continue;
          // Innermost: descend if a nested compound holds the wanted thing.
          size_t Before = Out.size();
          for (Stmt *Sub : Child->children())
            WalkNested(Sub, Walk);
          if (Out.size() == Before)
            Out.push_back(Child);
        }
        return;
      }
      for (Stmt *Sub : S->children())
        Walk(Sub);
    };
    Walk(U.FD->getBody());
  }
  static void WalkNested(Stmt *S, std::function<void(Stmt *)> &Walk) {
    if (!S)
      return;
    if (isa<CompoundStmt>(S)) {
      Walk(S);
      return;
    }
    if (isa<LambdaExpr>(S))
      return;
    for (Stmt *Sub : S->children())
      WalkNested(Sub, Walk);
  }
  bool wanted(Stmt *S, bool Positive) {
    SourceLocation B = S->getBeginLoc(), E = stmtEnd(S);
    if (B.isMacroID() || E.isMacroID())
      return false;
    if (Positive)
      return !markersIn(B, E).empty();
    bool Found = false;
    struct V : RecursiveASTVisitor<V> {
      Mutator &M;
      bool &Found;
      V(Mutator &M, bool &F) : M(M), Found(F) {}
      bool VisitCallExpr(CallExpr *CE) {
        if (auto *OC = dyn_cast<CXXOperatorCallExpr>(CE)) {
          if (M.EventNames.count(getOperatorSpelling(OC->getOperator())))
            Found = true;
        } else if (const auto *FD = CE->getDirectCallee()) {
          if (FD->getIdentifier() && M.EventNames.count(FD->getName().str()))
            Found = true;
        }
        return !Found;
      }
    } Visitor(*this, Found);
    Visitor.TraverseStmt(S);
    return Found;
  }

  // Whether S leaves itself by return/break/continue/goto (then it cannot move into a helper).
  static bool escapes(Stmt *S) {
    struct V : RecursiveASTVisitor<V> {
      int LoopDepth = 0, SwitchDepth = 0;
      bool Escapes = false;
      bool TraverseLambdaExpr(LambdaExpr *) { return true; }
      bool TraverseForStmt(ForStmt *S) { ++LoopDepth; RecursiveASTVisitor::TraverseForStmt(S); --LoopDepth; return true; }
      bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) { ++LoopDepth; RecursiveASTVisitor::TraverseCXXForRangeStmt(S); --LoopDepth; return true; }
      bool TraverseWhileStmt(WhileStmt *S) { ++LoopDepth; RecursiveASTVisitor::TraverseWhileStmt(S); --LoopDepth; return true; }
      bool TraverseDoStmt(DoStmt *S) { ++LoopDepth; RecursiveASTVisitor::TraverseDoStmt(S); --LoopDepth; return true; }
      bool TraverseSwitchStmt(SwitchStmt *S) { ++SwitchDepth; RecursiveASTVisitor::TraverseSwitchStmt(S); --SwitchDepth; return true; }
      bool VisitReturnStmt(ReturnStmt *) { Escapes = true; return false; }
      bool VisitGotoStmt(GotoStmt *) { Escapes = true; return false; }
      bool VisitCoreturnStmt(CoreturnStmt *) { Escapes = true; return false; }
      bool VisitContinueStmt(ContinueStmt *) { if (!LoopDepth) Escapes = true; return !Escapes; }
      bool VisitBreakStmt(BreakStmt *) { if (!LoopDepth && !SwitchDepth) Escapes = true; return !Escapes; }
    } Visitor;
    Visitor.TraverseStmt(S);
    return Visitor.Escapes;
  }

  // The local variables and parameters of FD that S uses but does not declare, in order of first use.
  std::vector<const VarDecl *> freeVariables(Stmt *S, FunctionDecl *FD, bool &Bad) {
    std::vector<const VarDecl *> Vars;
    llvm::DenseSet<const VarDecl *> Declared, Seen;
    struct V : RecursiveASTVisitor<V> {
      std::vector<const VarDecl *> &Vars;
      llvm::DenseSet<const VarDecl *> &Declared, &Seen;
      bool &Bad;
      V(std::vector<const VarDecl *> &Vars, llvm::DenseSet<const VarDecl *> &D,
        llvm::DenseSet<const VarDecl *> &S, bool &B)
          : Vars(Vars), Declared(D), Seen(S), Bad(B) {}
      bool VisitVarDecl(VarDecl *VD) { Declared.insert(VD); return true; }
      bool VisitCXXThisExpr(CXXThisExpr *) { Bad = true; return true; }
      bool VisitDeclRefExpr(DeclRefExpr *DRE) {
        const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        if (isa<BindingDecl>(DRE->getDecl()))
          Bad = true;
        if (VD && VD->isStaticLocal() && !Declared.count(VD))
          Bad = true;
        if (!VD || !VD->isLocalVarDeclOrParm() || VD->isStaticLocal() || Declared.count(VD))
          return true;
        if (Seen.insert(VD).second)
          Vars.push_back(VD);
        return true;
      }
    } Visitor(Vars, Declared, Seen, Bad);
    Visitor.TraverseStmt(S);
    // Declared in S after a use? (cannot happen in valid code); keep the free ones.
    std::vector<const VarDecl *> R;
    for (const VarDecl *VD : Vars)
      if (!Declared.count(VD))
        R.push_back(VD);
    return R;
  }

  bool mutatedIn(const VarDecl *VD, Stmt *S) {
    ExprMutationAnalyzer A(*S, Ctx);
    return A.isMutated(VD);
  }

  bool byValueOk(const VarDecl *VD) {
    QualType T = VD->getType().getNonReferenceType();
    if (T->isArithmeticType() || T->isPointerType() || T->isEnumeralType())
      return true;
    if (isTensorType(T))
      return true;
    return false;
  }

  // --- transformations ---
  bool extract(const std::string &Mode);
  bool wrapBody(const std::string &Mode);
  bool box(const std::string &Kind);
  bool alias(bool Accessor);
  bool ifBothBranches();
  bool earlyExit();
  bool splitDeclarations();
  bool reorder();
  bool loops(bool While);
  bool opSameClass();
  bool rename();

  // Local tensor variables of a unit that the box/alias/split transformations may
  // rewrite: declared alone in a DeclStmt, not a reference, not static, every use
  // a DeclRefExpr we can rewrite (no explicit lambda capture by name).
  struct LocalVar {
    VarDecl *VD;
    DeclStmt *DS;
    std::vector<DeclRefExpr *> Uses;
  };
  std::vector<LocalVar> tensorLocals(Unit &U) {
    std::vector<LocalVar> R;
    std::map<const VarDecl *, size_t> Index;
    struct V : RecursiveASTVisitor<V> {
      Mutator &M;
      std::vector<LocalVar> &R;
      std::map<const VarDecl *, size_t> &Index;
      llvm::DenseSet<const VarDecl *> Bad;
      V(Mutator &M, std::vector<LocalVar> &R, std::map<const VarDecl *, size_t> &I)
          : M(M), R(R), Index(I) {}
      bool shouldVisitLambdaBody() const { return true; }
      bool VisitDeclStmt(DeclStmt *DS) {
        if (!DS->isSingleDecl())
          return true;
        auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
        if (!VD || isa<ParmVarDecl>(VD) || isa<DecompositionDecl>(VD) || VD->isStaticLocal() ||
            VD->getType()->isReferenceType() || !isTensorType(VD->getType()) ||
            VD->getType().isConstQualified() || DS->getBeginLoc().isMacroID() ||
            !M.inMainFile(DS->getBeginLoc()) || VD->isCXXForRangeDecl())
          return true;
        Index[VD] = R.size();
        R.push_back({VD, DS, {}});
        return true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *DRE) {
        auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        auto It = VD ? Index.find(VD) : Index.end();
        if (It == Index.end())
          return true;
        if (DRE->getLocation().isMacroID())
          Bad.insert(VD);
        else
          R[It->second].Uses.push_back(DRE);
        return true;
      }
      bool TraverseLambdaExpr(LambdaExpr *LE) {
        for (const LambdaCapture &C : LE->explicit_captures())
          if (C.capturesVariable())
            if (auto *VD = dyn_cast<VarDecl>(C.getCapturedVar()))
              if (!C.getCapturedVar()->isInitCapture())
                Bad.insert(VD);
        return RecursiveASTVisitor::TraverseLambdaExpr(LE);
      }
    } Visitor(*this, R, Index);
    Visitor.TraverseStmt(U.FD->getBody());
    std::vector<LocalVar> Out;
    for (LocalVar &L : R)
      if (!Visitor.Bad.count(L.VD))
        Out.push_back(L);
    return Out;
  }

  std::string initText(VarDecl *VD) {
    const Expr *Init = VD->getInit();
    if (!Init)
      return "";
    if (auto *EWC = dyn_cast<ExprWithCleanups>(Init))
      Init = EWC->getSubExpr();
    if (auto *CE = dyn_cast<CXXConstructExpr>(Init)) {
      if (CE->getNumArgs() == 0)
        return "";
      if (CE->getNumArgs() == 1 && !CE->isListInitialization() &&
          VD->getInitStyle() == VarDecl::CallInit)
        return rewritten(CE->getArg(0)->getSourceRange());
      if (VD->getInitStyle() == VarDecl::CInit && CE->getNumArgs() == 1)
        return rewritten(CE->getArg(0)->getSourceRange());
      if (CE->getParenOrBraceRange().isValid())
        return typeName(VD->getType().getUnqualifiedType()) + rewritten(CE->getParenOrBraceRange());
      return "";
    }
    return rewritten(Init->getSourceRange());
  }

  void markUnit(Unit &U) { U.Changed = true; }

  // Rewrites `T v = init;` / `T v(args);` / `T v{args};` to Prefix + init + Suffix,
  // leaving the initialiser's text (and the edits already made inside it) in place.
  bool replaceAroundInit(LocalVar &L, const std::string &Prefix, const std::string &Suffix) {
    const Expr *Init = L.VD->getInit();
    if (!Init)
      return false;
    if (auto *EWC = dyn_cast<ExprWithCleanups>(Init))
      Init = EWC->getSubExpr();
    SourceLocation IB, IE;
    std::string Pre = Prefix;
    auto *CE = dyn_cast<CXXConstructExpr>(Init);
    if (CE && L.VD->getInitStyle() != VarDecl::CInit) {
      if (!CE->getParenOrBraceRange().isValid() || CE->getNumArgs() == 0)
        return false;
      IB = CE->getParenOrBraceRange().getBegin();
      IE = CE->getParenOrBraceRange().getEnd();
      Pre += "torch::Tensor";
    } else {
      if (CE && CE->getNumArgs() == 1)
        Init = CE->getArg(0);
      IB = Init->getBeginLoc();
      IE = Init->getEndLoc();
    }
    if (IB.isMacroID() || IE.isMacroID())
      return false;
    SourceLocation Semi = L.DS->getEndLoc();
    RW.ReplaceText(CharSourceRange::getCharRange(L.DS->getBeginLoc(), IB), Pre);
    RW.ReplaceText(CharSourceRange::getCharRange(
                       Lexer::getLocForEndOfToken(IE, 0, SM, Ctx.getLangOpts()),
                       Semi.getLocWithOffset(1)),
                   Suffix);
    return true;
  }
};

// ---------------------------------------------------------------------------

bool Mutator::extract(const std::string &Mode) {
  bool Any = false;
  for (Unit &U : Units) {
    if (U.FD->isTemplated() || U.FD->isDependentContext())
      continue;
    std::vector<Stmt *> Sel;
    selectStatements(U, Sel);
    std::string Helpers;
    for (Stmt *S : Sel) {
      if (escapes(S) || isa<NullStmt>(S) || isa<SwitchCase>(S) || isa<LabelStmt>(S))
        continue;
      auto *DS = dyn_cast<DeclStmt>(S);
      VarDecl *Declared = nullptr;
      if (DS) {
        if (!DS->isSingleDecl())
          continue;
        Declared = dyn_cast<VarDecl>(DS->getSingleDecl());
        if (!Declared || !Declared->getInit() || Declared->getType()->isReferenceType() ||
            containsUnexpandedOrDependent(Declared->getType()) || isa<DecompositionDecl>(Declared) ||
            Declared->isStaticLocal())
          continue;
        if (Mode == "out" && !isTensorType(Declared->getType()))
          continue;
        if (Declared->getType()->isUndeducedType() || Declared->getType()->getAs<AutoType>() ||
            Declared->getType()->isRecordType())
          if (Declared->getType()->getAsCXXRecordDecl() &&
              Declared->getType()->getAsCXXRecordDecl()->isLambda())
            continue;
      } else if (Mode == "out") {
        continue;
      }
      bool Bad = false;
      std::vector<const VarDecl *> Free = freeVariables(S, U.FD, Bad);
      if (Bad)
        continue;
      std::string Params, Args;
      bool TypeBad = false;
      for (const VarDecl *VD : Free) {
        QualType T = VD->getType().getNonReferenceType();
        if (containsUnexpandedOrDependent(T) || T->isArrayType() ||
            (T->getAsCXXRecordDecl() && T->getAsCXXRecordDecl()->isLambda()) ||
            T->isFunctionType()) {
          TypeBad = true;
          break;
        }
        bool Mutated = mutatedIn(VD, S);
        std::string TN = typeName(T.getUnqualifiedType());
        bool Const = T.isConstQualified();
        std::string P;
        if (Mode == "ref")
          P = (Const ? "const " : "") + TN + " &";
        else if (Mode == "cref" || Mode == "out")
          P = (Const || !Mutated ? "const " : "") + TN + " &";
        else // value
          P = (!Mutated && byValueOk(VD)) ? TN + " " : (Const ? "const " : "") + TN + " &";
        if (!Params.empty()) {
          Params += ", ";
          Args += ", ";
        }
        Params += P + VD->getName().str();
        Args += VD->getName().str();
      }
      if (TypeBad)
        continue;
      std::string Name = "tt_helper_" + std::to_string(++Counter);
      SourceLocation B = S->getBeginLoc(), E = stmtEnd(S);
      std::vector<const Marker *> Ms = markersIn(B, E);
      std::string Call;
      if (Declared) {
        QualType DT = Declared->getType();
        std::string TN = typeName(DT.getUnqualifiedType());
        std::string Init = rewritten(Declared->getInit()->getSourceRange());
        if (Declared->getInitStyle() != VarDecl::CInit) {
          const Expr *I = Declared->getInit();
          if (auto *EWC = dyn_cast<ExprWithCleanups>(I))
            I = EWC->getSubExpr();
          auto *CE = dyn_cast<CXXConstructExpr>(I);
          if (CE && CE->getParenOrBraceRange().isValid())
            Init = TN + rewritten(CE->getParenOrBraceRange());
          else
            Init = TN + "(" + rewritten(I->getSourceRange()) + ")";
        }
        if (Mode == "out") {
          Helpers += "static void " + Name + "(" + Params + (Params.empty() ? "" : ", ") + TN +
                     " &tt_out) {\n  tt_out = " + Init + ";\n}\n";
          Call = (DT.isConstQualified() ? "" : "") + TN + " " + Declared->getName().str() + "; " +
                 Name + "(" + Args + (Args.empty() ? "" : ", ") + Declared->getName().str() + ");";
          if (DT.isConstQualified())
            continue;
        } else {
          Helpers += "static " + TN + " " + Name + "(" + Params + ") {\n  return " + Init + ";\n}\n";
          Call = (DT.isConstQualified() ? "const " : "") + TN + " " + Declared->getName().str() +
                 " = " + Name + "(" + Args + ");";
        }
      } else {
        Helpers += "static void " + Name + "(" + Params + ") {\n  " +
                   rewritten(SourceRange(B, E)) + "\n}\n";
        Call = Name + "(" + Args + ");";
      }
      // The moved text keeps its markers; the call site gets the alternatives.
      std::string TrailingMarkers;
      SourceRange Full = withTrailingComment(SourceRange(B, E));
      if (Full.getEnd() != E) {
        // The trailing comment moves into the helper: append it there.
        std::string Comment = text(SourceRange(
            Lexer::getLocForEndOfToken(E, 0, SM, Ctx.getLangOpts()), Full.getEnd()));
        Helpers.insert(Helpers.size() - 3, " " + StringRef(Comment).trim().str());
      }
      RW.ReplaceText(CharSourceRange::getTokenRange(Full), Call + altComment(Ms));
      markUnit(U);
      Any = true;
    }
    if (!Helpers.empty())
      RW.InsertTextBefore(U.Outer->getBeginLoc(), Helpers);
  }
  return Any;
}

bool Mutator::wrapBody(const std::string &Mode) {
  bool Any = false;
  for (Unit &U : Units) {
    FunctionDecl *FD = U.FD;
    auto *Body = dyn_cast<CompoundStmt>(FD->getBody());
    if (!Body || FD->isMain())
      continue;
    QualType R = FD->getReturnType();
    bool Void = R->isVoidType();
    std::string RT = R->getContainedAutoType() ? "" : typeName(R);
    std::string BodyText = rewritten(Body->getSourceRange());
    std::vector<const Marker *> Ms = markersIn(Body->getBeginLoc(), Body->getEndLoc());
    if (Mode == "lambda-in-place" || Mode == "lambda-std-function") {
      std::string Lambda = std::string("[&]()") + (RT.empty() || Void ? "" : " -> " + RT) + " " + BodyText;
      std::string NewBody;
      if (Mode == "lambda-in-place") {
        NewBody = "{\n  " + std::string(Void ? "" : "return ") + Lambda + "();" + altComment(Ms) + "\n}";
      } else {
        if (RT.empty() && !Void)
          continue;
        if (FD->isTemplated())
          continue;
        std::string Sig = Void ? "void()" : RT + "()";
        NewBody = "{\n  struct TTHolder { std::function<" + Sig + "> fn; };\n  TTHolder tt_holder{" +
                  Lambda + "};\n  " + (Void ? "" : "return ") + "tt_holder.fn();" + altComment(Ms) +
                  "\n}";
      }
      RW.ReplaceText(Body->getSourceRange(), NewBody);
      markUnit(U);
      Any = true;
      continue;
    }
    // member-function / class-template
    if (FD->isTemplated() || RT.empty() || FD->isVariadic())
      continue;
    {
      // A parameter captured by name, or (in a class template) a member
      // template called on a member, would not compile as a member.
      struct V : RecursiveASTVisitor<V> {
        bool Bad = false;
        bool TraverseLambdaExpr(LambdaExpr *LE) {
          for (const LambdaCapture &C : LE->explicit_captures())
            if (C.capturesVariable() && isa<ParmVarDecl>(C.getCapturedVar()))
              Bad = true;
          return RecursiveASTVisitor::TraverseLambdaExpr(LE);
        }
        bool VisitMemberExpr(MemberExpr *E) {
          if (E->hasExplicitTemplateArgs())
            Bad = true;
          return true;
        }
      } Visitor;
      Visitor.TraverseStmt(Body);
      if (Visitor.Bad)
        continue;
    }
    bool Bad = false;
    std::string Members, Init;
    for (ParmVarDecl *P : FD->parameters()) {
      if (!P->getIdentifier() || containsUnexpandedOrDependent(P->getType()) ||
          P->getType()->isArrayType()) {
        Bad = true;
        break;
      }
      QualType PT = P->getType();
      // Value parameters stay values, held by the object (a copy, as the call made one).
      Members += "  " + typeName(PT) + " " + P->getName().str() + ";\n";
      if (!Init.empty())
        Init += ", ";
      Init += PT->isRValueReferenceType() ? "std::move(" + P->getName().str() + ")" : P->getName().str();
    }
    if (Bad)
      continue;
    std::string Class = "TT_" + FD->getName().str() + "_runner_" + std::to_string(++Counter);
    if (Mode == "class-template") {
      // Never instantiated: the function itself goes, so nothing may call it.
      bool Referenced = false;
      struct V : RecursiveASTVisitor<V> {
        FunctionDecl *FD;
        bool &R;
        V(FunctionDecl *FD, bool &R) : FD(FD), R(R) {}
        bool VisitDeclRefExpr(DeclRefExpr *E) {
          if (E->getDecl()->getAsFunction() &&
              E->getDecl()->getAsFunction()->getCanonicalDecl() == FD->getCanonicalDecl())
            R = true;
          return true;
        }
      } Visitor(FD, Referenced);
      Visitor.TraverseDecl(Ctx.getTranslationUnitDecl());
      if (Referenced || FD->getPreviousDecl())
        continue;
      std::string Text = "template <typename TT_T> struct " + Class + " {\n" + Members + "  " + RT +
                         " run() " + BodyText + "\n};\n";
      SourceRange Whole(U.Outer->getBeginLoc(), FD->getEndLoc());
      RW.ReplaceText(Whole, Text);
      markUnit(U);
      Any = true;
      continue;
    }
    if (Mode == "accessor") {
      // The parameters become members `p_m` read through accessor methods `p()`.
      Members.clear();
      for (ParmVarDecl *P : FD->parameters()) {
        std::string N = P->getName().str();
        Members += "  " + typeName(P->getType()) + " " + N + "_m;\n  auto &" + N + "() { return " + N + "_m; }\n";
      }
      struct V : RecursiveASTVisitor<V> {
        std::vector<DeclRefExpr *> Uses;
        bool shouldVisitLambdaBody() const { return true; }
        bool VisitDeclRefExpr(DeclRefExpr *E) {
          if (isa<ParmVarDecl>(E->getDecl()) && !E->getLocation().isMacroID())
            Uses.push_back(E);
          return true;
        }
      } Visitor;
      Visitor.TraverseStmt(Body);
      bool Own = true;
      for (DeclRefExpr *E : Visitor.Uses)
        Own &= E->getDecl()->getDeclContext() == FD;
      if (!Own)
        continue;
      for (DeclRefExpr *E : Visitor.Uses)
        RW.ReplaceText(E->getSourceRange(), E->getDecl()->getName().str() + "()");
      BodyText = rewritten(Body->getSourceRange());
    }
    std::string Text = "struct " + Class + " {\n" + Members + "  " + RT + " run() " + BodyText + "\n};\n";
    RW.InsertTextBefore(U.Outer->getBeginLoc(), Text);
    RW.ReplaceText(Body->getSourceRange(),
                   "{\n  " + std::string(Void ? "" : "return ") + Class + "{" + Init + "}.run();" +
                       altComment(Ms) + "\n}");
    markUnit(U);
    Any = true;
  }
  return Any;
}

bool Mutator::box(const std::string &Kind) {
  bool Any = false;
  for (Unit &U : Units) {
    for (LocalVar &L : tensorLocals(U)) {
      std::string N = L.VD->getName().str();
      std::string Box = N + "_box";
      std::string Init = initText(L.VD);
      std::string T = "torch::Tensor";
      std::string Decl, Use;
      std::string I = Init.empty() ? T + "()" : Init;
      if (Kind == "struct") {
        Decl = "struct { " + T + " f; } " + Box + "{" + I + "};";
        Use = Box + ".f";
      } else if (Kind == "pair") {
        Decl = "std::pair<" + T + ", double> " + Box + "{" + I + ", 0.0};";
        Use = Box + ".first";
      } else if (Kind == "tuple") {
        Decl = "std::tuple<int, " + T + "> " + Box + "{0, " + I + "};";
        Use = "std::get<1>(" + Box + ")";
      } else if (Kind == "vector") {
        Decl = "std::vector<" + T + "> " + Box + "{" + I + "};";
        Use = Box + "[0]";
      } else if (Kind == "nested-vector") {
        Decl = "std::vector<std::vector<" + T + ">> " + Box + "{{" + I + "}};";
        Use = Box + "[0][0]";
      } else { // map
        Decl = "std::unordered_map<std::string, " + T + "> " + Box + "{{\"" + N + "\", " + I + "}};";
        Use = Box + ".at(\"" + N + "\")";
      }
      for (DeclRefExpr *DRE : L.Uses)
        RW.ReplaceText(DRE->getSourceRange(), Use);
      std::string Prefix, Suffix;
      if (Kind == "struct") {
        Prefix = "struct { " + T + " f; } " + Box + "{";
        Suffix = "};";
      } else if (Kind == "pair") {
        Prefix = "std::pair<" + T + ", double> " + Box + "{";
        Suffix = ", 0.0};";
      } else if (Kind == "tuple") {
        Prefix = "std::tuple<int, " + T + "> " + Box + "{0, ";
        Suffix = "};";
      } else if (Kind == "vector") {
        Prefix = "std::vector<" + T + "> " + Box + "{";
        Suffix = "};";
      } else if (Kind == "nested-vector") {
        Prefix = "std::vector<std::vector<" + T + ">> " + Box + "{{";
        Suffix = "}};";
      } else {
        Prefix = "std::unordered_map<std::string, " + T + "> " + Box + "{{\"" + N + "\", ";
        Suffix = "}};";
      }
      if (!replaceAroundInit(L, Prefix, Suffix))
        RW.ReplaceText(SourceRange(L.DS->getBeginLoc(), L.DS->getEndLoc()), Decl);
      markUnit(U);
      Any = true;
    }
  }
  return Any;
}

bool Mutator::alias(bool Accessor) {
  bool Any = false;
  for (Unit &U : Units) {
    auto *Body = dyn_cast<CompoundStmt>(U.FD->getBody());
    if (!Body)
      continue;
    auto Rewrite = [&](const VarDecl *VD, const std::vector<DeclRefExpr *> &Uses, SourceLocation After,
                       bool AfterIsDecl) {
      std::string N = VD->getName().str();
      std::string Intro, Use;
      if (Accessor) {
        Intro = " struct { decltype(" + N + ") &r; decltype(" + N + ") &get() { return r; } } " + N +
                "_acc{" + N + "};";
        Use = N + "_acc.get()";
      } else {
        Intro = " auto &" + N + "_ref = " + N + ";";
        Use = N + "_ref";
      }
      for (DeclRefExpr *DRE : Uses)
        if (SM.isBeforeInTranslationUnit(After, DRE->getBeginLoc()))
          RW.ReplaceText(DRE->getSourceRange(), Use);
      if (AfterIsDecl)
        RW.InsertTextAfterToken(After, Intro);
      else
        RW.InsertTextAfterToken(After, Intro);
    };
    bool Changed = false;
    // Local tensors.
    for (LocalVar &L : tensorLocals(U)) {
      if (L.Uses.empty())
        continue;
      Rewrite(L.VD, L.Uses, L.DS->getEndLoc(), true);
      Changed = true;
    }
    // Class-typed parameters (models, optimizers, data): by reference at the top of the body.
    struct V : RecursiveASTVisitor<V> {
      std::map<const ParmVarDecl *, std::vector<DeclRefExpr *>> Uses;
      llvm::DenseSet<const VarDecl *> Bad;
      bool shouldVisitLambdaBody() const { return true; }
      bool VisitDeclRefExpr(DeclRefExpr *DRE) {
        if (auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl())) {
          if (DRE->getLocation().isMacroID())
            Bad.insert(P);
          Uses[P].push_back(DRE);
        }
        return true;
      }
      bool TraverseLambdaExpr(LambdaExpr *LE) {
        for (const LambdaCapture &C : LE->explicit_captures())
          if (C.capturesVariable())
            if (auto *VD = dyn_cast<VarDecl>(C.getCapturedVar()))
              Bad.insert(VD);
        return RecursiveASTVisitor::TraverseLambdaExpr(LE);
      }
    } Visitor;
    Visitor.TraverseStmt(Body);
    for (ParmVarDecl *P : U.FD->parameters()) {
      QualType T = P->getType().getNonReferenceType();
      if (!P->getIdentifier() || !T->isRecordType() || containsUnexpandedOrDependent(T) ||
          Visitor.Bad.count(P) || Visitor.Uses[P].empty() || P->getType()->isRValueReferenceType())
        continue;
      Rewrite(P, Visitor.Uses[P], Body->getLBracLoc(), false);
      Changed = true;
    }
    if (Changed) {
      markUnit(U);
      Any = true;
    }
  }
  return Any;
}

bool Mutator::ifBothBranches() {
  bool Any = false;
  for (Unit &U : Units) {
    std::vector<Stmt *> Sel;
    selectStatements(U, Sel);
    for (Stmt *S : Sel) {
      if (isa<SwitchCase>(S) || isa<LabelStmt>(S) || isa<NullStmt>(S))
        continue;
      SourceLocation B = S->getBeginLoc(), E = stmtEnd(S);
      std::string T = rewritten(SourceRange(B, E));
      SourceRange Full = withTrailingComment(SourceRange(B, E));
      std::string Comment;
      if (Full.getEnd() != E)
        Comment = " " + StringRef(text(SourceRange(Lexer::getLocForEndOfToken(E, 0, SM, Ctx.getLangOpts()),
                                                   Full.getEnd())))
                            .trim()
                            .str();
      if (auto *DS = dyn_cast<DeclStmt>(S)) {
        auto *VD = DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
        if (!VD || !isTensorType(VD->getType()) || VD->getType()->isReferenceType() ||
            VD->getType().isConstQualified() || !VD->getInit())
          continue;
        std::string N = VD->getName().str(), I = initText(VD);
        if (I.empty())
          continue;
        RW.ReplaceText(CharSourceRange::getTokenRange(Full),
                       "torch::Tensor " + N + ";\n    if (tt_opaque()) {\n      " + N + " = " + I + ";" +
                           Comment + "\n    } else {\n      " + N + " = " + I + ";" + Comment + "\n    }");
      } else {
        RW.ReplaceText(CharSourceRange::getTokenRange(Full), "if (tt_opaque()) {\n      " + T + Comment +
                                                                 "\n    } else {\n      " + T + Comment +
                                                                 "\n    }");
      }
      NeedOpaque = true;
      markUnit(U);
      Any = true;
    }
  }
  return Any;
}

bool Mutator::earlyExit() {
  bool Any = false;
  for (Unit &U : Units) {
    auto *Body = dyn_cast<CompoundStmt>(U.FD->getBody());
    if (!Body)
      continue;
    // The innermost loop around a selected statement; else the function.
    std::vector<Stmt *> Sel;
    selectStatements(U, Sel);
    Stmt *Loop = nullptr;
    if (!Sel.empty()) {
      DynTypedNodeList Parents = Ctx.getParents(*Sel.front());
      const Stmt *Cur = Sel.front();
      while (!Parents.empty()) {
        const Stmt *P = Parents[0].get<Stmt>();
        if (!P)
          break;
        if (isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(P)) {
          Loop = const_cast<Stmt *>(P);
          break;
        }
        Cur = P;
        Parents = Ctx.getParents(*Cur);
      }
    }
    NeedOpaque = true;
    if (Loop) {
      Stmt *LB = nullptr;
      if (auto *F = dyn_cast<ForStmt>(Loop)) LB = F->getBody();
      else if (auto *F = dyn_cast<CXXForRangeStmt>(Loop)) LB = F->getBody();
      else if (auto *W = dyn_cast<WhileStmt>(Loop)) LB = W->getBody();
      else if (auto *D = dyn_cast<DoStmt>(Loop)) LB = D->getBody();
      auto *CS = dyn_cast_or_null<CompoundStmt>(LB);
      if (!CS || isa<DoStmt>(Loop))
        continue;
      RW.InsertTextAfterToken(CS->getLBracLoc(), "\n    if (tt_opaque()) continue;");
    } else {
      if (!U.FD->getReturnType()->isVoidType())
        continue;
      RW.InsertTextAfterToken(Body->getLBracLoc(), "\n  if (tt_opaque()) return;");
    }
    markUnit(U);
    Any = true;
  }
  return Any;
}

bool Mutator::splitDeclarations() {
  bool Any = false;
  for (Unit &U : Units) {
    for (LocalVar &L : tensorLocals(U)) {
      std::string I = initText(L.VD);
      if (I.empty())
        continue;
      std::string N = L.VD->getName().str();
      if (!replaceAroundInit(L, "torch::Tensor " + N + ";\n  " + N + " = ", ";"))
        continue;
      markUnit(U);
      Any = true;
    }
  }
  return Any;
}

bool Mutator::reorder() {
  std::string Tail;
  bool Any = false;
  for (auto It = Units.rbegin(); It != Units.rend(); ++It) {
    Unit &U = *It;
    FunctionDecl *FD = U.FD;
    if (FD->isTemplated() || !isa<TranslationUnitDecl>(FD->getDeclContext()->getRedeclContext()) ||
        FD->isMain() || FD->getStorageClass() == SC_Static)
      continue; // namespace-scope definitions would need the namespace around them
    SourceRange Whole(U.Outer->getBeginLoc(), FD->getEndLoc());
    std::string Def = rewritten(Whole);
    std::string Sig = rewritten(SourceRange(U.Outer->getBeginLoc(), FD->getBody()->getBeginLoc()));
    Sig = StringRef(Sig).drop_back(1).rtrim().str();
    // Default arguments stay in the declaration only.
    bool HasDefault = false;
    for (ParmVarDecl *P : FD->parameters())
      HasDefault |= P->hasDefaultArg();
    if (HasDefault || isa<CXXConstructorDecl>(FD))
      continue;
    Tail += "\n// @unit " + FD->getName().str() + " changed\n" + Def + "\n// @end-unit\n";
    RW.ReplaceText(Whole, Sig + ";");
    U.Moved = true; // its marker moves with it (written above)
    Any = true;
  }
  if (Any)
    RW.InsertTextAfter(SM.getLocForEndOfFile(SM.getMainFileID()), Tail);
  return Any;
}

bool Mutator::loops(bool While) {
  bool Any = false;
  for (Unit &U : Units) {
    struct V : RecursiveASTVisitor<V> {
      std::vector<Stmt *> Loops;
      bool VisitCXXForRangeStmt(CXXForRangeStmt *S) { Loops.push_back(S); return true; }
      bool VisitForStmt(ForStmt *S) { Loops.push_back(S); return true; }
    } Visitor;
    Visitor.TraverseStmt(U.FD->getBody());
    // Outermost first; rewrite only loops not nested in another rewritten one's header.
    bool Changed = false;
    for (Stmt *L : Visitor.Loops) {
      if (L->getBeginLoc().isMacroID())
        continue;
      if (auto *RF = dyn_cast<CXXForRangeStmt>(L)) {
        VarDecl *LV = RF->getLoopVariable();
        if (isa<DecompositionDecl>(LV) && false)
          continue;
        std::string Decl = rewritten(SourceRange(LV->getBeginLoc(), LV->getEndLoc()));
        if (LV->getInit())
          Decl = rewritten(SourceRange(LV->getBeginLoc(), LV->getLocation()));
        if (isa<DecompositionDecl>(LV))
          Decl = rewritten(SourceRange(LV->getBeginLoc(), RF->getColonLoc().getLocWithOffset(-1)));
        std::string Range = rewritten(RF->getRangeInit()->getSourceRange());
        // A body's last line keeps its trailing comment (an expectation marker)
        // inside the new loop, not after the braces this adds.
        std::string Body = rewritten(
            withTrailingComment(SourceRange(RF->getBody()->getBeginLoc(), stmtEnd(RF->getBody()))));
        std::string N = std::to_string(++Counter);
        std::string It = "tt_it" + N, R = "tt_range" + N;
        std::string Text;
        Decl = StringRef(Decl).rtrim().str();
        if (!While)
          Text = "for (auto &&" + R + " = " + Range + "; false;) {}\n  {\n  auto &&" + R + "_ = " + Range +
                 ";\n  for (auto " + It + " = " + R + "_.begin(); " + It + " != " + R + "_.end(); ++" + It +
                 ") {\n    " + Decl + " = *" + It + ";\n    " + Body + "\n  }\n  }";
        else
          Text = "{\n  auto &&" + R + " = " + Range + ";\n  auto " + It + " = " + R + ".begin();\n  while (" +
                 It + " != " + R + ".end()) {\n    " + Decl + " = *" + It + ";\n    ++" + It + ";\n    " +
                 Body + "\n  }\n  }";
        if (!While) // keep it simple: no dummy loop
          Text = "{\n  auto &&" + R + " = " + Range + ";\n  for (auto " + It + " = " + R + ".begin(); " + It +
                 " != " + R + ".end(); ++" + It + ") {\n    " + Decl + " = *" + It + ";\n    " + Body +
                 "\n  }\n  }";
        RW.ReplaceText(withTrailingComment(SourceRange(RF->getBeginLoc(), stmtEnd(RF->getBody()))), Text);
        Changed = true;
        break; // one loop per unit: nested rewrites would overlap
      }
      if (auto *F = dyn_cast<ForStmt>(L)) {
        if (!While || !F->getInit() || !F->getCond() || !F->getInc())
          continue;
        // `continue` in the body would skip the increment.
        struct C : RecursiveASTVisitor<C> {
          int Depth = 0;
          bool Found = false;
          bool TraverseLambdaExpr(LambdaExpr *) { return true; }
          bool TraverseForStmt(ForStmt *S) { ++Depth; RecursiveASTVisitor::TraverseForStmt(S); --Depth; return true; }
          bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) { ++Depth; RecursiveASTVisitor::TraverseCXXForRangeStmt(S); --Depth; return true; }
          bool TraverseWhileStmt(WhileStmt *S) { ++Depth; RecursiveASTVisitor::TraverseWhileStmt(S); --Depth; return true; }
          bool TraverseDoStmt(DoStmt *S) { ++Depth; RecursiveASTVisitor::TraverseDoStmt(S); --Depth; return true; }
          bool VisitContinueStmt(ContinueStmt *) { if (!Depth) Found = true; return true; }
        } Cont;
        Cont.TraverseStmt(F->getBody());
        if (Cont.Found)
          continue;
        std::string Init = rewritten(F->getInit()->getSourceRange());
        if (!isa<DeclStmt>(F->getInit()))
          Init += ";";
        std::string Text = "{\n  " + Init + "\n  while (" + rewritten(F->getCond()->getSourceRange()) +
                           ") {\n    " +
                           rewritten(withTrailingComment(
                               SourceRange(F->getBody()->getBeginLoc(), stmtEnd(F->getBody())))) +
                           "\n    " + rewritten(F->getInc()->getSourceRange()) + ";\n  }\n  }";
        RW.ReplaceText(withTrailingComment(SourceRange(F->getBeginLoc(), stmtEnd(F->getBody()))), Text);
        Changed = true;
        break;
      }
    }
    if (Changed) {
      markUnit(U);
      Any = true;
    }
  }
  return Any;
}

bool Mutator::opSameClass() {
  bool Any = false;
  for (Unit &U : Units) {
    struct V : RecursiveASTVisitor<V> {
      Mutator &M;
      std::vector<CallExpr *> Calls;
      std::vector<BinaryOperator *> Divs;
      std::vector<CXXOperatorCallExpr *> OpDivs;
      V(Mutator &M) : M(M) {}
      bool VisitCallExpr(CallExpr *CE) {
        if (CE->getBeginLoc().isMacroID())
          return true;
        Calls.push_back(CE);
        return true;
      }
    } Visitor(*this);
    Visitor.TraverseStmt(U.FD->getBody());
    bool Changed = false;
    llvm::DenseSet<unsigned> Done; // one rewrite per call begin (no overlaps)
    for (CallExpr *CE : Visitor.Calls) {
      const FunctionDecl *FD = CE->getDirectCallee();
      if (!FD || !FD->getIdentifier())
        continue;
      StringRef Name = FD->getName();
      const auto *NS = dyn_cast<NamespaceDecl>(FD->getDeclContext());
      bool FreeAt = NS && NS->getName() == "at" && !isa<CXXMethodDecl>(FD);
      auto *MC = dyn_cast<CXXMemberCallExpr>(CE);
      bool MethodAt = MC && isTensorType(MC->getObjectType());
      auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
      std::string NewText;
      if (OC && OC->getOperator() == OO_Slash && OC->getNumArgs() == 2 && isTensorType(OC->getArg(0)->getType()) &&
          isTensorType(OC->getType())) {
        NewText = "torch::div(" + rewritten(OC->getArg(0)->getSourceRange()) + ", " +
                  rewritten(OC->getArg(1)->getSourceRange()) + ")";
      } else if (FreeAt && CE->getNumArgs() == 1 && Name == "sqrt") {
        NewText = "torch::pow(" + rewritten(CE->getArg(0)->getSourceRange()) + ", 0.5)";
      } else if (FreeAt && CE->getNumArgs() == 1 && Name == "relu") {
        NewText = "torch::gelu(" + rewritten(CE->getArg(0)->getSourceRange()) + ")";
      } else if (MethodAt && MC->getNumArgs() == 0 && Name == "sqrt") {
        NewText = rewritten(MC->getImplicitObjectArgument()->getSourceRange()) + ".pow(0.5)";
      } else if (MethodAt && MC->getNumArgs() == 0 && Name == "relu") {
        NewText = "torch::gelu(" + rewritten(MC->getImplicitObjectArgument()->getSourceRange()) + ")";
      } else if (MethodAt && MC->getNumArgs() == 1 && Name == "div" &&
                 isTensorType(MC->getArg(0)->getType())) {
        NewText = "torch::div(" + rewritten(MC->getImplicitObjectArgument()->getSourceRange()) + ", " +
                  rewritten(MC->getArg(0)->getSourceRange()) + ")";
      }
      if (NewText.empty())
        continue;
      // Skip calls nested in one already rewritten (their text was taken above).
      bool Nested = false;
      for (unsigned Off : Done)
        (void)Off;
      unsigned Key = SM.getFileOffset(SM.getExpansionLoc(CE->getBeginLoc()));
      if (!Done.insert(Key).second)
        continue;
      (void)Nested;
      RW.ReplaceText(CE->getSourceRange(), NewText);
      Changed = true;
    }
    if (Changed) {
      markUnit(U);
      Any = true;
    }
  }
  return Any;
}

bool Mutator::rename() {
  // Every variable, parameter, field and function (except forward, main, methods
  // and anything in a macro) declared in the main file gets a new name.
  std::map<const NamedDecl *, std::string> Names;
  llvm::DenseSet<const NamedDecl *> Bad;
  unsigned N = 0;
  auto Eligible = [&](const NamedDecl *D) -> bool {
    if (!D->getIdentifier() || !inMainFile(D->getLocation()) || D->getLocation().isMacroID())
      return false;
    if (isa<ParmVarDecl>(D) || isa<FieldDecl>(D))
      return true;
    if (const auto *VD = dyn_cast<VarDecl>(D))
      return !isa<DecompositionDecl>(VD);
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      return !isa<CXXMethodDecl>(FD) && !FD->isMain() && !FD->isOverloadedOperator() &&
             !FD->getTemplateSpecializationInfo() && !FD->getDescribedFunctionTemplate() &&
             !FD->isTemplated();
    return false;
  };
  auto NameOf = [&](const NamedDecl *D) -> std::string {
    D = cast<NamedDecl>(D->getCanonicalDecl());
    auto It = Names.find(D);
    if (It != Names.end())
      return It->second;
    std::string Prefix = isa<FunctionDecl>(D) ? "fn" : isa<FieldDecl>(D) ? "fld" : "v";
    return Names[D] = Prefix + std::to_string(++N) + "_";
  };
  struct Edit {
    SourceLocation Loc;
    const NamedDecl *D;
  };
  std::vector<Edit> Edits;
  struct V : RecursiveASTVisitor<V> {
    std::vector<Edit> &Edits;
    std::function<bool(const NamedDecl *)> Eligible;
    llvm::DenseSet<const NamedDecl *> &Bad;
    V(std::vector<Edit> &E, std::function<bool(const NamedDecl *)> El, llvm::DenseSet<const NamedDecl *> &B)
        : Edits(E), Eligible(El), Bad(B) {}
    bool shouldVisitTemplateInstantiations() const { return false; }
    bool shouldVisitImplicitCode() const { return false; }
    bool VisitNamedDecl(NamedDecl *D) {
      if ((isa<VarDecl>(D) || isa<FieldDecl>(D) || isa<FunctionDecl>(D)) && Eligible(D))
        Edits.push_back({D->getLocation(), D});
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (Eligible(E->getDecl())) {
        if (E->getLocation().isMacroID())
          Bad.insert(cast<NamedDecl>(E->getDecl()->getCanonicalDecl()));
        else
          Edits.push_back({E->getLocation(), E->getDecl()});
      }
      return true;
    }
    bool VisitMemberExpr(MemberExpr *E) {
      if (Eligible(E->getMemberDecl()) && E->getMemberLoc().isValid()) {
        if (E->getMemberLoc().isMacroID())
          Bad.insert(cast<NamedDecl>(E->getMemberDecl()->getCanonicalDecl()));
        else
          Edits.push_back({E->getMemberLoc(), E->getMemberDecl()});
      }
      return true;
    }
    bool VisitCXXCtorInitializer(CXXCtorInitializer *I) { return true; }
    bool TraverseConstructorInitializer(CXXCtorInitializer *I) {
      if (I->isMemberInitializer() && I->isWritten() && Eligible(I->getMember())) {
        if (I->getMemberLocation().isMacroID())
          Bad.insert(I->getMember());
        else
          Edits.push_back({I->getMemberLocation(), I->getMember()});
      }
      return RecursiveASTVisitor::TraverseConstructorInitializer(I);
    }
    bool TraverseLambdaExpr(LambdaExpr *LE) {
      for (const LambdaCapture &C : LE->explicit_captures())
        if (C.capturesVariable() && Eligible(C.getCapturedVar()) && !C.getCapturedVar()->isInitCapture())
          Edits.push_back({C.getLocation(), C.getCapturedVar()});
      return RecursiveASTVisitor::TraverseLambdaExpr(LE);
    }
    // Names in dependent code cannot be followed: leave them alone.
    bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *E) {
      for (const NamedDecl *D : E->decls())
        Bad.insert(cast<NamedDecl>(D->getUnderlyingDecl()->getCanonicalDecl()));
      return true;
    }
    bool VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *) { return true; }
    bool VisitDesignatedInitExpr(DesignatedInitExpr *E) {
      for (const DesignatedInitExpr::Designator &D : E->designators())
        if (D.isFieldDesignator() && D.getFieldDecl())
          Bad.insert(D.getFieldDecl());
      return true;
    }
  } Visitor(Edits, Eligible, Bad);
  Visitor.TraverseDecl(Ctx.getTranslationUnitDecl());
  // Names that also appear as dependent member names stay (we cannot tell whose they are).
  llvm::StringSet<> DependentNames;
  struct D : RecursiveASTVisitor<D> {
    llvm::StringSet<> &S;
    D(llvm::StringSet<> &S) : S(S) {}
    bool VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *E) {
      if (E->getMemberLoc().isValid() && !E->getMemberLoc().isMacroID() &&
          !E->getMemberLoc().isInvalid())
        S.insert(E->getMember().getAsString());
      return true;
    }
    bool VisitDependentScopeDeclRefExpr(DependentScopeDeclRefExpr *E) {
      S.insert(E->getDeclName().getAsString());
      return true;
    }
  } DV(DependentNames);
  DV.TraverseDecl(Ctx.getTranslationUnitDecl());
  std::set<unsigned> DoneOffsets;
  bool Any = false;
  for (const Edit &E : Edits) {
    const auto *Canon = cast<NamedDecl>(E.D->getCanonicalDecl());
    if (Bad.count(Canon) || DependentNames.count(E.D->getName()))
      continue;
    if (E.D->getName() == "forward")
      continue;
    if (!inMainFile(E.Loc))
      continue;
    unsigned Off = SM.getFileOffset(SM.getSpellingLoc(E.Loc));
    if (!DoneOffsets.insert(Off).second)
      continue;
    RW.ReplaceText(SM.getSpellingLoc(E.Loc), E.D->getName().size(), NameOf(Canon));
    Any = true;
  }
  if (Any)
    for (Unit &U : Units)
      U.Changed = true;
  return Any;
}

bool Mutator::run(StringRef Name) {
  bool Any = false;
  if (Name == "identity") {
    for (Unit &U : Units)
      U.Changed = true;
    Any = !Units.empty();
  } else if (Name.starts_with("extract-")) {
    Any = extract(Name.drop_front(8).str());
  } else if (Name == "member-function" || Name == "class-template" || Name == "lambda-in-place" ||
             Name == "lambda-std-function") {
    Any = wrapBody(Name.str());
  } else if (Name == "alias-accessor") {
    Any = wrapBody("accessor");
  } else if (Name.starts_with("box-")) {
    Any = box(Name.drop_front(4).str());
  } else if (Name == "alias-reference") {
    Any = alias(false);
  } else if (Name == "if-both-branches") {
    Any = ifBothBranches();
  } else if (Name == "early-exit") {
    Any = earlyExit();
  } else if (Name == "split-declaration") {
    Any = splitDeclarations();
  } else if (Name == "reorder-functions") {
    Any = reorder();
  } else if (Name == "loop-iterator" || Name == "loop-while") {
    Any = loops(Name == "loop-while");
  } else if (Name == "op-same-class") {
    Any = opSameClass();
  } else if (Name == "rename") {
    Any = rename();
  } else {
    llvm::errs() << "torch-tidy-mutate: unknown transformation '" << Name << "' (see --list)\n";
    return false;
  }
  // Unit markers, and the declarations the variants use.
  for (Unit &U : Units) {
    if (U.Moved)
      continue; // moved to the end with its own marker
    RW.InsertTextBefore(U.Outer->getBeginLoc(),
                        "// @unit " + U.FD->getName().str() + (U.Changed ? " changed\n" : " same\n"));
    RW.InsertTextAfterToken(U.FD->getEndLoc(), "\n// @end-unit");
  }
  if (!Units.empty()) {
    std::string Pre;
    if (NeedOpaque)
      Pre += "bool tt_opaque();\n";
    if (!Pre.empty()) {
      // Before the first unit's enclosing namespace-scope declaration.
      const Decl *First = Units.front().Outer;
      const DeclContext *DC = First->getDeclContext();
      const Decl *Top = First;
      while (DC && !isa<TranslationUnitDecl>(DC)) {
        Top = cast<Decl>(DC);
        DC = DC->getParent();
      }
      RW.InsertTextBefore(Top->getBeginLoc(), Pre);
    }
  }
  return Any;
}

int ExitCode = 1;

class Consumer : public ASTConsumer {
public:
  explicit Consumer(Rewriter &RW) : RW(RW) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (Ctx.getDiagnostics().hasErrorOccurred()) {
      llvm::errs() << "torch-tidy-mutate: the input does not compile; no variant written\n";
      ExitCode = 1;
      return;
    }
    RW.setSourceMgr(Ctx.getSourceManager(), Ctx.getLangOpts());
    Mutator M(Ctx, RW);
    bool Any = M.run(TransformName);
    // clang::RewriteBuffer in LLVM 19, llvm::RewriteBuffer in LLVM 22.
    const auto *Buf = RW.getRewriteBufferFor(Ctx.getSourceManager().getMainFileID());
    std::string Out = Buf ? std::string(Buf->begin(), Buf->end())
                          : Ctx.getSourceManager().getBufferData(Ctx.getSourceManager().getMainFileID()).str();
    std::error_code EC;
    if (OutputFile.empty()) {
      llvm::outs() << Out;
    } else {
      llvm::raw_fd_ostream OS(OutputFile, EC);
      if (EC) {
        llvm::errs() << "torch-tidy-mutate: cannot write " << OutputFile << ": " << EC.message() << "\n";
        ExitCode = 1;
        return;
      }
      OS << Out;
    }
    ExitCode = Any ? 0 : 3;
  }

private:
  Rewriter &RW;
};

class Action : public ASTFrontendAction {
public:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &, StringRef) override {
    return std::make_unique<Consumer>(RW);
  }

private:
  Rewriter RW;
};

} // namespace

int main(int argc, const char **argv) {
  llvm::cl::HideUnrelatedOptions(Category);
  for (int I = 1; I < argc; ++I)
    if (StringRef(argv[I]) == "--list" || StringRef(argv[I]) == "-list") {
      for (const TransformInfo &T : Transforms)
        llvm::outs() << T.Name << "\t" << T.What << "\n";
      return 0;
    }
  auto Parser = tooling::CommonOptionsParser::create(argc, argv, Category, llvm::cl::Required);
  if (!Parser) {
    llvm::errs() << "torch-tidy-mutate: " << llvm::toString(Parser.takeError()) << "\n";
    return 1;
  }
  bool Known = false;
  for (const TransformInfo &T : Transforms)
    Known |= TransformName == T.Name;
  if (!Known) {
    llvm::errs() << "torch-tidy-mutate: unknown transformation '" << TransformName << "' (see --list)\n";
    return 1;
  }
  if (Parser->getSourcePathList().size() != 1) {
    llvm::errs() << "torch-tidy-mutate: give exactly one source file\n";
    return 1;
  }
  tooling::ClangTool Tool(Parser->getCompilations(), Parser->getSourcePathList());
  // clang's builtin headers, as torch-tidy finds them.
  Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
      "-resource-dir=" TORCH_TIDY_RESOURCE_DIR, tooling::ArgumentInsertPosition::END));
  int RC = Tool.run(tooling::newFrontendActionFactory<Action>().get());
  if (RC != 0 && ExitCode == 0)
    return 1;
  return ExitCode;
}
