//===--- PluginVersionGuard.cpp - refuse a mismatched clang-tidy ----------===//
//
// libTorchTidy.so takes every LLVM/Clang symbol from the clang-tidy that loads
// it, so it only works in the clang-tidy of the exact LLVM version it was built
// against. Loaded into another one, it would list its checks and then crash at
// the first translation unit. This guard runs before the module registers
// itself and stops the process with a one-line explanation instead.
//
//===----------------------------------------------------------------------===//

#include "clang/Basic/Version.h"
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

/// Extracts "MAJOR.MINOR" from a string such as
/// "Debian clang version 19.1.7 (++20250114103238+cd708029e0b2-1~exp1)".
std::string majorMinor(const std::string &FullVersion) {
  const std::string Marker = "version ";
  std::string::size_type Pos = FullVersion.find(Marker);
  if (Pos == std::string::npos)
    return "";
  Pos += Marker.size();
  std::string::size_type End = Pos;
  int Dots = 0;
  while (End < FullVersion.size() &&
         (isdigit(static_cast<unsigned char>(FullVersion[End])) ||
          FullVersion[End] == '.')) {
    if (FullVersion[End] == '.' && ++Dots == 2)
      break;
    ++End;
  }
  return FullVersion.substr(Pos, End - Pos);
}

std::string majorMinorOfBuild() {
  std::string V = TORCH_TIDY_BUILT_FOR_VERSION;
  std::string::size_type Second = V.find('.', V.find('.') + 1);
  return Second == std::string::npos ? V : V.substr(0, Second);
}

// Priority 101 runs before the module's registration (a default-priority
// static initializer in the same library).
__attribute__((constructor(101))) void refuseMismatchedClangTidy() {
  const std::string Running = majorMinor(clang::getClangFullVersion());
  const std::string Built = majorMinorOfBuild();
  if (Running.empty() || Running == Built)
    return;
  std::fprintf(stderr,
               "error: libTorchTidy.so was built for LLVM %s but was loaded "
               "into clang-tidy %s; use clang-tidy-%s or bin/torch-tidy\n",
               Built.c_str(), Running.c_str(),
               Built.substr(0, Built.find('.')).c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

} // namespace
