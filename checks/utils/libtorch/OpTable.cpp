//===--- OpTable.cpp - facts about LibTorch tensor operations -------------===//

#include "utils/libtorch/OpTable.h"
#include "utils/libtorch/AutogradOps.h"
#include <map>
#include <optional>
#include <string>
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include <algorithm>
#include <iterator>

namespace clang::tidy::torch {

namespace {

using namespace op;

const OpInfo Table[] = {
#define TORCH_OP(Name, Roles, Boundary) {#Name, (Roles), (Boundary)},
#include "utils/libtorch/Ops.def"
};

bool isSorted() {
  return std::is_sorted(
      std::begin(Table), std::end(Table),
      [](const OpInfo &A, const OpInfo &B) { return A.Name < B.Name; });
}

} // namespace

const OpInfo *lookupOp(llvm::StringRef Name) {
  // Ops.def is kept sorted (asserted once): a binary search, no allocation.
  static const bool Sorted = isSorted();
  if (!Sorted) {
    auto *It =
        llvm::find_if(Table, [&](const OpInfo &I) { return I.Name == Name; });
    return It == std::end(Table) ? nullptr : It;
  }
  const OpInfo *It = std::lower_bound(
      std::begin(Table), std::end(Table), Name,
      [](const OpInfo &I, llvm::StringRef Key) { return I.Name < Key; });
  return It != std::end(Table) && It->Name == Name ? It : nullptr;
}

const OpInfo &unknownOpDefault() {
  static const OpInfo Default{"", op::Differentiable | op::SavesInput,
                              op::NoBoundary};
  return Default;
}

const OpInfo &generatedOrDefaultOp(llvm::StringRef Name) {
  std::optional<std::uint64_t> Roles = autogradEntryOf(Name);
  if (!Roles)
    return unknownOpDefault();
  // One OpInfo per name asked for; the table's names live as long as the
  // program (AutogradOps.def is a static array of literals).
  static std::map<std::string, OpInfo, std::less<>> Generated;
  auto It = Generated.find(Name);
  if (It == Generated.end()) {
    std::uint64_t R = *Roles & (op::Differentiable | op::SavesInput |
                                op::SavesOutput | op::SavesOperands);
    if (!(R & op::Differentiable))
      R = op::NotDifferentiable;
    It = Generated.emplace(Name.str(), OpInfo{"", R, op::NoBoundary}).first;
    It->second.Name = It->first;
  }
  return It->second;
}

const OpInfo *inPlaceTwinOf(llvm::StringRef Name) {
  const OpInfo *Info = lookupOp(Name);
  if (!Info || !isOutOfPlace(*Info))
    return nullptr;
  const OpInfo *Twin = lookupOp((Name + "_").str());
  return Twin && (Twin->Roles & op::InPlace) ? Twin : nullptr;
}

void forEachOp(llvm::function_ref<void(const OpInfo &)> Fn) {
  for (const OpInfo &I : Table)
    Fn(I);
}

} // namespace clang::tidy::torch
