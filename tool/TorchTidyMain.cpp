//===--- TorchTidyMain.cpp - clang-tidy with the torch module -------------===//
//
// bin/torch-tidy: upstream clang-tidy's driver (every upstream module) with the
// torch module linked in. Same command line as clang-tidy.
//
//===----------------------------------------------------------------------===//

#include "ResourceDir.h"
#include "clang-tidy/tool/ClangTidyMain.h"
#include <string>
#include <vector>

int main(int argc, const char **argv) {
  std::vector<const char *> Args(argv, argv + argc);
  std::string ResourceArg;
  std::string Dir = torch_tidy::resourceDirOverride(
      argv[0], reinterpret_cast<void *>(&main));
  if (!Dir.empty()) {
    // Placed before the compile command's own flags, so that a
    // -resource-dir given by the user or by compile_commands.json wins.
    ResourceArg = "--extra-arg-before=-resource-dir=" + Dir;
    Args.insert(Args.begin() + 1, ResourceArg.c_str());
  }
  return clang::tidy::clangTidyMain(static_cast<int>(Args.size()),
                                    Args.data());
}
