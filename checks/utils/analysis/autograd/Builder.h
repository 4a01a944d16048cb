//===--- Builder.h - the builder of one AutogradFlow -----------*- C++ -*-===//
//
// Private to AutogradFlow (checks/utils/analysis/autograd/). The builder runs
// the dataflow over one function's CFG and fills its AutogradFlow. Its member
// functions are defined across the files of this directory, one concern each:
//
//   Driver.cpp        the CFG, the fixpoint (rounds, state joins), the
//                     reporting round, statement roots (declarations, returns)
//   Expressions.cpp   expressions and variable reads; what a value carries
//   Assignments.cpp   definition sites, assignments, element stores,
//                     container insertions, lifetimes (loop-carried values)
//   Calls.cpp         calls: operands, LibTorch operations, forwards, losses,
//                     value reads, tensors from values, user functions
//   Passes.cpp        backward passes: retention, freed graphs, second passes
//   SavedTensors.cpp  tensors saved for backward, in-place writes into them
//   MemberState.cpp   tensors an object keeps in members between calls
//   ObjectState.cpp   the caller's side: an object's state in the dataflow
//   Reaching.cpp      AutogradFlow::reachesBackwardPass (flow-insensitive)
//
// The facts it tracks are in Lattice.h.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_AUTOGRAD_BUILDER_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_AUTOGRAD_BUILDER_H

#include "utils/analysis/AccessPath.h"
#include "utils/analysis/AutogradFlow.h"
#include "utils/analysis/GradMode.h"
#include "utils/analysis/autograd/Lattice.h"
#include "utils/ast/BodyParents.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace clang::tidy::torch {

struct FunctionSummary;

namespace autograd {

// --- What a value carries (Expressions.cpp) ---------------------------------

/// Tensors, containers of tensors, the braced lists that build them, and a
/// TorchScript module's output (c10::IValue, unwrapped by toTensor()).
bool isTensorValued(QualType T);

/// Marks \p Sum, the sum of \p Terms, when one term is a tensor rebuilt from
/// read-out values (no history of its own) and another has history.
void markAddedTerm(Value &Sum, std::initializer_list<const Value *> Terms);

/// Whether multiplying a sum by \p Factor keeps its rebuilt term a constant
/// term (the factor has no history).
bool keepsAddedTerm(const Value &Scaled, const Value &Factor);

/// Keeps only what a value of type \p T can carry: tensor facts for tensors,
/// host taint for everything else. Dependent types keep both.
Value filterByType(Value V, QualType T);

/// The local variable an expression names, through implicit conversions and
/// single-element braced lists (`{loss}`).
const VarDecl *soleVariableOf(const Expr *E);

/// The variable an element store or an in-place write goes into, through
/// indexing and views: `buf[t + 1]`, `x[i][j]`, `hs[i]`, `h.select(0, t)`,
/// `out.narrow(0, 0, 2)`; null for anything else.
const VarDecl *storedTensorOf(const Expr *LHS);

/// The object of a member call: `t.f()`, and in a template `t.f(dependent)`
/// or `dependent.f()`; null for other calls (operator() included).
const Expr *memberCallObject(const CallExpr &Call);

/// The object a call runs a method of the user's class on, and that method
/// (ObjectState.cpp): `model->forward(x)`, `model(x)` on a holder (its Impl's
/// forward), `agent.act(obs)`, `model->reset_state()`.
std::pair<const Expr *, const CXXMethodDecl *>
objectMethodOf(const CallExpr &Call);

/// Lowers evidence of history to "possible": the value may carry history,
/// but nothing local shows it.
void capEvidence(Value &V);

/// A new tensor: not the tensor of any definition, saved by nobody.
void newTensor(Value &V);

// --- Backward passes (Passes.cpp) --------------------------------------------

/// The constant truth value of a retain_graph / create_graph argument:
/// nullopt when it is not a compile-time constant. An empty optional
/// (c10::nullopt, `{}`) is reported through \p IsEmpty.
std::optional<bool> constantFlag(const Expr *Arg, const ASTContext &Ctx,
                                 bool &IsEmpty);

} // namespace autograd

class AutogradFlowBuilder {
public:
  AutogradFlowBuilder(const FunctionDecl &Fn, ASTContext &Ctx,
                      AutogradFlow &Out, AutogradFlow::Mode M);

  bool run();

private:
  using DefSet = autograd::DefSet;
  using FreedSet = autograd::FreedSet;
  using Value = autograd::Value;
  using Definition = autograd::Definition;
  using State = autograd::State;

  /// The operands of a call, evaluated left to right (Calls.cpp).
  struct CallOperands {
    /// The object of a member call, or null.
    const Expr *Object = nullptr;
    Value ObjectValue;
    llvm::SmallVector<Value, 4> Args;
    /// The join of Args.
    Value AllArgs;
  };

  /// The CFG of the body and what each block evaluates (Driver.cpp).
  struct Schedule;

  const FunctionDecl &Fn;
  ASTContext &Ctx;
  AutogradFlow &Out;
  const bool IsForward;
  /// AutogradFlow::Mode::Callee: what comes from outside may have history.
  const bool AsCallee;

  std::vector<Definition> Defs;
  std::map<std::pair<const void *, const VarDecl *>, unsigned> DefIds;
  bool DefsChanged = false;
  bool Reporting = false;
  /// The call whose helper's passes pass() is replaying, if any.
  const CallExpr *PassVia = nullptr;
  State *S = nullptr;
  llvm::SmallPtrSet<const Stmt *, 8> Reported;
  llvm::DenseMap<const CallExpr *, bool> NoGrad;
  /// Savers (an operation that saved its result, or its operands, for its
  /// backward) and in-place writes, by id.
  std::vector<std::pair<const CallExpr *, bool>> Savers;
  /// By (call, saves its result, the operand a conditional saver saves or
  /// -1).
  std::map<std::tuple<const CallExpr *, bool, int>, unsigned> SaverIds;
  llvm::DenseMap<const CallExpr *, llvm::SmallVector<unsigned, 2>> SaverIdsOf;
  /// Per saver: 0 when it saves for sure, else the tensor parameters whose
  /// requiring grad makes it save (Value::Params).
  std::vector<unsigned> SaverParams;
  /// For a saver in the body of a function this one calls, whose saving an
  /// argument of the call that requires grad made certain: the call.
  llvm::DenseMap<unsigned, const CallExpr *> ThroughCalls;
  /// For a saver that is a call of a user function: the operation in its
  /// body that saves.
  llvm::DenseMap<unsigned, const CallExpr *> InnerSavers;
  std::vector<const Expr *> Writes;
  llvm::DenseMap<const Expr *, unsigned> WriteIds;
  llvm::SmallPtrSet<const Expr *, 4> ReportedWrites;
  /// Writes recorded as returned to the caller (returnedInPlaceWrites).
  llvm::SmallPtrSet<const Expr *, 4> ReturnedWrites;
  /// Parents inside the body (and, for a lambda, the function around it):
  /// for the grad-mode guards in scope of a call.
  BodyParents Scopes;
  GradModeAnalysis GradMode{Scopes};

  /// The variables that stand for fields of the analysed method's object
  /// whose state the dataflow follows (stateObjectOf).
  mutable llvm::DenseMap<const FieldDecl *, const VarDecl *> FieldStandins;

  /// The source ranges of the loops of the body, and whether definition
  /// \p Id is inside one that does not contain \p Outside (a loop that ran
  /// before the statement at \p Outside, once per iteration).
  std::vector<SourceRange> LoopRanges;
  bool definedInOtherLoop(unsigned Id, SourceLocation Outside) const;
  /// Where the range-for statement of each range-for loop variable starts.
  llvm::DenseMap<const VarDecl *, SourceLocation> RangeForLoc;

  /// The range variable (`__range1`) of each range-for loop variable.
  llvm::DenseMap<const VarDecl *, const VarDecl *> RangeOf;
  /// The container an iterator walks (`auto it = params.begin();`), and
  /// where the iterator is declared.
  llvm::DenseMap<const VarDecl *, const VarDecl *> IteratorOf;
  /// An element of \p Container, read at a loop over it that starts at
  /// \p Loc (\p Range: the range-for's own range variable, or null).
  Value elementOf(const VarDecl *Range, const VarDecl *Container,
                  SourceLocation Loc);

  bool isLocal(const VarDecl *VD) const {
    return VD && !VD->hasGlobalStorage() &&
           VD->getDeclContext() == static_cast<const DeclContext *>(&Fn);
  }

  // --- The fixpoint (Driver.cpp)
  bool schedule(const Stmt &Body, Schedule &Plan) const;
  void initialState(State &Entry);
  bool inStateOf(const Schedule &Plan, const CFGBlock &Block,
                 const State &Entry,
                 const std::vector<std::optional<State>> &OutStates,
                 State &In) const;
  void runBlock(const Schedule &Plan, const CFGBlock &Block);
  bool runRound(const Schedule &Plan, const State &Entry,
                std::vector<std::optional<State>> &OutStates);
  void sortReports();
  /// At a return: what the function saved of its result and of its tensor
  /// parameters (AutogradFlow::resultSaver, savedParameters).
  void recordReturnedSavings(const Value &Returned);
  /// For a return that builds an aggregate in place: which of its elements
  /// an operation saved (AutogradFlow::resultElementsSaved).
  void recordReturnedElements(const Expr *Returned);
  /// A method's own backward passes through a member it carries from its
  /// previous call (MemberState.h): the pass fails on the second call.
  void reportPassesThroughState();
  void visitRoot(const Stmt &Root);

  // --- Expressions and variables (Expressions.cpp)
  Value visit(const Stmt *St);
  Value visitExpr(const Expr &E);
  Value visitChildren(const Stmt &St);
  /// The local tensor variable a reference variable is bound to
  /// (`auto &y = x;`), or null.
  const VarDecl *referent(const VarDecl *Var) const;
  /// The value of a tensor the function gets from outside (a member, a
  /// global): possibly with history for a callee's summary, else none known.
  Value outsideValue(QualType T) const;
  Value valueOfVariable(const VarDecl *Var);
  /// True if \p Field is a parameter of its module (moduleTensorMemberOf in
  /// LibTorch.h): reading it gives a leaf that requires grad. Decided once
  /// per member and analysis.
  bool isParameterMember(const FieldDecl &Field);
  llvm::DenseMap<const FieldDecl *, bool> ParameterMembers;
  /// The tensor facts the state holds for \p Var, whatever its type.
  Value valueOfFacts(const VarDecl *Var);

  // --- Definitions, assignments, containers (Assignments.cpp)
  unsigned definitionAt(const void *Site, const VarDecl *Var,
                        SourceLocation Loc);
  /// Records that \p Var is (re)defined at \p Site with value \p V: the site
  /// builds a fresh graph, so nothing it stands for is freed any more.
  void define(const VarDecl *Var, const void *Site, SourceLocation Loc,
              const Value &V);
  Value assign(const Expr &LHS, const Expr &RHS, const Expr &Site,
               bool Compound);
  /// An element store or an in-place write into the local \p Base (`buf[t]
  /// = x`, `out.index_put_(...)`): it now also holds \p Written's graph and
  /// savers, and stays the same tensor.
  void writeInto(const VarDecl *Base, const Expr &Write, Value Written);
  /// vec.push_back(x), vec.emplace_back(...), ...: true if \p Call fills a
  /// container (its value is then empty).
  bool visitContainerInsertion(const CallExpr &Call, const CallOperands &Ops);
  /// \p Var goes out of scope: its value can no longer be backpropagated.
  void endLifetime(const VarDecl *Var);

  // --- Calls (Calls.cpp)
  Value visitCall(const CallExpr &Call);
  /// What a call other than a backward pass computes.
  Value visitCallee(const CallExpr &Call, const CallOperands &Ops);
  /// The local object (a module, an agent) \p Object names, whose members
  /// may keep state between calls (MemberState.h); null otherwise.
  const VarDecl *stateObjectOf(const Expr *Object) const;
  /// The variable that stands for the tensor field of a local struct that
  /// \p E names (`out.probs`, `st.h` with `PolicyOut out;` a local of the
  /// function): such fields are followed like local tensors once assigned.
  const VarDecl *localFieldStandin(const Expr *E) const;
  /// The variable that stands for the analysed method's object (`this`).
  mutable const VarDecl *ThisStandin = nullptr;
  /// The object whose tensor fields the dataflow follows: a local struct or
  /// class object named as it is, or one the analysed method's object holds
  /// (`baseline_`, through its stand-in).
  const VarDecl *namedObjectOf(const Expr *E) const;
  /// The variable that stands for the tensor field \p Field of \p Object.
  const VarDecl *fieldStandin(const VarDecl *Object, const FieldDecl *Field,
                              SourceLocation Loc) const;
  /// A call of a method that assigns tensor members of a named object
  /// (MemberStateSummary::Writes): each member's stand-in takes what the
  /// method computes it from (the arguments, its old value, the method's own
  /// history).
  void trackFieldWrites(const CallExpr &Call, const CallOperands &Ops);
  /// The stand-ins of the tensor sub-objects of local objects, keyed by the
  /// object and the access path's steps (AccessPath::stepsKey): `out.probs`,
  /// `box.first`, `std::get<1>(t)`, `s.inner.h` (docs/design.md, "Access
  /// paths"). Only strong paths (no container element) have one.
  mutable std::map<std::pair<const VarDecl *, std::string>, const VarDecl *>
      LocalFieldStandins;
  /// The stand-in of the strong access path \p E denotes, rooted at a local
  /// object (a struct, a pair, a tuple) and ending at a tensor; null
  /// otherwise.
  const VarDecl *pathStandin(const Expr &E) const;
  /// A local container every element access of which, in the analysed
  /// function, names its element by a literal index or key (`v[0]`,
  /// `m.at("loss")`), and that nothing else changes but assignments through
  /// those accesses and to the whole: each keyed element is then a location
  /// of its own (a stand-in, strongly updated), as a field is.
  bool keyedOnly(const VarDecl &Container) const;
  mutable llvm::DenseMap<const VarDecl *, bool> KeyedOnlyContainers;
  /// A local object declared with its elements (`Box b{x}`, `std::pair<
  /// Tensor, double> p{x, 0.0}`, `std::tuple<int, Tensor> t{0, x}`): visits
  /// them one by one, defines the stand-in of each tensor element with its
  /// own value, and returns the value of the whole; none if \p Init does not
  /// decompose so.
  std::optional<Value> visitElementwiseInit(const VarDecl &Var,
                                            const Expr &Init);
  /// Forgets the stand-ins of \p Var's sub-objects (a strong write to the
  /// whole object).
  void killSubobjects(const VarDecl *Var);
  /// A call of a method that carries a member of its object from one call
  /// into the next extends the object's state (a definition of the object's
  /// variable computed from its previous one) and \p Result is computed from
  /// it; a method that replaces the state starts a fresh one.
  void trackObjectState(const CallExpr &Call, Value &Result);
  /// A write into a state member by hand (`model->h = model->h.detach()`).
  void writeStateMember(const Expr &Target, const Expr &Site,
                        const Value &Written);
  CallOperands visitOperands(const CallExpr &Call);
  std::optional<Value> visitHistorySource(const CallExpr &Call,
                                          const CallOperands &Ops);
  std::optional<Value> visitUserCall(const CallExpr &Call,
                                     const Value &Operands);
  Value visitOperation(const CallExpr &Call, const CallOperands &Ops);
  bool underNoGradGuard(const CallExpr &Call);

  // --- Backward passes (Passes.cpp)
  /// A backward pass (or torch::autograd::grad): its value, or nullopt if
  /// \p Call is none.
  std::optional<Value> visitPass(const CallExpr &Call, const CallOperands &Ops);
  /// A backward pass at \p Call (a backward() call, or a call of a helper
  /// that runs one on an argument) from \p Root, written \p RootExpr.
  void pass(const CallExpr &Call, const Value &Root, const Expr *RootExpr,
            GraphRetention Retention);
  /// What each pass backpropagates, as written.
  llvm::DenseMap<const CallExpr *, const Expr *> PassRoots;
  void reportSecondPass(const CallExpr &Call, const DefSet &Reach,
                        const DefSet &RootDefs, const FreedSet &Freed);
  void freeGraph(const CallExpr &Call, const DefSet &Reach);
  /// Templates: a backward pass through a still-dependent callee marks its
  /// object as backpropagated (evidence only: no graph is freed).
  void markDependentPass(const CallExpr &Call);
  /// backward() runs on the values definition \p Id produces.
  void markBackpropagated(unsigned Id);
  void reportBroken(const Value &V, const Stmt &Use,
                    AutogradFlow::GradientUse Kind);

  // --- Saved tensors and in-place writes (SavedTensors.cpp)
  unsigned saverId(const CallExpr &Call, bool Output, unsigned Params = 0,
                   int Operand = -1);
  /// At a return: the pending writes into what a conditional saver saved,
  /// when the returned value needs it (AutogradFlow::ConditionalWrite).
  void recordConditionalWrites(const Value &Returned);
  /// \p Write writes in place into \p Target: if an operation saved that
  /// tensor for its backward, the backward fails once it needs it.
  void recordWrite(const Expr &Write, const Value &Target);
  /// A backward pass (or the return from forward()) at \p Use needs what
  /// \p Needed saved: the in-place writes into those tensors are reported.
  /// \p Returned: \p Use is the return of a function other than a module's
  /// forward, whose caller may backpropagate the result.
  void reportWrites(const DefSet &Needed, const Stmt &Use,
                    bool Returned = false);
  /// In-place operations return their object; indexing a tensor is a view.
  void trackSameTensor(const CallExpr &Call, const CallOperands &Ops,
                       Value &Result);
  /// A fresh tensor scaled or shifted by a value read out of a tensor with
  /// history is a tensor built from that value (Value::FromValues).
  void markScaledFromValues(const CallExpr &Call, const CallOperands &Ops,
                            Value &V);
  /// Keeps or marks Value::AddedFromValues through a sum, a scaling or a
  /// reduction; clears it through anything else.
  void trackAddedTerm(const CallExpr &Call, const CallOperands &Ops, Value &V);
  void recordSaving(const CallExpr &Call, const Value &ObjectValue,
                    llvm::ArrayRef<Value> Args, Value &Result);
  /// A forward of a layer with weights (moduleSavesInput) saves its tensor
  /// arguments.
  void recordModuleSaving(const CallExpr &Call, const CallOperands &Ops,
                          Value &Result);
  /// A call of a user function (or a user module's forward) whose summary
  /// says it saves its result or some of its tensor arguments.
  void recordCalleeSaving(const CallExpr &Call, const CallOperands &Ops,
                          const FunctionSummary &Summary, Value &Result);
  /// A call of a function whose summary has conditional writes
  /// (FunctionSummary::ConditionalWrites) with an argument that requires
  /// grad for one of their parameters: the write inside is pending, and the
  /// result needs what it broke.
  void recordConditionalCallWrites(const CallExpr &Call,
                                   const CallOperands &Ops,
                                   const FunctionSummary &Summary,
                                   Value &Result);
};

} // namespace clang::tidy::torch

#endif
