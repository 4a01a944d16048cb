//===--- ProjectSummaries.h - function summaries across files --*- C++ -*-===//
//
// The facts of FunctionSummary, for the functions of *other* translation
// units of the project (docs/summaries.md). A translation unit writes, for
// every function with external linkage that its main file defines, a few
// facts (trains, clears gradients, the history of its result, its result
// rebuilt from read-out values) and, for every call of a function it only
// declares, whether a gradient-disabling guard is alive around it. The
// project's facts are merged into one JSON file (run-torch-tidy does it),
// which every translation unit then reads for the functions it only declares.
//
// Where the files come from, in order: torch-tidy's own command-line options
// (setSummaryFiles), the configuration options `torch-tidy.Summaries` and
// `torch-tidy.ExportSummaries` (a `.clang-tidy` file, the plugin), and, in
// torch-clangd only, `torch-tidy-summaries.json` next to the project's
// compilation database (setDiscoverSummaries). With none, nothing is read
// and every check sees only its translation unit.
//
// Functions are keyed by clang's USR (the same in every file that declares
// the function). A summary file is read once per process and again when it
// changes (size or modification time); clangd analyses files on several
// threads, so the cache of read files is shared under a lock, and each
// translation unit holds the table it started with.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_PROJECTSUMMARIES_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_PROJECTSUMMARIES_H

#include "utils/analysis/AutogradFlow.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang::tidy {
class ClangTidyContext;
} // namespace clang::tidy

namespace clang::tidy::torch {

/// What a function does to a module it is handed, as its callers see it
/// (torch-eval-mode-not-restored): the first thing it does to the module
/// when that is train(), or a forward in a function that trains; and the
/// mode it leaves the module in.
struct ModeEffect {
  enum Kind { Eval, Train, Forward } What;
  unsigned Param; ///< Index of the parameter that holds the module.
};

/// What another translation unit wrote about one of its functions.
struct ExternalSummary {
  std::string Name; ///< Qualified name, for messages.
  std::string File; ///< Where the definition is.
  unsigned Line = 0;
  bool Trains = false;
  bool ClearsGradients = false;
  HistoryEvidence ResultHistory = HistoryEvidence::Possible;
  bool ResultFromValues = false;
  llvm::SmallVector<ModeEffect, 2> Modes;
  // Version 2:
  /// The values the result was rebuilt from (ResultFromValues) were read out
  /// of history the function made itself: every call rebuilds.
  bool ResultValuesOwn = false;
  /// It returns a host value read out of a tensor with history: of what it
  /// was handed, or of history it made itself.
  enum class ReadOut { None, Arguments, Own } ResultReadOut = ReadOut::None;
  /// An operation inside saved the returned tensor, and these tensor
  /// parameters, for the backward pass.
  bool ResultSaved = false;
  llvm::SmallVector<unsigned, 1> SavedParams;
  /// For a member function: the members of its object it carries from one
  /// call into the next, with history, that its result is computed from
  /// (MemberState.h), those it carries aside, and those it replaces.
  llvm::SmallVector<std::string, 1> Carries, CarriesAside, Replaces;
};

/// The calls of one function in other translation units.
struct ExternalCalls {
  unsigned Guarded = 0;
  unsigned Unguarded = 0;
};

/// Sets the summary files for every translation unit of this process (the
/// command-line options of torch-tidy); empty strings leave the decision to
/// the configuration.
void setSummaryFiles(std::string Import, std::string Export);

/// Lets a translation unit without a configured summary file look for
/// `torch-tidy-summaries.json` next to its compilation database
/// (torch-clangd).
void setDiscoverSummaries(bool Discover);

/// Called once per translation unit, before any check looks at it (from
/// UserCodeMatchFinder): reads the summaries this translation unit is
/// analysed with (from \p Tidy's options unless the command line set
/// them), and writes its own when asked to.
void startTranslationUnitSummaries(ASTContext &Ctx,
                                   const ClangTidyContext *Tidy);

/// The summary another translation unit wrote for \p F, which this one
/// declares without defining it in the user's code; null without one.
const ExternalSummary *externalSummaryOf(const FunctionDecl &F);

/// The calls of \p F (defined here) in other translation units; null
/// without any.
const ExternalCalls *externalCallsOf(const FunctionDecl &F);

/// True if \p F is a function of the user's that this translation unit
/// only declares, and that another file may define (external linkage).
bool isDefinedElsewhere(const FunctionDecl &F, const SourceManager &SM);

/// The key of \p F in summary files: clang's USR of its declaration.
std::string summaryKeyOf(const FunctionDecl &F);

/// Matches a function that another translation unit summarised.
AST_MATCHER(FunctionDecl, hasExternalSummary) {
  return externalSummaryOf(Node) != nullptr;
}

} // namespace clang::tidy::torch

#endif
