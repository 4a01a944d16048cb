//===--- PathValues.cpp - what a field or element of a local may hold ------===//
//
// See PathValues.h.
//
//===----------------------------------------------------------------------===//

#include "utils/analysis/PathValues.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::torch {

namespace {

/// Through the nodes that only wrap a value.
const Expr *unwrap(const Expr *E) {
  for (int Depth = 0; E && Depth < 12; ++Depth) {
    E = E->IgnoreParens();
    if (const auto *C = dyn_cast<ExprWithCleanups>(E))
      E = C->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E))
      E = F->getSubExpr();
    else if (const auto *I = dyn_cast<ImplicitCastExpr>(E);
             I && (I->getCastKind() == CK_NoOp ||
                   I->getCastKind() == CK_ConstructorConversion ||
                   I->getCastKind() == CK_UserDefinedConversion))
      E = I->getSubExpr();
    else if (const auto *C = dyn_cast<CXXConstructExpr>(E);
             C && C->getNumArgs() == 1 &&
             C->getConstructor()->isCopyOrMoveConstructor() &&
             isa<MaterializeTemporaryExpr, CXXBindTemporaryExpr>(
                 C->getArg(0)->IgnoreParens()))
      E = C->getArg(0); // A temporary copied or moved: the temporary.
    else
      return E;
  }
  return E;
}

const ClassTemplateSpecializationDecl *stdSpec(QualType T) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  return Spec && Spec->isInStdNamespace() && Spec->getIdentifier() ? Spec
                                                                   : nullptr;
}

bool isStdNamed(QualType T, std::initializer_list<StringRef> Names) {
  const auto *Spec = stdSpec(T);
  return Spec && llvm::is_contained(Names, Spec->getName());
}

bool isMap(QualType T) { return isStdNamed(T, {"map", "unordered_map"}); }

/// The index of \p Field among its record's fields.
std::optional<unsigned> fieldIndex(const RecordDecl &Record,
                                   const FieldDecl *Field) {
  unsigned I = 0;
  for (const FieldDecl *F : Record.fields()) {
    if (F->getCanonicalDecl() == Field)
      return I;
    ++I;
  }
  return std::nullopt;
}

/// All arguments but the first are defaults (`std::vector<T> v(n)`).
bool onlyFirstWritten(const CXXConstructExpr &C) {
  return llvm::all_of(llvm::drop_begin(C.arguments()),
                      [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); });
}

/// The part of \p Init that \p Steps select, appended to \p Out; false when
/// it cannot be read out of the expression.
bool selectPart(const Expr *Init, llvm::ArrayRef<AccessStep> Steps,
                llvm::SmallVectorImpl<const Expr *> &Out, unsigned Depth = 0) {
  if (!Init || Depth > 8)
    return false;
  if (Steps.empty()) {
    Out.push_back(Init);
    return true;
  }
  const Expr *E = unwrap(Init);
  const AccessStep &Step = Steps.front();
  const auto Rest = Steps.drop_front();
  const auto *Construct = dyn_cast<CXXConstructExpr>(E);
  if (Construct && Construct->getNumArgs() == 0)
    return true; // Default-constructed: nothing stored yet.
  const auto *List = dyn_cast<InitListExpr>(E);
  if (List && List->isSyntacticForm() && List->getSyntacticForm())
    List = List->getSyntacticForm();
  const auto *Call = dyn_cast<CallExpr>(E);
  switch (Step.K) {
  case AccessStep::Field: {
    if (List && !List->getType()->isArrayType()) {
      const auto *Record = List->getType()->getAsRecordDecl();
      if (!Record || List->hasArrayFiller())
        return false;
      std::optional<unsigned> I = fieldIndex(*Record, Step.Member);
      if (!I)
        return false;
      if (*I >= List->getNumInits())
        return true; // Value-initialised.
      return selectPart(List->getInit(*I), Rest, Out, Depth + 1);
    }
    if (Construct && isStdNamed(Construct->getType(), {"pair"}) &&
        !Construct->getConstructor()->isCopyOrMoveConstructor() &&
        Construct->getNumArgs() == 2) {
      const auto *Record = Construct->getType()->getAsRecordDecl();
      std::optional<unsigned> I = fieldIndex(*Record, Step.Member);
      return I && *I < 2 &&
             selectPart(Construct->getArg(*I), Rest, Out, Depth + 1);
    }
    if (Call && isStdCall(*Call, "make_pair") && Call->getNumArgs() == 2) {
      const auto *Record = Call->getType()->getAsRecordDecl();
      std::optional<unsigned> I =
          Record ? fieldIndex(*Record, Step.Member) : std::nullopt;
      return I && *I < 2 && selectPart(Call->getArg(*I), Rest, Out, Depth + 1);
    }
    return false;
  }
  case AccessStep::TupleElement: {
    if (Construct && isStdNamed(Construct->getType(), {"tuple"}) &&
        !Construct->getConstructor()->isCopyOrMoveConstructor() &&
        Step.Index < Construct->getNumArgs())
      return selectPart(Construct->getArg(Step.Index), Rest, Out, Depth + 1);
    if (Call && (isStdCall(*Call, "make_tuple") || isStdCall(*Call, "tie")) &&
        Step.Index < Call->getNumArgs())
      return selectPart(Call->getArg(Step.Index), Rest, Out, Depth + 1);
    return false;
  }
  case AccessStep::Element: {
    const bool Map = isMap(E->getType());
    // Each element of a braced list; a map's entries are {key, value}.
    auto Elements = [&](const InitListExpr &L) {
      for (const Expr *Element : L.inits()) {
        const Expr *V = Element;
        if (Map) {
          const Expr *Entry = unwrap(Element);
          if (const auto *C = dyn_cast<CXXConstructExpr>(Entry);
              C && C->getNumArgs() == 2)
            V = C->getArg(1);
          else if (const auto *EL = dyn_cast<InitListExpr>(Entry);
                   EL && EL->getNumInits() == 2)
            V = EL->getInit(1);
          else
            return false;
        }
        if (!selectPart(V, Rest, Out, Depth + 1))
          return false;
      }
      return true;
    };
    if (Construct) {
      if (Construct->getConstructor()->isCopyOrMoveConstructor())
        return false;
      const Expr *First = unwrap(Construct->getArg(0));
      if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(First)) {
        const auto *Array = dyn_cast<InitListExpr>(unwrap(IL->getSubExpr()));
        return Array && onlyFirstWritten(*Construct) && Elements(*Array);
      }
      // `std::vector<torch::Tensor> v(n)`: n empty tensors.
      if (First->getType()->isIntegerType() && onlyFirstWritten(*Construct))
        return true;
      return false;
    }
    if (List) {
      // A built-in array, or std::array (one array member).
      if (List->getType()->isArrayType())
        return !List->hasArrayFiller() && Elements(*List);
      if (isStdNamed(List->getType(), {"array"}) && List->getNumInits() == 1)
        if (const auto *Inner = dyn_cast<InitListExpr>(unwrap(List->getInit(0))))
          return !Inner->hasArrayFiller() && Elements(*Inner);
      return false;
    }
    return false;
  }
  }
  return false;
}

/// \p A and \p B share a root and may overlap.
bool related(const AccessPath &A, const AccessPath &B) {
  return A.Root == B.Root && A.RootIsThis == B.RootIsThis && mayAlias(A, B);
}

/// A parameter through which a callee may change its argument.
bool mayWriteThrough(QualType Param) {
  if (Param.isNull())
    return true;
  if (Param->isPointerType())
    return !Param->getPointeeType().isConstQualified();
  if (Param->isLValueReferenceType())
    return !Param.getNonReferenceType().isConstQualified();
  return Param->isRValueReferenceType();
}

/// Methods of a standard container that read or remove elements, or store
/// none: a union of stored values stays true after them.
bool keepsStoredValues(StringRef Name) {
  return llvm::is_contained(
      {"at", "front", "back", "begin", "end", "cbegin", "cend", "rbegin",
       "rend", "find", "count", "contains", "size", "empty", "clear",
       "reserve", "pop_back", "pop_front", "erase", "shrink_to_fit",
       "capacity", "max_size"},
      Name);
}

class Collector {
public:
  Collector(const AccessPath &Path, PathValues &Out, bool WithFills)
      : Path(Path), Out(Out), WithFills(WithFills) {}

  bool Known = true;

  void inspect(const Stmt &S) {
    if (!Known)
      return;
    if (const auto *For = dyn_cast<CXXForRangeStmt>(&S)) {
      // `for (auto &t : v)` may write every element.
      const VarDecl *Loop = For->getLoopVariable();
      if (Loop && mayWriteThrough(Loop->getType()) &&
          Loop->getType()->isReferenceType() && touches(For->getRangeInit()))
        Known = false;
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
      for (const Decl *D : DS->decls())
        if (const auto *Decomp = dyn_cast<DecompositionDecl>(D))
          if (Decomp->getType()->isReferenceType() && touches(Decomp->getInit()))
            Known = false;
      return;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(&S)) {
      if (BO->isAssignmentOp())
        assignment(*BO->getLHS(), *BO->getRHS(), BO->isCompoundAssignmentOp(),
                   *BO);
      return;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(&S)) {
      if ((UO->getOpcode() == UO_AddrOf || UO->isIncrementDecrementOp()) &&
          touches(UO->getSubExpr()))
        Known = false;
      return;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S)) {
      if (Op->isAssignmentOp() && Op->getNumArgs() == 2) {
        assignment(*Op->getArg(0), *Op->getArg(1),
                   Op->getOperator() != OO_Equal, *Op);
        return;
      }
      if (Op->getOperator() == OO_Amp && Op->getNumArgs() == 1 &&
          touches(Op->getArg(0))) {
        Known = false;
        return;
      }
    }
    if (const auto *Call = dyn_cast<CallExpr>(&S))
      call(*Call);
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(&S))
      arguments(Construct->getConstructor(), Construct->arguments(), 0);
  }

private:
  const AccessPath &Path;
  PathValues &Out;
  const bool WithFills;

  std::optional<AccessPath> related(const Expr *E) const {
    if (!E)
      return std::nullopt;
    std::optional<AccessPath> P = accessPathOf(*E);
    if (P && torch::related(*P, Path))
      return P;
    return std::nullopt;
  }
  bool touches(const Expr *E) const { return related(E).has_value(); }

  void assignment(const Expr &LHS, const Expr &RHS, bool Compound,
                  const Expr &Whole) {
    std::optional<AccessPath> Target = related(&LHS);
    if (!Target)
      return;
    // `v[0] /= v[0].sum()`: the location's new value is the whole expression
    // (read as `v[0] / v[0].sum()` by the analyses, as for a variable).
    if (Compound) {
      if (Target->Steps.size() == Path.Steps.size())
        Out.Values.push_back(&Whole);
      else
        Known = false;
      return;
    }
    if (Target->Steps.size() > Path.Steps.size() ||
        !selectPart(&RHS,
                    llvm::ArrayRef(Path.Steps).drop_front(Target->Steps.size()),
                    Out.Values))
      Known = false;
  }

  void arguments(const FunctionDecl *Callee,
                 llvm::iterator_range<CallExpr::const_arg_iterator> Args,
                 unsigned ParamShift) {
    unsigned I = 0;
    for (const Expr *Arg : Args) {
      const unsigned Index = I++;
      if (!touches(Arg))
        continue;
      const ParmVarDecl *Param =
          Callee && Index >= ParamShift &&
                  Index - ParamShift < Callee->getNumParams()
              ? Callee->getParamDecl(Index - ParamShift)
              : nullptr;
      // Unknown callee or a variadic argument: only a copy is safe.
      QualType T = Param ? Param->getType() : QualType();
      if (T.isNull() ? !Arg->isPRValue() : mayWriteThrough(T)) {
        Known = false;
        return;
      }
    }
  }

  void call(const CallExpr &Call) {
    const FunctionDecl *Callee = Call.getDirectCallee();
    // std::get<I>(t) names an element (its own access path): a write through
    // it is an assignment, seen as such.
    if (isStdCall(Call, "get"))
      return;
    // torch::load(loc, path[, device]) fills the location itself: the call is
    // its value. A part of it or an enclosing object filled stays unknown.
    if (WithFills && Call.getNumArgs() >= 2 && loadCallDevice(Call) &&
        !isa<CXXMemberCallExpr>(Call)) {
      if (std::optional<AccessPath> Target = related(Call.getArg(0))) {
        if (Target->Steps.size() != Path.Steps.size()) {
          Known = false;
          return;
        }
        Out.Values.push_back(&Call);
        return;
      }
    }
    unsigned Shift = 0;
    const Expr *Object = nullptr;
    const CXXMethodDecl *Method = nullptr;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
      Object = Member->getImplicitObjectArgument();
      Method = Member->getMethodDecl();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
      Method = dyn_cast_or_null<CXXMethodDecl>(Callee);
      if (Method && Op->getNumArgs() > 0) {
        Object = Op->getArg(0);
        Shift = 1;
      }
    }
    if (Object)
      if (std::optional<AccessPath> On = related(Object))
        objectCall(*On, Call, *Method, Shift);
    if (!Known)
      return;
    // A module's forward or a loss reads its inputs, also where a template
    // leaves the callee unresolved (`model->forward(s.image)`).
    if (!Callee && (isModuleForwardCall(Call) || isLossCall(Call)))
      return;
    // A holder's `model(x)` forwards its arguments (a forwarding reference)
    // to a forward that takes them by value or const reference.
    if (Callee && isModuleForwardCall(Call))
      if (const CXXMethodDecl *Forward = forwardMethodOf(Call);
          Forward && llvm::none_of(Forward->parameters(),
                                   [](const ParmVarDecl *P) {
                                     return mayWriteThrough(P->getType());
                                   }))
        return;
    llvm::iterator_range<CallExpr::const_arg_iterator> Args(
        Call.arg_begin() + Shift, Call.arg_end());
    arguments(Callee, Args, 0);
  }

  /// A method called on the location, a part of it or an enclosing object.
  void objectCall(const AccessPath &On, const CallExpr &Call,
                  const CXXMethodDecl &Method, unsigned Shift) {
    const StringRef Name =
        Method.getIdentifier() ? Method.getName() : StringRef();
    if (On.Steps.size() >= Path.Steps.size()) {
      // On the tensor itself: LibTorch's in-place operations end in `_`
      // (and are const methods of at::Tensor).
      if (Name.ends_with("_") || (!Method.isConst() && !Name.empty() &&
                                  !keepsStoredValues(Name)))
        Known = false;
      return;
    }
    if (isa<CXXOperatorCallExpr>(Call)) {
      // `v[i]` of an enclosing container: an element access (a write
      // through it is an assignment, seen as such).
      if (cast<CXXOperatorCallExpr>(Call).getOperator() != OO_Subscript &&
          !Method.isConst())
        Known = false;
      return;
    }
    if (Method.isConst() || keepsStoredValues(Name))
      return;
    // Insertions into the container that holds the location.
    const bool Holds = Path.Steps[On.Steps.size()].K == AccessStep::Element;
    const auto Rest = llvm::ArrayRef(Path.Steps).drop_front(On.Steps.size() + 1);
    const unsigned Args = Call.getNumArgs() - Shift;
    auto Arg = [&](unsigned I) { return Call.getArg(I + Shift); };
    if (Holds && Args == 1 &&
        llvm::is_contained({"push_back", "emplace_back", "push_front",
                            "emplace_front"},
                           Name)) {
      if (!selectPart(Arg(0), Rest, Out.Values))
        Known = false;
      return;
    }
    const bool Map = isMap(Method.getThisType()->getPointeeType());
    if (Holds && Map && Name == "emplace" && Args == 2) {
      if (!selectPart(Arg(1), Rest, Out.Values))
        Known = false;
      return;
    }
    if (Holds && Map && Name == "insert" && Args == 1) {
      const Expr *Entry = unwrap(Arg(0));
      const Expr *Value = nullptr;
      if (const auto *C = dyn_cast<CXXConstructExpr>(Entry);
          C && C->getNumArgs() == 2)
        Value = C->getArg(1);
      else if (const auto *L = dyn_cast<InitListExpr>(Entry);
               L && L->getNumInits() == 2)
        Value = L->getInit(1);
      if (!Value || !selectPart(Value, Rest, Out.Values))
        Known = false;
      return;
    }
    if (Holds && !Map && (Name == "insert" || Name == "emplace") && Args == 2) {
      if (!selectPart(Arg(1), Rest, Out.Values))
        Known = false;
      return;
    }
    Known = false;
  }
};

} // namespace

std::optional<PathValues> valuesOfPath(const Expr &E, bool WithFills) {
  std::optional<AccessPath> Path = accessPathOf(E);
  if (!Path)
    return std::nullopt;
  return valuesOfLocation(*Path, WithFills);
}

std::optional<PathValues> valuesOfElements(const VarDecl &Container,
                                           bool WithFills) {
  AccessPath Path;
  Path.Root = &Container;
  AccessStep Element;
  Element.K = AccessStep::Element;
  Path.Steps.push_back(Element);
  return valuesOfLocation(Path, WithFills);
}

std::optional<PathValues> valuesOfLocation(const AccessPath &Location,
                                           bool WithFills) {
  const AccessPath *Path = &Location;
  if (!Path->Root || Path->RootIsThis || Path->Steps.empty())
    return std::nullopt;
  const VarDecl *Root = Path->Root;
  if (!Root->hasLocalStorage() || isa<ParmVarDecl>(Root) ||
      Root->getType()->isReferenceType() || Root->getType()->isDependentType() ||
      Root->isCXXForRangeDecl())
    return std::nullopt;
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(Root->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return std::nullopt;
  PathValues Result;
  Result.Path = *Path;
  if (const Expr *Init = Root->getInit();
      Init && !selectPart(Init, Path->Steps, Result.Values))
    return std::nullopt;
  Collector C(*Path, Result, WithFills);
  forEachStmt(Fn->getBody(), [&](const Stmt &S) { C.inspect(S); });
  if (!C.Known)
    return std::nullopt;
  return Result;
}

} // namespace clang::tidy::torch
