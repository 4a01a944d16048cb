//===--- SampleSizes.cpp - do a data set's sample sizes vary? -------------===//

#include "utils/analysis/SampleSizes.h"

#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxDepth = 24;

const CXXRecordDecl *recordOf(QualType T) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (const auto *P = T->getAs<PointerType>())
    T = P->getPointeeType();
  return T->getAsCXXRecordDecl();
}

bool isNamed(const NamedDecl *D, StringRef Qualified) {
  return D && D->getQualifiedNameAsString() == Qualified;
}

/// A class of the standard library named \p Name (std::__cxx11::basic_string
/// included).
bool isStdClass(const CXXRecordDecl *RD, std::initializer_list<StringRef> Names) {
  if (!RD || !RD->getIdentifier() || !RD->isInStdNamespace())
    return false;
  for (StringRef N : Names)
    if (RD->getName() == N)
      return true;
  return false;
}

/// A standard sequence whose length a sample may choose.
bool isSequenceType(QualType T) {
  return isStdClass(recordOf(T), {"vector", "deque", "list", "basic_string"});
}

bool isFixedArrayType(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  return isa<ConstantArrayType>(T.getCanonicalType()) ||
         isStdClass(recordOf(T), {"array"});
}

bool isMatType(QualType T) { return isNamed(recordOf(T), "cv::Mat"); }

bool isIStreamType(QualType T) {
  const CXXRecordDecl *RD = recordOf(T);
  if (!RD || !RD->hasDefinition())
    return false;
  if (isStdClass(RD, {"basic_istream", "basic_iostream"}))
    return true;
  return !RD->forallBases([](const CXXRecordDecl *Base) {
    return !isStdClass(Base, {"basic_istream"});
  });
}

/// A call of OpenCV's free function \p Name.
bool isCvCall(const CallExpr &Call, std::initializer_list<StringRef> Names) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(FD->getDeclContext());
  if (!NS || NS->getName() != "cv")
    return false;
  for (StringRef N : Names)
    if (FD->getName() == N)
      return true;
  return false;
}

StringRef methodName(const CallExpr &Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call))
    if (const CXXMethodDecl *M = MC->getMethodDecl())
      return M->getIdentifier() ? M->getName() : "";
  return "";
}

/// Implicit nodes, casts and copies: the value as written.
const Expr *strip(const Expr *E) {
  while (E) {
    const Expr *Before = E;
    E = stripImplicit(E);
    if (!E)
      return nullptr;
    E = E->IgnoreParenCasts();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
      if (Construct->getNumArgs() == 1 &&
          Construct->getConstructor()->isCopyOrMoveConstructor())
        E = Construct->getArg(0);
    if (E == Before)
      return E;
  }
  return E;
}

/// A list as written inside its conversions (`{h, w, 3}` passed as
/// IntArrayRef, `std::vector<int64_t>{h, w}`): its InitListExpr, or null.
const InitListExpr *writtenList(const Expr *E) {
  for (unsigned I = 0; E && I < 8; ++I) {
    E = strip(E);
    if (!E)
      return nullptr;
    if (const auto *List = dyn_cast<InitListExpr>(E))
      return List;
    if (const auto *Std = dyn_cast<CXXStdInitializerListExpr>(E))
      E = Std->getSubExpr();
    else if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      E = Cast->getSubExpr();
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
             Construct && Construct->getNumArgs() >= 1 &&
             !isa<CXXDefaultArgExpr>(Construct->getArg(0)))
      E = Construct->getArg(0);
    else
      return nullptr;
  }
  return nullptr;
}

/// The single value a converting construction wraps (TensorDataContainer,
/// ArrayRef from a vector), as written.
const Expr *convertedValue(const Expr *E) {
  for (unsigned I = 0; E && I < 8; ++I) {
    E = strip(E);
    const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E);
    if (!Construct || Construct->getNumArgs() != 1 ||
        isSequenceType(Construct->getType()) ||
        isFixedArrayType(Construct->getType()))
      return E;
    E = Construct->getArg(0);
  }
  return E;
}

const VarDecl *referencedVar(const Expr *E) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(strip(E));
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

bool refersTo(const Expr *E, const VarDecl &Var) {
  return referencedVar(E) == &Var;
}

SizeOrigin fixed() { return {SizeOrigin::Fixed, nullptr}; }
SizeOrigin unknown() { return {}; }

/// Varying if either varies; Fixed if both are; Unknown otherwise.
SizeOrigin join(SizeOrigin A, SizeOrigin B) {
  if (A.varies())
    return A;
  if (B.varies())
    return B;
  if (A.K == SizeOrigin::Fixed && B.K == SizeOrigin::Fixed)
    return fixed();
  return unknown();
}

/// Tensor operations whose result has the sizes of their operands (up to a
/// permutation, an inserted or removed dimension of 1, a flattening).
bool keepsSizes(StringRef Name) {
  Name.consume_back("_");
  return llvm::StringSwitch<bool>(Name)
      .Cases("permute", "transpose", "t", "contiguous", "clone", "to", true)
      .Cases("toType", "type", "div", "mul", "add", "sub", true)
      .Cases("true_divide", "neg", "abs", "sqrt", "rsqrt", "exp", true)
      .Cases("log", "log1p", "sigmoid", "tanh", "relu", "clamp", true)
      .Cases("clamp_min", "clamp_max", "unsqueeze", "squeeze", "flatten",
             "flip", true)
      .Cases("detach", "cpu", "cuda", "pin_memory", "pow", "sin", true)
      .Cases("cos", "floor", "ceil", "round", "fill", "zero", true)
      .Cases("bitwise_not", "logical_not", "masked_fill", "nan_to_num",
             "normal", "uniform", true)
      .Default(false);
}

bool isSizesFactory(StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("zeros", "ones", "empty", "full", "rand", "randn", true)
      .Default(false);
}

/// Non-const accessors that hand out an element or the storage without
/// changing the object's size (`v.data()`, `v.begin()`, `m.ptr()`).
bool isAccessor(StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("data", "begin", "end", "rbegin", "rend", "front", true)
      .Cases("back", "at", "ptr", "data_ptr", "accessor", true)
      .Default(false);
}

/// True if \p E reads a parameter of \p Fn.
bool readsParameterOf(const Expr *E, const FunctionDecl &Fn) {
  bool Reads = false;
  forEachStmt(E, [&](const Stmt &S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S))
      if (const auto *Param = dyn_cast<ParmVarDecl>(Ref->getDecl()))
        Reads |= Param->getDeclContext() == &Fn;
  });
  return Reads;
}

/// `member[i]`, `member.at(i)`, `this->member[i]`: the container member
/// and the index, or nulls.
std::pair<const MemberExpr *, const Expr *> memberElement(const Expr *E) {
  const Expr *Base = nullptr, *Index = nullptr;
  if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E)) {
    Base = Sub->getBase();
    Index = Sub->getIdx();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
             Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
    Base = Op->getArg(0);
    Index = Op->getArg(1);
  } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
             MC && methodName(*MC) == "at" && MC->getNumArgs() == 1) {
    Base = MC->getImplicitObjectArgument();
    Index = MC->getArg(0);
  }
  const auto *Member = dyn_cast_or_null<MemberExpr>(strip(Base));
  if (!Member || !isa<FieldDecl>(Member->getMemberDecl()) ||
      !isa<CXXThisExpr>(strip(Member->getBase())))
    return {nullptr, nullptr};
  return {Member, Index};
}

/// The object of a member call, or of an operator call's first operand.
const Expr *objectOf(const CallExpr &Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&Call))
    return MC->getImplicitObjectArgument();
  if (isa<CXXOperatorCallExpr>(Call) && Call.getNumArgs() >= 1)
    return Call.getArg(0);
  return nullptr;
}

bool isAssignment(const Stmt &S, const Expr *&LHS, const Expr *&RHS,
                  bool &Plain) {
  if (const auto *BO = dyn_cast<BinaryOperator>(&S); BO && BO->isAssignmentOp()) {
    LHS = BO->getLHS();
    RHS = BO->getRHS();
    Plain = BO->getOpcode() == BO_Assign;
    return true;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S);
      Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
    LHS = Op->getArg(0);
    RHS = Op->getArg(1);
    Plain = Op->getOperator() == OO_Equal;
    return true;
  }
  return false;
}

/// Visits \p S's statements, not those inside lambdas (reported to
/// \p InLambda).
void walkOwn(const Stmt *S, llvm::function_ref<void(const Stmt &)> Fn,
             llvm::function_ref<void(const Stmt &)> InLambda) {
  if (!S)
    return;
  if (const auto *Lambda = dyn_cast<LambdaExpr>(S)) {
    forEachStmt(Lambda->getBody(), InLambda);
    return;
  }
  Fn(*S);
  for (const Stmt *Child : S->children())
    walkOwn(Child, Fn, InLambda);
}

} // namespace

// --- The stacked data set
// --------------------------------------------------------

static bool isStackType(QualType T) {
  return isNamed(recordOf(T), "torch::data::transforms::Stack");
}

static bool derivesFromDataset(const CXXRecordDecl &RD) {
  if (!RD.hasDefinition())
    return false;
  return !RD.forallBases([](const CXXRecordDecl *Base) {
    return !isNamed(Base, "torch::data::datasets::Dataset");
  });
}

const CXXRecordDecl *stackedDataset(const CallExpr &Map) {
  const FunctionDecl *Callee = Map.getDirectCallee();
  if (!Callee || !Callee->getIdentifier() || Callee->getName() != "map")
    return nullptr;
  QualType Source;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&Map)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    const auto *NS = M ? dyn_cast<NamespaceDecl>(M->getParent()->getDeclContext())
                       : nullptr;
    if (!NS || NS->getQualifiedNameAsString() != "torch::data::datasets" ||
        MC->getNumArgs() != 1 || !isStackType(MC->getArg(0)->getType()))
      return nullptr;
    // The object's own class, not the base that declares map().
    const Expr *Object = stripImplicit(MC->getImplicitObjectArgument());
    if (!Object)
      return nullptr;
    Source = Object->getType();
  } else if (isNamed(Callee, "torch::data::datasets::map") &&
             Map.getNumArgs() == 2 && isStackType(Map.getArg(1)->getType())) {
    const Expr *Object = stripImplicit(Map.getArg(0));
    if (!Object)
      return nullptr;
    Source = Object->getType();
  } else {
    return nullptr;
  }
  const CXXRecordDecl *RD = recordOf(Source);
  // Through transforms that keep sizes: `.map(Normalize<>(...)).map(Stack<>())`.
  for (unsigned I = 0; RD && I < 8; ++I) {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
    if (!Spec || !isNamed(Spec, "torch::data::datasets::MapDataset"))
      break;
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() != 2 || Args[0].getKind() != TemplateArgument::Type ||
        Args[1].getKind() != TemplateArgument::Type ||
        !isNamed(recordOf(Args[1].getAsType()),
                 "torch::data::transforms::Normalize"))
      return nullptr;
    RD = recordOf(Args[0].getAsType());
  }
  if (!RD || !RD->hasDefinition() || !derivesFromDataset(*RD->getDefinition()))
    return nullptr;
  const SourceManager &SM = RD->getASTContext().getSourceManager();
  if (!isInUserCode(RD->getLocation(), SM))
    return nullptr;
  return RD->getDefinition();
}

const FunctionDecl *datasetGetDefinition(const CXXRecordDecl &Dataset) {
  llvm::SmallVector<const CXXRecordDecl *, 4> Work{&Dataset};
  const SourceManager &SM = Dataset.getASTContext().getSourceManager();
  for (unsigned I = 0; I < Work.size() && I < 16; ++I) {
    const CXXRecordDecl *RD = Work[I];
    if (!RD->hasDefinition() || !isInUserCode(RD->getLocation(), SM))
      continue;
    for (const CXXMethodDecl *M : RD->methods()) {
      const FunctionDecl *Def = nullptr;
      if (!M->getIdentifier() || M->getName() != "get" ||
          M->getNumParams() != 1)
        continue;
      if (M->hasBody(Def) && Def->getBody())
        return Def;
      // A member of a class template's specialization that was never
      // instantiated: its template's own body.
      if (const FunctionDecl *Pattern = M->getTemplateInstantiationPattern())
        if (Pattern->hasBody(Def) && Def->getBody())
          return Def;
    }
    for (const CXXBaseSpecifier &Base : RD->getDefinition()->bases())
      if (const CXXRecordDecl *B = recordOf(Base.getType()))
        Work.push_back(B);
  }
  return nullptr;
}

llvm::SmallVector<ExampleTensor, 4>
returnedExampleTensors(const FunctionDecl &Get) {
  llvm::SmallVector<ExampleTensor, 4> Out;
  auto AddPair = [&](const Expr *E) {
    E = strip(E);
    const Expr *Data = nullptr, *Target = nullptr;
    if (const auto *C = dyn_cast_or_null<CXXConstructExpr>(E);
        C && C->getNumArgs() >= 2 && isDataExampleClass(recordOf(C->getType()))) {
      Data = C->getArg(0);
      Target = C->getArg(1);
    } else if (const auto *L = dyn_cast_or_null<InitListExpr>(E);
               L && L->getNumInits() >= 2 &&
               isDataExampleClass(recordOf(L->getType()))) {
      Data = L->getInit(0);
      Target = L->getInit(1);
    } else if (const auto *C = dyn_cast_or_null<CXXConstructExpr>(E);
               C && C->getNumArgs() == 1 &&
               isDataExampleClass(recordOf(C->getType()))) {
      Data = C->getArg(0); // Example<Tensor, NoTarget>.
    }
    for (const Expr *V : {Data, Target})
      if (V && isTensorType(V->getType()) && !isa<CXXDefaultArgExpr>(V))
        Out.push_back({V, V == Target});
    return Data != nullptr;
  };
  walkOwn(
      Get.getBody(),
      [&](const Stmt &S) {
        const auto *Return = dyn_cast<ReturnStmt>(&S);
        if (!Return || !Return->getRetValue() || AddPair(Return->getRetValue()))
          return;
        // A local example: its initialiser and its fields' assignments.
        const VarDecl *Var = referencedVar(Return->getRetValue());
        if (!Var || !Var->hasLocalStorage() ||
            !isDataExampleClass(recordOf(Var->getType())))
          return;
        if (Var->getInit())
          AddPair(Var->getInit());
        walkOwn(
            Get.getBody(),
            [&](const Stmt &A) {
              const Expr *LHS = nullptr, *RHS = nullptr;
              bool Plain = false;
              if (!isAssignment(A, LHS, RHS, Plain) || !Plain)
                return;
              const auto *Member = dyn_cast<MemberExpr>(strip(LHS));
              if (!Member || !refersTo(Member->getBase(), *Var) ||
                  !Member->getMemberDecl()->getIdentifier())
                return;
              StringRef Field = Member->getMemberDecl()->getName();
              if ((Field == "data" || Field == "target") &&
                  isTensorType(RHS->getType()))
                Out.push_back({RHS, Field == "target"});
            },
            [](const Stmt &) {});
      },
      [](const Stmt &) {});
  // The same tensor returned twice (a local example returned on two paths).
  llvm::SmallVector<ExampleTensor, 4> Unique;
  for (const ExampleTensor &T : Out)
    if (llvm::none_of(Unique, [&](const ExampleTensor &U) {
          return U.Value == T.Value;
        }))
      Unique.push_back(T);
  return Unique;
}

// --- Sizes
// -----------------------------------------------------------------------

SampleSizes::SampleSizes(const FunctionDecl &Get, ASTContext &Ctx,
                         BodyParents &Parents)
    : Get(Get), Ctx(Ctx), Parents(Parents), Paths(Get, Ctx) {}

bool SampleSizes::isLocal(const VarDecl &Var) const {
  return Var.hasLocalStorage() && !isa<ParmVarDecl>(Var) &&
         Var.getDeclContext() == &Get;
}

const SampleSizes::Definitions &SampleSizes::definitionsOf(const VarDecl &Var) {
  if (auto It = Defs.find(&Var); It != Defs.end())
    return It->second;
  Definitions D;
  walkOwn(
      Get.getBody(),
      [&](const Stmt &S) {
        if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
          for (const Decl *Declared : DS->decls()) {
            if (Declared == &Var)
              D.List.push_back({&S, Var.getInit(), nullptr, false});
            // A reference or pointer that may write the variable.
            if (const auto *Alias = dyn_cast<VarDecl>(Declared);
                Alias && !Alias->isImplicit() && Alias->getInit() &&
                (Alias->getType()->isPointerType() ||
                 (Alias->getType()->isReferenceType() &&
                  !Alias->getType().getNonReferenceType().isConstQualified())))
              forEachStmt(Alias->getInit(), [&](const Stmt &Sub) {
                if (const auto *Ref = dyn_cast<DeclRefExpr>(&Sub);
                    Ref && Ref->getDecl() == &Var)
                  D.Opaque = true;
              });
          }
          return;
        }
        const Expr *LHS = nullptr, *RHS = nullptr;
        bool Plain = false;
        if (isAssignment(S, LHS, RHS, Plain) && refersTo(LHS, Var)) {
          if (Plain)
            D.List.push_back({&S, RHS, nullptr, false});
          else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S))
            D.List.push_back({&S, nullptr, Op, true}); // `s += "..."`.
          else
            D.List.push_back({&S, nullptr, nullptr, false});
          return;
        }
        if (const auto *U = dyn_cast<UnaryOperator>(&S)) {
          if (refersTo(U->getSubExpr(), Var)) {
            if (U->getOpcode() == UO_AddrOf)
              D.Opaque = true;
            else if (U->isIncrementDecrementOp())
              D.List.push_back({&S, nullptr, nullptr, false});
          }
          return;
        }
        const auto *Call = dyn_cast<CallExpr>(&S);
        if (!Call)
          return;
        // The variable as the object of a non-const method.
        if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
          const CXXMethodDecl *M = MC->getMethodDecl();
          if (M && !M->isConst() && !isAccessor(methodName(*MC)) &&
              refersTo(MC->getImplicitObjectArgument(), Var))
            D.List.push_back({&S, nullptr, Call, true});
        }
        // The variable passed by non-const reference.
        const FunctionDecl *FD = Call->getDirectCallee();
        if (!FD)
          return;
        unsigned Offset = 0;
        if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(FD))
          Offset = 1;
        for (unsigned I = Offset; I < Call->getNumArgs(); ++I) {
          const unsigned P = I - Offset;
          if (P >= FD->getNumParams() || !refersTo(Call->getArg(I), Var))
            continue;
          QualType T = FD->getParamDecl(P)->getType();
          if (T->isLValueReferenceType() &&
              !T.getNonReferenceType().isConstQualified()) {
            D.List.push_back({&S, nullptr, Call, false});
            break;
          }
        }
      },
      [&](const Stmt &S) {
        if (const auto *Ref = dyn_cast<DeclRefExpr>(&S);
            Ref && Ref->getDecl() == &Var)
          D.Opaque = true;
      });
  // A loop that writes the variable while its condition tests it (`while
  // (v.size() < L) v.push_back(0);`): every path out of the loop passes the
  // test, which bounds what the earlier definitions left. The test is a
  // definition of its own, with a value not modelled.
  llvm::SmallVector<Definition, 2> Tests;
  for (const Definition &Def : D.List) {
    if (!Def.Call || !Def.ThroughObject)
      continue;
    for (const Stmt *Loop : enclosingLoops(*Def.At, Get, Parents)) {
      const Expr *Cond = nullptr;
      if (const auto *W = dyn_cast<WhileStmt>(Loop))
        Cond = W->getCond();
      else if (const auto *F = dyn_cast<ForStmt>(Loop))
        Cond = F->getCond();
      else if (const auto *Do = dyn_cast<DoStmt>(Loop))
        Cond = Do->getCond();
      forEachStmt(Cond, [&](const Stmt &S) {
        if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&S);
            MC && refersTo(MC->getImplicitObjectArgument(), Var) &&
            llvm::none_of(Tests,
                          [&](const Definition &T) { return T.At == MC; }))
          Tests.push_back({MC, nullptr, nullptr, false});
      });
    }
  }
  D.List.append(Tests.begin(), Tests.end());
  return Defs[&Var] = std::move(D);
}

SizeOrigin SampleSizes::throughVariable(
    const VarDecl &Var, const Expr &Use, unsigned Depth,
    llvm::function_ref<SizeOrigin(const Definition &)> Each) {
  const Definitions &D = definitionsOf(Var);
  if (D.Opaque || Depth > MaxDepth || !Paths.knows(Use))
    return unknown();
  llvm::DenseSet<const Stmt *> DefStmts;
  for (const Definition &Def : D.List)
    DefStmts.insert(Def.At);
  std::optional<SizeOrigin> Result;
  bool Any = false;
  for (const Definition &Def : D.List) {
    if (!Paths.reaches(*Def.At, Use, [&](const Stmt &S) {
          return DefStmts.contains(&S);
        }))
      continue;
    Any = true;
    if (Active.contains(Def.At))
      continue; // Round a loop: nothing the other definitions do not give.
    Active.insert(Def.At);
    SizeOrigin Each1 = Each(Def);
    Active.erase(Def.At);
    Result = Result ? join(*Result, Each1) : Each1;
    if (Result->varies())
      return *Result;
  }
  if (!Any)
    return unknown();
  return Result ? *Result : fixed();
}

SizeOrigin SampleSizes::scalar(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDepth || E->isValueDependent() || E->isTypeDependent())
    return unknown();
  if (E->isIntegerConstantExpr(Ctx) ||
      isa<FloatingLiteral, CXXBoolLiteralExpr, UnaryExprOrTypeTraitExpr>(E))
    return fixed();
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    const ValueDecl *Field = Member->getMemberDecl();
    if (isMatType(Member->getBase()->getType()) && Field->getIdentifier() &&
        (Field->getName() == "rows" || Field->getName() == "cols")) {
      SizeOrigin M = mat(Member->getBase(), Depth + 1);
      return M;
    }
    // The data set's configuration: a scalar member, set once.
    const Expr *Root = strip(Member->getBase());
    while (const auto *Inner = dyn_cast_or_null<MemberExpr>(Root))
      Root = strip(Inner->getBase());
    if (isa_and_nonnull<CXXThisExpr>(Root) && Field->getType()->isScalarType())
      return fixed();
    return unknown();
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const Expr *Object = MC->getImplicitObjectArgument();
    StringRef Name = methodName(*MC);
    if ((Name == "size" || Name == "length") && MC->getNumArgs() == 0 &&
        isSequenceType(Object->getType()))
      return sequence(Object, Depth + 1);
    if (isMatType(Object->getType())) {
      if (Name == "channels" || Name == "depth" || Name == "type" ||
          Name == "elemSize")
        return fixed();
      if (Name == "total")
        return mat(Object, Depth + 1);
      return unknown();
    }
    if (isTensorType(Object->getType()) &&
        (Name == "size" || Name == "numel"))
      return tensor(Object, Depth + 1);
    return unknown();
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl>(Ref->getDecl()))
      return fixed();
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return unknown();
    if (isLocal(*Var))
      return throughVariable(*Var, *Ref, Depth + 1,
                             [&](const Definition &D) {
                               return D.Value ? scalar(D.Value, Depth + 1)
                                              : unknown();
                             });
    if (!Var->hasLocalStorage() && Var->getType().isConstQualified() &&
        Var->getInit())
      return scalar(Var->getInit(), Depth + 1);
    return unknown();
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->isAdditiveOp() || BO->isMultiplicativeOp() || BO->isShiftOp())
      return join(scalar(BO->getLHS(), Depth + 1),
                  scalar(BO->getRHS(), Depth + 1));
    return unknown();
  }
  if (const auto *Cond = dyn_cast<ConditionalOperator>(E))
    return join(scalar(Cond->getTrueExpr(), Depth + 1),
                scalar(Cond->getFalseExpr(), Depth + 1));
  if (const auto *Call = dyn_cast<CallExpr>(E);
      Call && (isStdCall(*Call, "min") || isStdCall(*Call, "max")) &&
      Call->getNumArgs() == 2)
    return join(scalar(Call->getArg(0), Depth + 1),
                scalar(Call->getArg(1), Depth + 1));
  return unknown();
}

SizeOrigin SampleSizes::sizeList(const Expr *E, unsigned Depth) {
  const InitListExpr *List = writtenList(E);
  if (!List || Depth > MaxDepth)
    return unknown();
  SizeOrigin Result = fixed();
  for (const Expr *Element : List->inits()) {
    Result = join(Result, scalar(Element, Depth + 1));
    if (Result.varies())
      return Result;
  }
  return Result;
}

SizeOrigin SampleSizes::mat(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDepth)
    return unknown();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var || !isLocal(*Var))
      return unknown();
    return throughVariable(*Var, *Ref, Depth + 1, [&](const Definition &D) {
      if (D.Value)
        return mat(D.Value, Depth + 1);
      if (!D.Call)
        return unknown();
      if (D.ThroughObject) {
        StringRef Name = methodName(*D.Call);
        if (Name == "create" && D.Call->getNumArgs() >= 2)
          return join(scalar(D.Call->getArg(0), Depth + 1),
                      scalar(D.Call->getArg(1), Depth + 1));
        if (Name == "release")
          return fixed();
        return unknown();
      }
      // Written by OpenCV.
      if (isCvCall(*D.Call, {"resize"}) && D.Call->getNumArgs() >= 3) {
        const auto *Size =
            dyn_cast_or_null<CXXConstructExpr>(strip(D.Call->getArg(2)));
        if (Size && Size->getNumArgs() == 0)
          return mat(D.Call->getArg(0), Depth + 1); // Scale factors.
        if (Size && Size->getNumArgs() == 2)
          return join(scalar(Size->getArg(0), Depth + 1),
                      scalar(Size->getArg(1), Depth + 1));
        return unknown();
      }
      if (isCvCall(*D.Call, {"cvtColor", "GaussianBlur", "blur", "medianBlur",
                             "flip", "normalize", "bilateralFilter"}) &&
          D.Call->getNumArgs() >= 2 && !refersTo(D.Call->getArg(0), *Var))
        return mat(D.Call->getArg(0), Depth + 1);
      StringRef Name = methodName(*D.Call);
      if ((Name == "convertTo" || Name == "copyTo") &&
          isMatType(objectOf(*D.Call)->getType()))
        return mat(objectOf(*D.Call), Depth + 1);
      return unknown();
    });
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (isCvCall(*Call, {"imread", "imdecode"}))
      return {SizeOrigin::Image, Call};
    StringRef Name = methodName(*Call);
    if (Name == "clone" && isMatType(objectOf(*Call)->getType()))
      return mat(objectOf(*Call), Depth + 1);
    if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
        MD && MD->isStatic() && isNamed(MD->getParent(), "cv::Mat") &&
        Call->getNumArgs() >= 2)
      return join(scalar(Call->getArg(0), Depth + 1),
                  scalar(Call->getArg(1), Depth + 1)); // Mat::zeros(r, c, t).
    return unknown(); // A region (`m(roi)`), a function's result.
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (!isMatType(Construct->getType()))
      return unknown();
    if (Construct->getNumArgs() == 0)
      return fixed();
    if (Construct->getNumArgs() >= 3 &&
        Construct->getArg(0)->getType()->isIntegerType())
      return join(scalar(Construct->getArg(0), Depth + 1),
                  scalar(Construct->getArg(1), Depth + 1));
    return unknown();
  }
  return unknown();
}

SizeOrigin SampleSizes::drivingLoop(const Stmt &Append,
                                    const VarDecl &Appended, unsigned Depth) {
  for (const Stmt *Loop : enclosingLoops(Append, Get, Parents)) {
    const Expr *Cond = nullptr;
    if (const auto *W = dyn_cast<WhileStmt>(Loop))
      Cond = W->getCond();
    else if (const auto *F = dyn_cast<ForStmt>(Loop))
      Cond = F->getCond();
    else if (const auto *D = dyn_cast<DoStmt>(Loop))
      Cond = D->getCond();
    else if (const auto *R = dyn_cast<CXXForRangeStmt>(Loop)) {
      const Expr *Range = R->getRangeInit();
      if (Range && isSequenceType(Range->getType())) {
        SizeOrigin O = sequence(Range, Depth + 1);
        if (O.varies())
          return {O.K, Loop};
      }
      continue;
    }
    if (!Cond)
      continue;
    // A loop that appends until the sequence itself reaches a size
    // (`while (v.size() < max_len) v.push_back(pad);`) pads it: not read
    // from the sample (what it leaves is not known here).
    bool Pads = false;
    forEachStmt(Cond, [&](const Stmt &S) {
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(&S))
        Pads |= refersTo(MC->getImplicitObjectArgument(), Appended);
    });
    if (Pads)
      return {SizeOrigin::Unknown, Loop};
    SizeOrigin Found;
    forEachStmt(Cond, [&](const Stmt &S) {
      if (Found.varies())
        return;
      const auto *E = dyn_cast<Expr>(&S);
      if (!E)
        return;
      if (const auto *Call = dyn_cast<CallExpr>(E)) {
        // A stream read: `std::getline(in, line)`, `in >> x`, `!in.eof()`.
        const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        const bool Reads =
            isStdCall(*Call, "getline") ||
            (Op && Op->getOperator() == OO_GreaterGreater &&
             Op->getNumArgs() == 2 && isIStreamType(Op->getArg(0)->getType())) ||
            (objectOf(*Call) && isIStreamType(objectOf(*Call)->getType()) &&
             llvm::is_contained({StringRef("eof"), StringRef("good"),
                                 StringRef("getline"), StringRef("read")},
                                methodName(*Call)));
        if (Reads) {
          Found = {SizeOrigin::Sequence, Loop};
          return;
        }
      }
      if (isa<MemberExpr, CXXMemberCallExpr>(E) && E->getType()->isIntegerType()) {
        SizeOrigin O = scalar(E, Depth + 1);
        if (O.varies())
          Found = {O.K, Loop};
      }
    });
    if (Found.varies())
      return Found;
  }
  return unknown();
}

SizeOrigin SampleSizes::sequence(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDepth)
    return unknown();
  // One sample's sequence: an element of a member container, indexed by
  // what get() is asked for.
  if (auto [Member, Index] = memberElement(E);
      Member && Index && readsParameterOf(Index, Get))
    return {SizeOrigin::Sequence, E};
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !isLocal(*Var))
    return unknown();
  if (Var->getType()->isReferenceType())
    return Var->getInit() ? sequence(Var->getInit(), Depth + 1) : unknown();
  return throughVariable(*Var, *Ref, Depth + 1, [&](const Definition &D) {
    if (D.Value) {
      const Expr *V = strip(D.Value);
      if (isa<InitListExpr>(V))
        return fixed();
      if (const auto *C = dyn_cast<CXXConstructExpr>(V);
          C && isSequenceType(C->getType())) {
        if (C->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(C->getArg(0)))
          return fixed();
        if (writtenList(C))
          return fixed();
        if (C->getArg(0)->getType()->isIntegerType())
          return scalar(C->getArg(0), Depth + 1); // `std::vector<T> v(n)`.
        // `std::vector<T> v(s.begin(), s.end())`.
        if (C->getNumArgs() >= 2) {
          const auto *B = dyn_cast_or_null<CXXMemberCallExpr>(strip(C->getArg(0)));
          const auto *En = dyn_cast_or_null<CXXMemberCallExpr>(strip(C->getArg(1)));
          if (B && En && methodName(*B) == "begin" && methodName(*En) == "end" &&
              referencedVar(B->getImplicitObjectArgument()) &&
              referencedVar(B->getImplicitObjectArgument()) ==
                  referencedVar(En->getImplicitObjectArgument()))
            return sequence(B->getImplicitObjectArgument(), Depth + 1);
        }
        return unknown();
      }
      return sequence(V, Depth + 1);
    }
    if (!D.Call)
      return unknown();
    if (D.ThroughObject) {
      StringRef Name = methodName(*D.Call);
      const auto *Op = dyn_cast<CXXOperatorCallExpr>(D.Call);
      const bool Appends =
          (Op && Op->getOperator() == OO_PlusEqual) ||
          llvm::is_contained({StringRef("push_back"), StringRef("emplace_back"),
                              StringRef("push_front"),
                              StringRef("emplace_front"), StringRef("insert"),
                              StringRef("emplace"), StringRef("append")},
                             Name);
      if (Appends) {
        SizeOrigin Loop = drivingLoop(*D.Call, *Var, Depth + 1);
        if (Loop.Source && !Loop.varies())
          return unknown(); // A padding loop.
        return Loop.varies() ? Loop : sequence(objectOf(*D.Call), Depth + 1);
      }
      if ((Name == "resize" || Name == "assign") && D.Call->getNumArgs() >= 1 &&
          D.Call->getArg(0)->getType()->isIntegerType())
        return scalar(D.Call->getArg(0), Depth + 1);
      if (Name == "clear")
        return fixed();
      if (Name == "reserve" || Name == "shrink_to_fit" || Name == "pop_back" ||
          Name == "pop_front" || Name == "erase")
        return sequence(objectOf(*D.Call), Depth + 1);
      return unknown();
    }
    // Read from a stream: `std::getline(in, line)`, `in >> word`.
    if (isStdCall(*D.Call, "getline"))
      return SizeOrigin{SizeOrigin::Sequence, D.Call};
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(D.Call);
        Op && Op->getOperator() == OO_GreaterGreater && Op->getNumArgs() == 2 &&
        isIStreamType(Op->getArg(0)->getType()))
      return SizeOrigin{SizeOrigin::Sequence, D.Call};
    return unknown();
  });
}

SizeOrigin SampleSizes::tensorFromValues(const Expr *E, unsigned Depth) {
  E = convertedValue(E);
  if (!E)
    return unknown();
  QualType T = E->getType();
  if (isSequenceType(T))
    return sequence(E, Depth + 1);
  if (isFixedArrayType(T) || T->isScalarType() ||
      isa<InitListExpr, CXXStdInitializerListExpr>(E))
    return fixed();
  return unknown();
}

SizeOrigin SampleSizes::padded(const Expr *Operand, const Expr *Amounts,
                               unsigned Depth) {
  const InitListExpr *List = writtenList(Amounts);
  if (!List)
    return unknown();
  bool UpToFixed = false;
  for (const Expr *Amount : List->inits()) {
    const Expr *A = strip(Amount);
    if (const auto *Sub = dyn_cast<BinaryOperator>(A);
        Sub && Sub->getOpcode() == BO_Sub &&
        scalar(Sub->getLHS(), Depth + 1).K == SizeOrigin::Fixed &&
        scalar(Sub->getRHS(), Depth + 1).K != SizeOrigin::Fixed) {
      UpToFixed = true; // `L - x.size(0)`: to L, whatever the size was.
      continue;
    }
    if (scalar(A, Depth + 1).K != SizeOrigin::Fixed)
      return unknown();
  }
  // Fixed amounts keep the differences between samples.
  return UpToFixed ? fixed() : tensor(Operand, Depth + 1);
}

SizeOrigin SampleSizes::tensor(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxDepth || E->isTypeDependent())
    return unknown();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var || !isLocal(*Var))
      return unknown();
    if (Var->getType()->isReferenceType())
      return Var->getInit() ? tensor(Var->getInit(), Depth + 1) : unknown();
    return throughVariable(*Var, *Ref, Depth + 1, [&](const Definition &D) {
      if (D.Value)
        return tensor(D.Value, Depth + 1);
      if (D.Call && D.ThroughObject) {
        const auto *Op = dyn_cast<CXXOperatorCallExpr>(D.Call);
        if ((Op && Op->isAssignmentOp()) || keepsSizes(methodName(*D.Call)))
          if (methodName(*D.Call).ends_with("_") || Op)
            return tensor(objectOf(*D.Call), Depth + 1);
      }
      return unknown();
    });
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    switch (Op->getOperator()) {
    case OO_Plus:
    case OO_Minus:
    case OO_Star:
    case OO_Slash: {
      std::optional<SizeOrigin> R;
      for (const Expr *Arg : Op->arguments())
        if (isTensorType(Arg->getType())) {
          SizeOrigin A = tensor(Arg, Depth + 1);
          R = R ? join(*R, A) : A;
        }
      return R ? *R : unknown();
    }
    default:
      return unknown();
    }
  }
  std::optional<LibTorchCall> C = asLibTorchCall(E);
  if (!C)
    return unknown();
  const StringRef Name = C->Name;
  if (!C->Object) {
    if (Name == "from_blob" && C->Args.size() >= 2)
      return sizeList(C->Args[1], Depth + 1);
    if (Name == "tensor" && !C->Args.empty())
      return tensorFromValues(C->Args[0], Depth + 1);
    if (isSizesFactory(Name) && !C->Args.empty())
      return sizeList(C->Args[0], Depth + 1);
  }
  const Expr *Operand = operandOf(*C);
  if (!Operand)
    return unknown();
  if (Name == "view" || Name == "reshape") {
    const Expr *Sizes = argumentAfterOperand(*C, 0);
    if (Sizes && sizeList(Sizes, Depth + 1).K == SizeOrigin::Fixed) {
      // All sizes fixed and none -1: the result's sizes are those.
      const InitListExpr *List = writtenList(Sizes);
      bool Inferred = false;
      for (const Expr *S : List->inits())
        if (const auto *U = dyn_cast<UnaryOperator>(strip(S));
            U && U->getOpcode() == UO_Minus)
          Inferred = true;
      if (!Inferred)
        return fixed();
    }
    return tensor(Operand, Depth + 1);
  }
  if (Name == "interpolate" && C->Functional) {
    const Expr *Options = argumentAfterOperand(*C, 0);
    std::optional<SizeOrigin> Sized;
    forEachStmt(Options, [&](const Stmt &S) {
      const auto *MC = dyn_cast<CXXMemberCallExpr>(&S);
      if (MC && !Sized && methodName(*MC) == "size" && MC->getNumArgs() == 1)
        Sized = sizeList(MC->getArg(0), Depth + 1);
    });
    if (Sized)
      return Sized->K == SizeOrigin::Fixed ? fixed() : unknown();
    return tensor(Operand, Depth + 1); // A scale factor keeps differences.
  }
  if (Name == "pad" && C->Functional) {
    const Expr *Options = argumentAfterOperand(*C, 0);
    const Expr *Amounts = nullptr;
    forEachStmt(Options, [&](const Stmt &S) {
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(&S);
          Construct && !Amounts && Construct->getNumArgs() >= 1 &&
          recordOf(Construct->getType()) &&
          recordOf(Construct->getType())->getName() == "PadFuncOptions")
        Amounts = Construct->getArg(0);
    });
    return Amounts ? padded(Operand, Amounts, Depth + 1) : unknown();
  }
  if (Name == "constant_pad_nd")
    if (const Expr *Amounts = argumentAfterOperand(*C, 0))
      return padded(Operand, Amounts, Depth + 1);
  if (keepsSizes(Name)) {
    SizeOrigin R = tensor(Operand, Depth + 1);
    for (const Expr *Arg : C->Args)
      if (Arg != Operand && isTensorType(Arg->getType()))
        R = join(R, tensor(Arg, Depth + 1));
    return R;
  }
  return unknown();
}

} // namespace clang::tidy::torch
