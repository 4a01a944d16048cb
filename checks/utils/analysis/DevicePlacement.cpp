//===--- DevicePlacement.cpp - where tensors and modules live -------------===//

#include "utils/analysis/DevicePlacement.h"
#include "utils/analysis/PathValues.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxDepth = 12;

/// \p E names \p VD itself (through parentheses, implicit casts and
/// std::move-like temporaries), or a local reference bound to it.
bool names(const Expr *E, const VarDecl &VD) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  return Ref && DevicePlacement::aliasTarget(Ref->getDecl()) == &VD;
}

/// The local reference variable \p VD binds to a name (`auto &x_ref = x;`).
const VarDecl *boundName(const VarDecl &VD) {
  if (!VD.getType()->isLValueReferenceType() || !VD.hasLocalStorage() ||
      isa<ParmVarDecl>(VD) || !VD.getInit())
    return nullptr;
  const auto *Ref = dyn_cast<DeclRefExpr>(VD.getInit()->IgnoreParenImpCasts());
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// The field of \p VD that \p E names (`batch.data`), or null.
const ValueDecl *namedField(const Expr *E, const VarDecl &VD) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  const auto *Member = dyn_cast_or_null<MemberExpr>(E);
  if (!Member || !names(Member->getBase(), VD))
    return nullptr;
  return Member->getMemberDecl();
}

/// True if a parameter of type \p T lets the callee change its argument.
bool bindsMutably(QualType T) {
  return (T->isLValueReferenceType() &&
          !T.getNonReferenceType().isConstQualified()) ||
         T->isRValueReferenceType();
}

/// The record behind an expression's type, through references and pointers.
const CXXRecordDecl *recordOfExpr(const Expr *E) {
  QualType T = E->getType().getNonReferenceType();
  if (const auto *P = T->getAs<PointerType>())
    T = P->getPointeeType();
  return T->getAsCXXRecordDecl();
}

/// Collects a local variable's definitions over its function's body (lambda
/// bodies included).
class DefinitionCollector {
public:
  DefinitionCollector(const VarDecl &VD, DevicePlacement::Definitions &Out,
                      DevicePlacement &Placement)
      : VD(VD), Out(Out), Placement(Placement) {}

  void collect(const Stmt *Body) {
    forEachStmt(Body, [&](const Stmt &S) {
      if (Out.Known)
        inspect(S);
    });
  }

private:
  /// How a statement changes what it writes into.
  enum class Change { Assign, KeepsDevice, Unknown };

  /// A write into \p Target: the variable itself, or one of its fields.
  void write(const Expr *Target, Change How, const Expr *Value = nullptr) {
    if (names(Target, VD)) {
      if (How == Change::Assign && Value)
        Out.Values.push_back(Value);
      else if (How == Change::Unknown || !IsTensor)
        Out.Known = false;
    } else if (const ValueDecl *Field = namedField(Target, VD)) {
      Out.WrittenFields.insert(Field);
    }
  }

  bool mentions(const Expr *E) const {
    return names(E, VD) || namedField(E, VD);
  }

  void inspect(const Stmt &S) {
    if (const auto *For = dyn_cast<CXXForRangeStmt>(&S)) {
      if (For->getLoopVariable() == &VD)
        Out.LoopRange = For->getRangeInit();
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
      for (const Decl *D : DS->decls())
        if (const auto *Other = dyn_cast<VarDecl>(D))
          if (Other != &VD && bindsMutably(Other->getType()) &&
              Other->getInit() && mentions(Other->getInit()) &&
              DevicePlacement::aliasTarget(Other) != &VD)
            write(Other->getInit(), Change::Unknown); // A mutable alias.
      return;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(&S)) {
      if (BO->isAssignmentOp())
        write(BO->getLHS(),
              BO->getOpcode() == BO_Assign ? Change::Assign : Change::Unknown,
              BO->getRHS());
      return;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(&S)) {
      if (UO->getOpcode() == UO_AddrOf || UO->isIncrementDecrementOp())
        write(UO->getSubExpr(), Change::Unknown);
      return;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S)) {
      if (Op->isAssignmentOp() && Op->getNumArgs() == 2) {
        // A compound assignment on a tensor (`x += y`) keeps its device.
        write(Op->getArg(0),
              Op->getOperator() == OO_Equal ? Change::Assign
                                            : Change::KeepsDevice,
              Op->getArg(1));
        return;
      }
      if (Op->getOperator() == OO_Amp && Op->getNumArgs() == 1) {
        write(Op->getArg(0), Change::Unknown);
        return;
      }
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&S)) {
      const Expr *Object = Member->getImplicitObjectArgument();
      const CXXMethodDecl *M = Member->getMethodDecl();
      if (Object && mentions(Object)) {
        if (isTensorType(Object->getType())) {
          // Tensor methods keep the tensor's device, except set_ (another
          // tensor's storage).
          if (!M || !M->getIdentifier() || M->getName() == "set_")
            write(Object, Change::Unknown);
        } else if (!M || !M->isConst()) {
          write(Object, Change::Unknown);
        }
      }
    }
    if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      inspectArguments(*Call);
      return;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(&S)) {
      const CXXConstructorDecl *Ctor = Construct->getConstructor();
      // A standard library object (std::pair, std::tuple, a container)
      // copies or moves what it is built from: its forwarding references do
      // not put the argument on another device (std::reference_wrapper
      // keeps a reference: written through later).
      if (Ctor && Ctor->getParent()->isInStdNamespace() &&
          !(Ctor->getParent()->getIdentifier() &&
            Ctor->getParent()->getName() == "reference_wrapper"))
        return;
      for (unsigned I = 0; I < Construct->getNumArgs(); ++I)
        if (mentions(Construct->getArg(I)) &&
            (!Ctor || I >= Ctor->getNumParams() ||
             bindsMutably(Ctor->getParamDecl(I)->getType())))
          write(Construct->getArg(I), Change::Unknown);
    }
  }

  void inspectArguments(const CallExpr &Call) {
    const FunctionDecl *FD = Call.getDirectCallee();
    const bool MemberOperator =
        isa<CXXOperatorCallExpr>(Call) && isa_and_nonnull<CXXMethodDecl>(FD);
    if (isa<CXXOperatorCallExpr>(Call) &&
        cast<CXXOperatorCallExpr>(Call).isAssignmentOp())
      return;
    for (unsigned I = MemberOperator ? 1 : 0; I < Call.getNumArgs(); ++I) {
      const Expr *Arg = Call.getArg(I);
      const bool Field = namedField(Arg, VD) != nullptr;
      if (!mentions(Arg))
        continue;
      // torch::load(x, path) fills x: a definition.
      if (I == 0 && !Field && loadCallDevice(Call)) {
        Out.Loads.push_back(&Call);
        continue;
      }
      // A module's forward, a loss, LibTorch's own functions and tensor
      // methods do not move their arguments (their forwarding references
      // included).
      if (isModuleForwardCall(Call) || isLossCall(Call) ||
          (FD && isLibTorchFunction(FD)) || asLibTorchCall(&Call))
        continue;
      const unsigned Param = MemberOperator ? I - 1 : I;
      // An unresolved callee may take it by reference; a function of the
      // user's that never assigns the parameter (in-place tensor methods keep
      // the device) leaves it where it was.
      if (!FD || (Param < FD->getNumParams() &&
                  bindsMutably(FD->getParamDecl(Param)->getType()) &&
                  !keepsDevice(*FD, Param)))
        write(Arg, Change::Unknown);
    }
  }

  /// True if \p FD's definition, in the user's code, leaves its tensor
  /// parameter \p Param on its device: it neither assigns it nor hands it on
  /// to what may.
  bool keepsDevice(const FunctionDecl &FD, unsigned Param) {
    if (!IsTensor)
      return false;
    const FunctionDecl *Def = FD.getDefinition();
    if (!Def || !Def->getBody() || Param >= Def->getNumParams() ||
        Def->isTemplated())
      return false;
    const ParmVarDecl *P = Def->getParamDecl(Param);
    if (!isTensorType(P->getType()))
      return false;
    const DevicePlacement::Definitions &D = Placement.definitionsOf(*P);
    return D.Known && D.Param && D.Values.empty() && D.Loads.empty();
  }

  const VarDecl &VD;
  DevicePlacement::Definitions &Out;
  DevicePlacement &Placement;
  const bool IsTensor = isTensorType(VD.getType());
};

/// The written options, device or tensor argument of a factory or `to`
/// call, classified by its type as written.
enum class ArgKind { Other, Device, Options, Tensor, Dependent };

ArgKind kindOf(const Expr *Arg) {
  const Expr *Written = Arg->IgnoreUnlessSpelledInSource();
  if (Written->isTypeDependent())
    return ArgKind::Dependent;
  QualType T = Written->getType();
  if (isDeviceType(T))
    return ArgKind::Device;
  if (isTensorOptionsType(T))
    return ArgKind::Options;
  if (isTensorType(T))
    return ArgKind::Tensor;
  return ArgKind::Other;
}

/// The tensors among a call's operands as written, init lists flattened
/// (`torch::cat({a, b})`).
void collectTensors(const Expr *E, llvm::SmallVectorImpl<const Expr *> &Out,
                    bool &Dependent) {
  E = E->IgnoreUnlessSpelledInSource();
  if (const auto *Init = dyn_cast<InitListExpr>(E)) {
    for (const Expr *Element : Init->inits())
      collectTensors(Element, Out, Dependent);
    return;
  }
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E)) {
    collectTensors(List->getSubExpr(), Out, Dependent);
    return;
  }
  if (E->isTypeDependent())
    Dependent = true;
  else if (isTensorType(E->getType()) || isTensorListType(E->getType()))
    Out.push_back(E); // A list taken whole: placement() reads its elements.
}

/// True if \p D is declared in namespace at, c10 or torch (or one nested in
/// them).
bool inLibTorchNamespace(const Decl *D) {
  const NamespaceDecl *Top = nullptr;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Top = NS;
  return Top && (Top->getName() == "at" || Top->getName() == "c10" ||
                 Top->getName() == "torch");
}

} // namespace

const ValueDecl *DevicePlacement::aliasTarget(const ValueDecl *D) {
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    const auto *VD = dyn_cast_or_null<VarDecl>(D);
    const VarDecl *Target = VD ? boundName(*VD) : nullptr;
    if (!Target)
      return D;
    D = Target;
  }
  return D;
}

const DevicePlacement::Definitions &
DevicePlacement::definitionsOf(const VarDecl &VD) {
  auto It = Defs.find(&VD);
  if (It != Defs.end())
    return *It->second;
  auto Result = std::make_unique<Definitions>();
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD.getParentFunctionOrMethod());
  const bool Param = isa<ParmVarDecl>(VD);
  // The function whose body holds the variable: a lambda's variables live in
  // the body of the function that contains the lambda too.
  if (Fn && Fn->getBody() && VD.hasLocalStorage() &&
      !(Param && Collecting.contains(&VD))) {
    Result->Known = true;
    Result->Param = Param;
    const Expr *Init = Param ? nullptr : VD.getInit();
    if (Init && !VD.isCXXForRangeDecl()) {
      const auto *Construct =
          dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit());
      // `torch::Tensor x;` holds no tensor yet.
      if (!Construct || Construct->getNumArgs() != 0)
        Result->Values.push_back(Init);
    }
    // A parameter's function may be called, directly or not, from its own
    // body: while collecting, its parameters are unknown.
    if (Param)
      Collecting.insert(&VD);
    DefinitionCollector(VD, *Result, *this).collect(Fn->getBody());
    if (Param)
      Collecting.erase(&VD);
  }
  return *(Defs[&VD] = std::move(Result));
}

const Expr *DevicePlacement::cpuOrigin(const Expr *E) {
  Visiting.clear();
  Placement P = placement(E, 0);
  return P.Cpu ? P.Origin : nullptr;
}

const Expr *DevicePlacement::cpuOriginAtCall(const Expr *E,
                                             llvm::ArrayRef<ParamFact> Given,
                                             const ParmVarDecl *&UsedParam) {
  Visiting.clear();
  Facts.clear();
  UsedFact = nullptr;
  for (const ParamFact &F : Given)
    Facts[F.Param] = F.Origin;
  Placement P = placement(E, 0);
  Facts.clear();
  UsedParam = P.Cpu ? UsedFact : nullptr;
  UsedFact = nullptr;
  return P.Cpu ? P.Origin : nullptr;
}

bool DevicePlacement::movesModule(const ValueDecl &Module,
                                  const FunctionDecl &Fn) {
  bool Moves = false;
  forEachStmt(Fn.getBody(), [&](const Stmt &S) {
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (!Call || Moves)
      return;
    if (moduleMoveDevice(*Call) &&
        aliasTarget(moduleObjectEntity(callObject(*Call))) == &Module)
      Moves = true;
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
             Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
             aliasTarget(namedEntity(*Op->getArg(0))) == &Module)
      Moves = true;
  });
  return Moves;
}

DevicePlacement::Placement DevicePlacement::placement(const Expr *E,
                                                      unsigned Depth) {
  E = E ? stripImplicit(E) : nullptr;
  if (!E || Depth > MaxDepth || E->isTypeDependent())
    return {};
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(aliasTarget(Ref->getDecl()));
    if (VD && isTensorType(VD->getType()))
      return variablePlacement(*VD, Depth);
    // A local list of tensors taken whole (`torch::stack(tensors)`,
    // `torch::cat(parts)`): every element stored in it.
    if (VD && isTensorListType(VD->getType()))
      if (std::optional<PathValues> Stored =
              valuesOfElements(*VD, /*WithFills=*/true))
        return allOnCpu(Stored->Values, Depth, /*SkipUndefined=*/true);
    return {};
  }
  if (isLoaderBatchField(E))
    return {true, E};
  // A field or element of a local (`box.f`, `inputs[0]`, `std::get<1>(t)`):
  // as a variable, through every value stored there (PathValues.h).
  if (!isa<DeclRefExpr>(E))
    if (std::optional<PathValues> Stored =
            valuesOfPath(*E, /*WithFills=*/true))
      return allOnCpu(Stored->Values, Depth, /*SkipUndefined=*/true);
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E)) {
    Placement T = placement(Cond->getTrueExpr(), Depth + 1);
    Placement F = placement(Cond->getFalseExpr(), Depth + 1);
    if (!T.Cpu || !F.Cpu)
      return {};
    return {true, T.Origin ? T.Origin : F.Origin};
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    // Arithmetic, comparison and indexing on tensors keep their device.
    if (Op->isAssignmentOp() || Op->getOperator() == OO_Call ||
        !isTensorType(Op->getType()))
      return {};
    llvm::SmallVector<const Expr *, 2> Operands;
    for (const Expr *Arg : Op->arguments())
      if (isTensorType(Arg->getType()))
        Operands.push_back(Arg);
    return allOnCpu(Operands, Depth);
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // torch::load(loc, path) as the value of the location it fills
    // (PathValues.h): where the tensor was saved from, the CPU, unless a
    // device says otherwise.
    if (Call->getType()->isVoidType()) {
      std::optional<const Expr *> Device = loadCallDevice(*Call);
      if (!Device || (*Device && !cpuDevice(*Device, Depth + 1)))
        return {};
      return {true, Call};
    }
    return callPlacement(*Call, E, Depth);
  }
  return {};
}

DevicePlacement::Placement
DevicePlacement::variablePlacement(const VarDecl &VD, unsigned Depth) {
  if (Visiting.contains(&VD))
    return {true, nullptr}; // `x = x.view(...)`: as x's other definitions.
  const Definitions &D = definitionsOf(VD);
  Placement Result{true, nullptr};
  if (D.Known && D.Param) {
    // On entry, what the caller handed over: known only at a call.
    const auto *Param = cast<ParmVarDecl>(&VD);
    auto Fact = Facts.find(Param);
    if (Fact == Facts.end() || !Fact->second)
      return {};
    Result.Origin = Fact->second;
    UsedFact = Param;
  } else if (D.Known && D.Values.empty() && D.Loads.empty() && D.LoopRange) {
    // `for (const auto &x : tensors)` over a local list: its elements.
    const auto *Ref =
        dyn_cast<DeclRefExpr>(D.LoopRange->IgnoreParenImpCasts());
    const auto *List = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    std::optional<PathValues> Stored =
        List && isTensorListType(List->getType()) ? valuesOfElements(*List)
                                                  : std::nullopt;
    if (!Stored || Visiting.contains(&VD))
      return {};
    Visiting.insert(&VD);
    Placement P = allOnCpu(Stored->Values, Depth);
    Visiting.erase(&VD);
    return P;
  } else if (!D.Known || (D.Values.empty() && D.Loads.empty())) {
    return {};
  }
  Visiting.insert(&VD);
  for (const Expr *Value : D.Values) {
    Placement P = placement(Value, Depth + 1);
    if (!P.Cpu) {
      Result = {};
      break;
    }
    if (!Result.Origin)
      Result.Origin = P.Origin;
  }
  for (const CallExpr *Load : D.Loads) {
    if (!Result.Cpu)
      break;
    // torch::load(x, path) restores x where it was saved from: a tensor
    // saved from the CPU unless a device says otherwise.
    const Expr *Device = *loadCallDevice(*Load);
    if (Device && !cpuDevice(Device, Depth + 1))
      Result = {};
    else if (!Result.Origin)
      Result.Origin = Load;
  }
  Visiting.erase(&VD);
  return Result;
}

/// True if \p E is a default-constructed (undefined) tensor: `torch::Tensor()`,
/// `torch::Tensor{}`, `{}`.
static bool isUndefinedTensor(const Expr *E) {
  E = E ? E->IgnoreImplicit() : nullptr;
  if (const auto *List = dyn_cast_or_null<InitListExpr>(E))
    return List->getNumInits() == 0 && isTensorType(List->getType());
  const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E);
  return Construct && Construct->getNumArgs() == 0 &&
         isTensorType(Construct->getType());
}

DevicePlacement::Placement
DevicePlacement::allOnCpu(llvm::ArrayRef<const Expr *> Operands,
                          unsigned Depth, bool SkipUndefined) {
  if (Operands.empty())
    return {};
  Placement Result{true, nullptr};
  for (const Expr *Operand : Operands) {
    // An undefined tensor stored before the real value (`Box b{Tensor()};`
    // then `torch::load(b.f, path)`) is on no device: it does not decide.
    if (SkipUndefined && isUndefinedTensor(Operand))
      continue;
    Placement P = placement(Operand, Depth + 1);
    if (!P.Cpu)
      return {};
    if (!Result.Origin)
      Result.Origin = P.Origin;
  }
  return Result;
}

DevicePlacement::Placement
DevicePlacement::callPlacement(const CallExpr &Call, const Expr *E,
                               unsigned Depth) {
  std::optional<LibTorchCall> C = asLibTorchCall(&Call);
  // A method called through an object of dependent type is only a name.
  if (!C || isa_and_nonnull<CXXDependentScopeMemberExpr>(C->Member))
    return {};
  if (C->is(op::ToCpu))
    return {true, E};
  llvm::SmallVector<const Expr *, 2> Tensors;
  bool Dependent = false;
  const Expr *OptionsArg = nullptr;
  for (const Expr *Arg : C->Args) {
    switch (kindOf(Arg)) {
    case ArgKind::Dependent:
      return {};
    case ArgKind::Device:
    case ArgKind::Options:
      OptionsArg = Arg;
      break;
    default:
      collectTensors(Arg, Tensors, Dependent);
    }
  }
  if (Dependent)
    return {};
  if (C->is(op::ToDevice)) {
    // `x.to(device)`, `x.to(opts)`, `x.to(other)`, `x.cuda()`, `x.to(dtype)`.
    if (OptionsArg) {
      switch (optionsPlacement(OptionsArg, Depth + 1)) {
      case Options::Cpu:
        return {true, E};
      case Options::Unknown:
        return {};
      case Options::NoDevice:
        break;
      }
    } else if (!Tensors.empty()) {
      return placement(Tensors.front(), Depth + 1);
    } else if (C->Args.empty()) {
      return {}; // cuda()
    }
    return C->Object ? placement(C->Object, Depth + 1) : Placement{};
  }
  if (C->is(op::Fresh | op::FromValues)) {
    Options O = OptionsArg ? optionsPlacement(OptionsArg, Depth + 1)
                           : Options::NoDevice;
    if (O == Options::Unknown)
      return {};
    if (O == Options::NoDevice && C->is(op::SameDeviceAsOperand))
      return Tensors.empty() ? Placement{}
                             : placement(Tensors.front(), Depth + 1);
    return {true, E};
  }
  // Any other tensor operation computes on its operands' device; one that is
  // given a device or options of its own (new_zeros) is not known.
  if (OptionsArg || !isTensorType(Call.getType()))
    return {};
  if (C->Object)
    Tensors.insert(Tensors.begin(), C->Object);
  return allOnCpu(Tensors, Depth);
}

DevicePlacement::Options DevicePlacement::optionsPlacement(const Expr *E,
                                                           unsigned Depth) {
  E = E ? E->IgnoreUnlessSpelledInSource() : nullptr;
  if (!E || Depth > MaxDepth || E->isTypeDependent())
    return Options::Unknown;
  QualType T = E->getType();
  if (isDeviceType(T))
    return cpuDevice(E, Depth + 1) ? Options::Cpu : Options::Unknown;
  if (!isTensorOptionsType(T))
    // A dtype, layout or memory format converted to options: no device.
    return T->isEnumeralType() || T->isBuiltinType() ? Options::NoDevice
                                                     : Options::Unknown;
  auto Combine = [&](llvm::ArrayRef<const Expr *> Parts) {
    Options Result = Options::NoDevice;
    for (const Expr *Part : Parts) {
      Options O = optionsPlacement(Part, Depth + 1);
      if (O == Options::Unknown)
        return Options::Unknown;
      if (O == Options::Cpu)
        Result = Options::Cpu;
    }
    return Result;
  };
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    llvm::SmallVector<const Expr *, 2> Args;
    for (const Expr *Arg : Construct->arguments())
      if (!isa<CXXDefaultArgExpr>(Arg))
        Args.push_back(Arg);
    if (Construct->getConstructor() &&
        Construct->getConstructor()->isCopyOrMoveConstructor())
      return Args.empty() ? Options::Unknown
                          : optionsPlacement(Args.front(), Depth + 1);
    return Combine(Args);
  }
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    return optionsPlacement(Cast->getSubExpr(), Depth + 1);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (!VD || Visiting.contains(VD))
      return Options::Unknown;
    const Definitions &D = definitionsOf(*VD);
    if (!D.Known || D.Values.empty())
      return Options::Unknown;
    Visiting.insert(VD);
    Options Result = Combine(D.Values);
    Visiting.erase(VD);
    return Result;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Fn = Call ? Call->getDirectCallee() : nullptr;
  if (!Fn || !Fn->getIdentifier() || !inLibTorchNamespace(Fn))
    return Options::Unknown;
  // TensorOptions' builders: device(d) sets the device, device_index(i) a
  // CUDA index; dtype(...), requires_grad(...), layout(...) keep it.
  StringRef Name = Fn->getName();
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  if (Name == "device")
    return Call->getNumArgs() > 0 && cpuDevice(Call->getArg(0), Depth + 1)
               ? Options::Cpu
               : Options::Unknown;
  if (Name == "device_index")
    return Options::Unknown;
  if (Member)
    return optionsPlacement(Member->getImplicitObjectArgument(), Depth + 1);
  return Options::NoDevice;
}

bool DevicePlacement::isCpuDevice(const Expr *Device) {
  Visiting.clear();
  return cpuDevice(Device, 0);
}

bool DevicePlacement::cpuDevice(const Expr *E, unsigned Depth) {
  E = E ? E->IgnoreUnlessSpelledInSource() : nullptr;
  if (!E || Depth > MaxDepth || E->isTypeDependent())
    return false;
  switch (deviceConstantOf(E)) {
  case DeviceConstant::Cpu:
    return true;
  case DeviceConstant::Other:
    return false;
  case DeviceConstant::NotConstant:
    break;
  }
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E))
    return cpuDevice(Cond->getTrueExpr(), Depth + 1) &&
           cpuDevice(Cond->getFalseExpr(), Depth + 1);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() > 0 &&
           cpuDevice(Construct->getArg(0), Depth + 1);
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    return cpuDevice(Cast->getSubExpr(), Depth + 1);
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || Visiting.contains(VD))
    return false;
  const Definitions &D = definitionsOf(*VD);
  if (!D.Known || D.Values.empty())
    return false;
  Visiting.insert(VD);
  const bool AllCpu = llvm::all_of(
      D.Values, [&](const Expr *V) { return cpuDevice(V, Depth + 1); });
  Visiting.erase(VD);
  return AllCpu;
}

bool DevicePlacement::isLoaderBatchField(const Expr *E) {
  const auto *Member = dyn_cast<MemberExpr>(E);
  if (!Member || Member->isArrow())
    return false;
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (!Field ||
      !isDataExampleClass(dyn_cast<CXXRecordDecl>(Field->getParent())) ||
      !isTensorType(Field->getType()))
    return false;
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Member->getBase()->IgnoreParenImpCasts());
  const auto *Batch = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Batch)
    return false;
  const Definitions &D = definitionsOf(*Batch);
  if (D.WrittenFields.contains(Field))
    return false;
  const Expr *Range = nullptr;
  if (D.Known && D.Values.empty() && D.LoopRange)
    Range = D.LoopRange->IgnoreParenImpCasts();
  else
    Range = iteratedRange(*Batch); // `auto &batch = *it;`
  if (!Range || Range->isTypeDependent())
    return false;
  return isDataLoaderClass(recordOfExpr(Range));
}

const Expr *DevicePlacement::iteratedRange(const VarDecl &Element) {
  // The element an iterator loop reads: `auto &batch = *it;` where `it` was
  // initialised from `range.begin()` (`range` a local bound to `*loader`,
  // or `*loader` / `loader->` itself), and the element variable is not
  // assigned anything else.
  const Expr *Init = Element.getInit() ? stripImplicit(Element.getInit())
                                       : nullptr;
  if (!Init)
    return nullptr;
  const Definitions &D = definitionsOf(Element);
  if (D.Values.size() > 1 || !D.Loads.empty() || D.LoopRange)
    return nullptr;
  const Expr *Iterator = nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Init);
      Op && Op->getOperator() == OO_Star && Op->getNumArgs() == 1)
    Iterator = Op->getArg(0);
  else if (const auto *UO = dyn_cast<UnaryOperator>(Init);
           UO && UO->getOpcode() == UO_Deref)
    Iterator = UO->getSubExpr();
  const auto *ItRef =
      Iterator ? dyn_cast<DeclRefExpr>(Iterator->IgnoreParenImpCasts())
               : nullptr;
  const auto *It = ItRef ? dyn_cast<VarDecl>(ItRef->getDecl()) : nullptr;
  if (!It || !It->hasLocalStorage() || !It->getInit())
    return nullptr;
  const auto *Begin =
      dyn_cast<CXXMemberCallExpr>(stripImplicit(It->getInit()));
  const CXXMethodDecl *M = Begin ? Begin->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || M->getName() != "begin")
    return nullptr;
  const Expr *Range = Begin->getImplicitObjectArgument()->IgnoreParenImpCasts();
  // `auto &&range = *loader;`
  if (const auto *RangeRef = dyn_cast<DeclRefExpr>(Range))
    if (const auto *RangeVar = dyn_cast<VarDecl>(RangeRef->getDecl());
        RangeVar && RangeVar->hasLocalStorage() &&
        RangeVar->getType()->isReferenceType() && RangeVar->getInit())
      Range = RangeVar->getInit()->IgnoreParenImpCasts();
  return Range;
}

std::optional<DevicePlacement::Move>
DevicePlacement::moduleDeviceAt(const ValueDecl &Module, const Stmt &Use,
                                const FunctionDecl &Fn) {
  const SourceManager &SM = Ctx.getSourceManager();
  const SourceLocation UseLoc = beginLoc(Use);
  std::optional<Move> Last;
  bool Reset = false; // Last made without a known device (jit::load(path)).
  auto Consider = [&](const Expr *Site, const Expr *Device, bool Ordered) {
    if (Ordered && !SM.isBeforeInTranslationUnit(endLoc(*Site), UseLoc))
      return;
    if (Last && Ordered &&
        SM.isBeforeInTranslationUnit(beginLoc(*Site), beginLoc(*Last->Site)))
      return;
    Last = Move{Site, Device};
    Reset = Device == nullptr;
  };
  auto Scan = [&](const Stmt *Body, bool Ordered) {
    forEachStmt(Body, [&](const Stmt &S) {
      if (const auto *Call = dyn_cast<CallExpr>(&S)) {
        if (const Expr *Device = moduleMoveDevice(*Call);
            Device &&
            aliasTarget(moduleObjectEntity(callObject(*Call))) == &Module)
          Consider(Call, Device, Ordered);
        return;
      }
      // `module = torch::jit::load(path, device)`.
      const Expr *Target = nullptr, *Value = nullptr;
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S);
          Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
        Target = Op->getArg(0);
        Value = Op->getArg(1);
      } else if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
        for (const Decl *D : DS->decls())
          if (D == &Module)
            Value = cast<VarDecl>(D)->getInit();
      }
      if (Target && aliasTarget(namedEntity(*Target)) != &Module)
        return;
      const auto *Load = dyn_cast_or_null<CallExpr>(
          Value ? stripImplicit(Value) : nullptr);
      if (std::optional<const Expr *> Device =
              Load ? loadCallDevice(*Load) : std::nullopt)
        Consider(Load, *Device, Ordered);
    });
  };
  Scan(Fn.getBody(), /*Ordered=*/true);
  // A member moved when its object was constructed.
  if (const auto *Field = dyn_cast<FieldDecl>(&Module); Field && !Last)
    for (const CXXConstructorDecl *Ctor :
         cast<CXXRecordDecl>(Field->getParent())->ctors()) {
      if (!Ctor->hasBody())
        continue;
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->getMember() == Field && Init->isWritten())
          if (const auto *Load = dyn_cast<CallExpr>(
                  stripImplicit(Init->getInit())))
            if (std::optional<const Expr *> Device = loadCallDevice(*Load))
              Consider(Load, *Device, /*Ordered=*/false);
      Scan(Ctor->getBody(), /*Ordered=*/false);
    }
  if (!Last || Reset || !Last->Device || isCpuDevice(Last->Device))
    return std::nullopt;
  return Last;
}

const CallExpr *DevicePlacement::forwardOrigin(const Expr *E) {
  for (unsigned Depth = 0; E && Depth <= MaxDepth; ++Depth) {
    E = stripImplicit(E);
    if (!E)
      return nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(aliasTarget(Ref->getDecl()));
      if (!VD)
        return nullptr;
      const Definitions &D = definitionsOf(*VD);
      if (!D.Known || D.Param || D.Values.size() != 1 || !D.Loads.empty())
        return nullptr;
      E = D.Values.front();
      continue;
    }
    // A field or element of a local holding one value (PathValues.h).
    if (!isa<CallExpr>(E) || isStdCall(*cast<CallExpr>(E), "get") ||
        isa<CXXOperatorCallExpr>(E)) {
      std::optional<PathValues> Stored = valuesOfPath(*E);
      if (Stored) {
        if (Stored->Values.size() != 1)
          return nullptr;
        E = Stored->Values.front();
        continue;
      }
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return nullptr;
    if (isModuleForwardCall(*Call))
      return isLossCall(*Call) ? nullptr : Call;
    if (isIValueToTensorCall(*Call)) {
      E = callObject(*Call);
      continue;
    }
    std::optional<LibTorchCall> C = asLibTorchCall(E);
    if (!C || C->is(op::ToDevice | op::ToCpu | op::Fresh | op::FromValues))
      return nullptr;
    E = operandOf(*C);
  }
  return nullptr;
}

} // namespace clang::tidy::torch
