//===--- TorchClangdMain.cpp - clangd with the torch module ---------------===//
//
// bin/torch-clangd: upstream clangd's driver with the torch clang-tidy module
// linked in. Same command line as clangd, and clangd's configuration, with
// two differences that make the torch-* checks run without any set-up:
//
// - Checks: torch-* is the base layer that the project's .clang-tidy files
//   and then .clangd's `Diagnostics: ClangTidy: Add/Remove` are appended to,
//   as torch-tidy does with its default (a .clang-tidy that says
//   `-torch-missing-epsilon` keeps the other torch-* checks, `-*,bugprone-*`
//   turns them off). When nothing names checks, clangd's own default set
//   runs, plus torch-*.
// - The torch-* checks count as fast (they cost well under 2% of a file's
//   time: docs/performance.md), so clangd's default
//   `FastCheckFilter: Strict` runs them; the setting still decides for every
//   other check.
//
// clangdMain has no hook for either, so the binary is linked with the
// linker's --wrap for two clangd functions (tool/clangd/CMakeLists.txt):
// combine (called by clangdMain to chain its clang-tidy option providers)
// and isFastTidyCheck (called by the FastCheckFilter and by .clangd's
// diagnostics about slow checks).
//
// Its quick fixes for torch-* diagnostics get short titles (FixTitles.h).
//
// Summaries of the project's other files (docs/summaries.md) are read from
// `torch-tidy-summaries.json` next to the compilation database, which
// run-torch-tidy writes, unless the configuration names a file.
//
//===----------------------------------------------------------------------===//

#include "FixTitles.h"
#include "ResourceDir.h"
#include "utils/analysis/ProjectSummaries.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace clang {
namespace clangd {
// Defined in libclangdMain.a (clang-tools-extra/clangd/tool/ClangdMain.cpp).
int clangdMain(int argc, char *argv[]);
// From clangd's TidyProvider.h (not installed).
using TidyProvider = llvm::unique_function<void(tidy::ClangTidyOptions &,
                                                llvm::StringRef) const>;
} // namespace clangd
} // namespace clang

using clang::clangd::TidyProvider;

// clangd's functions (__real_...) and their replacements (__wrap_...), by
// their mangled names. Only functions whose signature is the same in every
// LLVM version torch-clangd builds with: a mangled name does not say what a
// function returns (provideDefaultChecks, for one, returns a function_ref in
// LLVM 19; the two below have kept their types since LLVM 19).
#define CLANGD_IS_FAST "_ZN5clang6clangd15isFastTidyCheckEN4llvm9StringRefE"
#define CLANGD_COMBINE                                                         \
  "_ZN5clang6clangd7combineESt6vectorIN4llvm15unique_functionIKFvRNS_"        \
  "4tidy16ClangTidyOptionsENS2_9StringRefEEEESaIS9_EE"
std::optional<bool> realIsFastTidyCheck(llvm::StringRef Check)
    __asm__("__real_" CLANGD_IS_FAST);
std::optional<bool> wrappedIsFastTidyCheck(llvm::StringRef Check)
    __asm__("__wrap_" CLANGD_IS_FAST);
TidyProvider realCombine(std::vector<TidyProvider> Providers)
    __asm__("__real_" CLANGD_COMBINE);
TidyProvider wrappedCombine(std::vector<TidyProvider> Providers)
    __asm__("__wrap_" CLANGD_COMBINE);

/// clangd's table of fast checks (TidyFastChecks.inc), plus torch-*.
std::optional<bool> wrappedIsFastTidyCheck(llvm::StringRef Check) {
  if (Check.starts_with("torch-"))
    return true;
  return realIsFastTidyCheck(Check);
}

/// clangdMain combines its clang-tidy option providers (the environment, the
/// .clang-tidy files, .clangd's Add/Remove, clangd's default checks when
/// nothing named any, the checks clangd cannot run) into one; torch-clangd
/// adds one last provider that puts torch-* in front of the Checks so
/// combined. A glob list's last matching glob decides, so a glob in front is
/// the base layer under all the others: `-torch-missing-epsilon` or `-*` in
/// any configuration still turns torch checks off.
TidyProvider wrappedCombine(std::vector<TidyProvider> Providers) {
  // Constructed in place (a moved unique_function of a lambda without
  // captures trips GCC 12's -Wmaybe-uninitialized).
  Providers.emplace_back(
      [](clang::tidy::ClangTidyOptions &Opts, llvm::StringRef) {
        std::string Checks = Opts.Checks.value_or("");
        Opts.Checks = Checks.empty() ? std::string("torch-*")
                                     : "torch-*," + Checks;
      });
  return realCombine(std::move(Providers));
}

/// True when the user already chose clangd's resource directory.
static bool hasResourceDirFlag(int argc, char **argv) {
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef Arg(argv[I]);
    if (Arg == "--")
      break;
    if (Arg.consume_front("--") || Arg.consume_front("-"))
      if (Arg == "resource-dir" || Arg.starts_with("resource-dir="))
        return true;
  }
  return false;
}

int main(int argc, char **argv) {
  std::vector<char *> Args(argv, argv + argc);
  std::string ResourceArg;
  if (!hasResourceDirFlag(argc, argv)) {
    std::string Dir = torch_tidy::resourceDirOverride(
        argv[0], reinterpret_cast<void *>(&main));
    if (!Dir.empty()) {
      ResourceArg = "--resource-dir=" + Dir;
      Args.insert(Args.begin() + 1, ResourceArg.data());
    }
  }
  Args.push_back(nullptr);
  clang::tidy::torch::setDiscoverSummaries(true);
  torch_tidy::LspOutputFilter Titles;
  return clang::clangd::clangdMain(static_cast<int>(Args.size()) - 1,
                                   Args.data());
}
