//===--- ResourceDir.h - find clang's builtin headers ---------------------===//
//
// Clang-based tools look for their resource directory (stddef.h, stdarg.h,
// ...) next to the executable, at <bin>/../lib/clang/<major>. torch-tidy and
// torch-clangd live in a build or install tree of their own, so unless such a
// directory exists there, they point clang at the one of the LLVM they were
// built against.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_TOOL_RESOURCEDIR_H
#define TORCH_TIDY_TOOL_RESOURCEDIR_H

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <string>

namespace torch_tidy {

/// Returns the resource directory to pass to clang explicitly, or an empty
/// string when the default lookup next to \p Argv0 already finds one.
inline std::string resourceDirOverride(const char *Argv0, void *MainAddr) {
  std::string Exe = llvm::sys::fs::getMainExecutable(Argv0, MainAddr);
  llvm::SmallString<256> Beside(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(Exe)));
  llvm::sys::path::append(Beside, "lib", "clang",
                          std::to_string(TORCH_TIDY_LLVM_MAJOR));
  if (llvm::sys::fs::is_directory(Beside))
    return "";
  if (llvm::sys::fs::is_directory(TORCH_TIDY_RESOURCE_DIR))
    return TORCH_TIDY_RESOURCE_DIR;
  return "";
}

} // namespace torch_tidy

#endif
