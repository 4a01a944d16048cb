//===--- TorchClangdMain.cpp - clangd with the torch module ---------------===//
//
// bin/torch-clangd: upstream clangd's driver with the torch clang-tidy module
// linked in. Same command line as clangd. The torch-* checks run when the
// project's .clang-tidy (or .clangd's Diagnostics.ClangTidy.Add) enables them
// and .clangd says `Diagnostics: ClangTidy: FastCheckFilter: None`: clangd
// otherwise skips checks it does not know to be fast.
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
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace clang {
namespace clangd {
// Defined in libclangdMain.a (clang-tools-extra/clangd/tool/ClangdMain.cpp).
int clangdMain(int argc, char *argv[]);
} // namespace clangd
} // namespace clang

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
