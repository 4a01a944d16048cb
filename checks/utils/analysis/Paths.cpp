//===--- Paths.cpp - path questions on a function body's CFG --------------===//

#include "utils/analysis/Paths.h"

#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch {

BodyPaths::BodyPaths(const FunctionDecl &Fn, ASTContext &Ctx)
    : Fn(Fn), Ctx(Ctx) {}

BodyPaths::~BodyPaths() = default;

bool BodyPaths::build() {
  if (Tried)
    return Graph != nullptr;
  Tried = true;
  if (!Fn.getBody())
    return false;
  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  Options.AddImplicitDtors = false;
  Options.AddTemporaryDtors = false;
  Options.AddInitializers = false;
  Graph = CFG::buildCFG(&Fn, const_cast<Stmt *>(Fn.getBody()), &Ctx, Options);
  if (!Graph)
    return false;
  for (const CFGBlock *B : *Graph)
    for (unsigned I = 0; I < B->size(); ++I)
      if (std::optional<CFGStmt> S = (*B)[I].getAs<CFGStmt>())
        Where.try_emplace(S->getStmt(), Position{B, I});
  // A declaration split by the CFG (`int a = f(), b = g();`) is found under
  // the statement written.
  for (const auto &[Synthetic, Original] : Graph->synthetic_stmts())
    if (auto It = Where.find(Synthetic); It != Where.end())
      Where.try_emplace(Original, It->second);
  return true;
}

std::optional<BodyPaths::Position> BodyPaths::positionOf(const Stmt &S) {
  if (!build())
    return std::nullopt;
  if (auto It = Where.find(&S); It != Where.end())
    return It->second;
  return std::nullopt;
}

bool BodyPaths::knows(const Stmt &S) { return positionOf(S).has_value(); }

const CFGBlock *BodyPaths::headerOf(const Stmt &Loop) {
  if (!build())
    return nullptr;
  for (const CFGBlock *B : *Graph)
    if (B->getTerminatorStmt() == &Loop)
      return B;
  return nullptr;
}

llvm::DenseSet<const CFGBlock *>
BodyPaths::forward(const CFGBlock *Start, bool Inclusive,
                   const CFGBlock *Header, bool *ReachedHeader,
                   llvm::function_ref<bool(const CFGBlock *)> Blocked) {
  llvm::DenseSet<const CFGBlock *> Seen;
  llvm::SmallVector<const CFGBlock *, 16> Work;
  auto Push = [&](const CFGBlock *B) {
    if (!B)
      return;
    if (B == Header) {
      if (ReachedHeader)
        *ReachedHeader = true;
      return;
    }
    if ((!Blocked || !Blocked(B)) && Seen.insert(B).second)
      Work.push_back(B);
  };
  if (Inclusive)
    Push(Start);
  else
    for (const CFGBlock::AdjacentBlock &Succ : Start->succs())
      Push(Succ.getReachableBlock());
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    for (const CFGBlock::AdjacentBlock &Succ : B->succs())
      Push(Succ.getReachableBlock());
  }
  return Seen;
}

bool BodyPaths::endsIteration(Position P, const CFGBlock *Header) {
  bool Reached = false;
  forward(P.Block, /*Inclusive=*/false, Header, &Reached);
  return Reached;
}

bool BodyPaths::reachesInIteration(const Stmt &From, const Stmt &To,
                                   const Stmt &Loop,
                                   llvm::function_ref<bool(const Stmt &)> Stops) {
  const CFGBlock *Header = headerOf(Loop);
  if (!Header)
    return false;
  return reachesAvoiding(From, To, Header, Stops);
}

bool BodyPaths::reaches(const Stmt &From, const Stmt &To,
                        llvm::function_ref<bool(const Stmt &)> Stops) {
  return reachesAvoiding(From, To, nullptr, Stops);
}

bool BodyPaths::reachesAvoiding(
    const Stmt &From, const Stmt &To, const CFGBlock *Header,
    llvm::function_ref<bool(const Stmt &)> Stops) {
  std::optional<Position> PF = positionOf(From), PT = positionOf(To);
  if (!PF || !PT || (Header && (PF->Block == Header || PT->Block == Header)))
    return false;
  auto StopsAt = [&](const CFGBlock *B, unsigned I) {
    if (!Stops)
      return false;
    std::optional<CFGStmt> S = (*B)[I].getAs<CFGStmt>();
    return S && Stops(*S->getStmt());
  };
  // Within the block.
  for (unsigned I = PF->Index + 1; I < PF->Block->size(); ++I) {
    if (PF->Block == PT->Block && I == PT->Index)
      return true;
    if (StopsAt(PF->Block, I))
      return false;
  }
  // Through its successors, not past the header.
  llvm::DenseSet<const CFGBlock *> Seen;
  llvm::SmallVector<const CFGBlock *, 16> Work;
  auto PushSuccessors = [&](const CFGBlock *B) {
    for (const CFGBlock::AdjacentBlock &Succ : B->succs())
      if (const CFGBlock *Next = Succ.getReachableBlock();
          Next && Next != Header && Seen.insert(Next).second)
        Work.push_back(Next);
  };
  PushSuccessors(PF->Block);
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    bool Blocked = false;
    for (unsigned I = 0; I < B->size() && !Blocked; ++I) {
      if (B == PT->Block && I == PT->Index)
        return true;
      Blocked = StopsAt(B, I);
    }
    if (!Blocked)
      PushSuccessors(B);
  }
  return false;
}

std::optional<bool> BodyPaths::sharesIteration(const Stmt &S,
                                               const Stmt &Anchor,
                                               const Stmt &Loop) {
  std::optional<Position> PS = positionOf(S), PA = positionOf(Anchor);
  const CFGBlock *Header = headerOf(Loop);
  if (!PS || !PA || !Header || Header->succ_empty())
    return std::nullopt;
  const CFGBlock *Entry = Header->succ_begin()->getReachableBlock();
  if (!Entry)
    return false; // The body never runs.
  const llvm::DenseSet<const CFGBlock *> Iteration =
      forward(Entry, /*Inclusive=*/true, Header);
  auto Started = [&](Position P) { return Iteration.contains(P.Block); };
  if (!Started(*PS) || !Started(*PA))
    return false;
  if (PS->Block == PA->Block && PS->Index == PA->Index)
    return endsIteration(*PS, Header);
  return (reachesInIteration(S, Anchor, Loop) && endsIteration(*PA, Header)) ||
         (reachesInIteration(Anchor, S, Loop) && endsIteration(*PS, Header));
}

std::optional<bool> BodyPaths::iterationRunsWithout(
    const Stmt &Through, const Stmt &Loop,
    llvm::function_ref<bool(const Stmt &)> Avoid) {
  std::optional<Position> PT = positionOf(Through);
  const CFGBlock *Header = headerOf(Loop);
  if (!PT || !Header || Header->succ_empty())
    return std::nullopt;
  const CFGBlock *Entry = Header->succ_begin()->getReachableBlock();
  if (!Entry)
    return false;
  // A block runs all its elements or none: one holding an avoided
  // statement cannot be on such an iteration.
  auto Blocked = [&](const CFGBlock *B) {
    for (const CFGElement &E : *B)
      if (std::optional<CFGStmt> S = E.getAs<CFGStmt>())
        if (Avoid(*S->getStmt()))
          return true;
    return false;
  };
  if (PT->Block == Header || Blocked(PT->Block))
    return false;
  if (!forward(Entry, /*Inclusive=*/true, Header, nullptr, Blocked)
           .contains(PT->Block))
    return false;
  bool Ends = false;
  forward(PT->Block, /*Inclusive=*/false, Header, &Ends, Blocked);
  return Ends;
}

} // namespace clang::tidy::torch
