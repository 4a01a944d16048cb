//===--- AutogradOps.cpp - autograd facts generated from PyTorch ----------===//

#include "utils/libtorch/AutogradOps.h"
#include "utils/libtorch/OpTable.h"
#include <algorithm>
#include <iterator>

namespace clang::tidy::torch {

namespace {

using namespace op;

struct AutogradOp {
  llvm::StringRef Name;
  std::uint64_t Roles;
};

const AutogradOp Table[] = {
#define AUTOGRAD_OP(Name, Roles) {#Name, (Roles)},
#include "utils/libtorch/AutogradOps.def"
};

bool byName(const AutogradOp &A, const AutogradOp &B) { return A.Name < B.Name; }

} // namespace

std::uint64_t autogradRolesOf(llvm::StringRef Name) {
  return autogradEntryOf(Name).value_or(0);
}

std::optional<std::uint64_t> autogradEntryOf(llvm::StringRef Name) {
  // AutogradOps.def is generated sorted (the lit test autograd-ops-table
  // checks it); a table that is not falls back to a linear search.
  static const bool Sorted =
      std::is_sorted(std::begin(Table), std::end(Table), byName);
  if (!Sorted) {
    for (const AutogradOp &Op : Table)
      if (Op.Name == Name)
        return Op.Roles;
    return std::nullopt;
  }
  const AutogradOp *It = std::lower_bound(
      std::begin(Table), std::end(Table), Name,
      [](const AutogradOp &Op, llvm::StringRef Key) { return Op.Name < Key; });
  if (It != std::end(Table) && It->Name == Name)
    return It->Roles;
  return std::nullopt;
}

} // namespace clang::tidy::torch
