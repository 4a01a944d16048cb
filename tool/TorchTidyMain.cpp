//===--- TorchTidyMain.cpp - clang-tidy with the torch module -------------===//
//
// bin/torch-tidy: upstream clang-tidy's driver (every upstream module) with the
// torch module linked in. Same command line as clang-tidy, with three
// differences, all decided here before clangTidyMain sees the arguments:
//
// - When neither the command line (--checks, --config, --config-file) nor a
//   configuration file of any source file names `Checks`, the checks are
//   `clang-diagnostic-*,torch-*` instead of clang-tidy's own default
//   (`clang-diagnostic-*,clang-analyzer-*`, a constant inside clangTidyMain):
//   the configuration files are looked up with clang-tidy's own
//   FileOptionsProvider, and only then `--checks=-*,clang-diagnostic-*,torch-*`
//   is added to the command line, so `--dump-config` shows it.
// - When the effective configuration of a source file enables no torch-*
//   check, one note line on stderr says so and where the `Checks` came from.
// - A source file that does not exist and an --export-fixes file that cannot
//   be written are reported as one line with exit status 2, before any
//   analysis.
//
// - `--summaries=FILE` and `--export-summaries=FILE` (docs/summaries.md) are
//   torch-tidy's own: taken off the command line and given to the module.
//
// `--version` adds torch-tidy's own version to LLVM's.
//
//===----------------------------------------------------------------------===//

#include "ResourceDir.h"
#include "utils/analysis/ProjectSummaries.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang-tidy/GlobList.h"
#include "clang-tidy/tool/ClangTidyMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

using namespace clang::tidy;

// Listed after clang-tidy's own options in --help.
static llvm::cl::extrahelp TorchTidyOptionsHelp(R"(
torch-tidy's own options (docs/summaries.md):
  --summaries=<file>         read the summaries of the project's other files
                             (written by run-torch-tidy or --export-summaries)
                             for the functions a file only declares
  --export-summaries=<file>  write the summaries of the analysed files
)");

namespace {

/// The checks torch-tidy runs when no configuration names any.
constexpr const char *TorchDefaultChecks = "-*,clang-diagnostic-*,torch-*";
/// clang-tidy's own default (ClangTidyMain.cpp, DefaultChecks).
constexpr const char *ClangTidyDefaultChecks =
    "clang-diagnostic-*,clang-analyzer-*";
constexpr int ExitBadInput = 2;

/// torch-tidy's own options, which clang-tidy's driver does not know: taken
/// off the arguments (both `--name=VALUE` and `--name VALUE`).
struct OwnOptions {
  std::optional<std::string> Summaries, ExportSummaries;
};

std::optional<std::string> takeOwnOptions(std::vector<const char *> &Args,
                                          OwnOptions &Own) {
  std::vector<const char *> Kept;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Arg(Args[I]);
    if (I > 0 && Arg == "--") {
      Kept.insert(Kept.end(), Args.begin() + I, Args.end());
      break;
    }
    std::optional<std::string> *Target = nullptr;
    llvm::StringRef Name = Arg.ltrim('-'), Value;
    bool HasValue = false;
    if (auto Eq = Name.find('='); Eq != llvm::StringRef::npos) {
      Value = Name.substr(Eq + 1);
      Name = Name.substr(0, Eq);
      HasValue = true;
    }
    if (I > 0 && Arg.starts_with("-") && Name == "summaries")
      Target = &Own.Summaries;
    else if (I > 0 && Arg.starts_with("-") && Name == "export-summaries")
      Target = &Own.ExportSummaries;
    if (!Target) {
      Kept.push_back(Args[I]);
      continue;
    }
    if (!HasValue) {
      if (I + 1 >= Args.size() || llvm::StringRef(Args[I + 1]) == "--")
        return "--" + Name.str() + " needs a file name";
      Value = Args[++I];
    }
    if (Value.empty())
      return "--" + Name.str() + " needs a file name";
    *Target = Value.str();
  }
  Args = std::move(Kept);
  return std::nullopt;
}

/// What torch-tidy needs to know of a clang-tidy command line.
struct CommandLine {
  std::optional<std::string> Checks, Config, ConfigFile, ExportFixes;
  std::vector<std::string> Files; // positional arguments before `--`
  bool InfoOnly = false;          // --help, --version, --dump-config, ...
  bool VfsOverlay = false;
};

/// clang-tidy options that take a value, which may be the next argument.
bool takesValue(llvm::StringRef Name) {
  static const llvm::StringSet<> Names = {"checks",
                                          "config",
                                          "config-file",
                                          "export-fixes",
                                          "extra-arg",
                                          "extra-arg-before",
                                          "format-style",
                                          "header-filter",
                                          "exclude-header-filter",
                                          "line-filter",
                                          "load",
                                          "p",
                                          "store-check-profile",
                                          "vfsoverlay",
                                          "warnings-as-errors"};
  return Names.contains(Name);
}

CommandLine parseCommandLine(llvm::ArrayRef<const char *> Args) {
  CommandLine CL;
  for (size_t I = 1; I < Args.size(); ++I) {
    llvm::StringRef Arg(Args[I]);
    if (Arg == "--")
      break;
    if (!Arg.starts_with("-") || Arg == "-") {
      CL.Files.push_back(Arg.str());
      continue;
    }
    llvm::StringRef Name = Arg.ltrim('-');
    std::optional<std::string> Value;
    if (auto Eq = Name.find('='); Eq != llvm::StringRef::npos) {
      Value = Name.substr(Eq + 1).str();
      Name = Name.substr(0, Eq);
    } else if (takesValue(Name) && I + 1 < Args.size()) {
      Value = Args[++I];
    }
    if (Name == "checks")
      CL.Checks = Value;
    else if (Name == "config")
      CL.Config = Value;
    else if (Name == "config-file")
      CL.ConfigFile = Value;
    else if (Name == "export-fixes")
      CL.ExportFixes = Value;
    else if (Name == "vfsoverlay")
      CL.VfsOverlay = true;
    else if (Name == "help" || Name == "help-hidden" || Name == "version" ||
             Name == "dump-config" || Name == "explain-config" ||
             Name == "list-checks" || Name == "verify-config" ||
             Name.starts_with("print-"))
      CL.InfoOnly = true;
  }
  return CL;
}

std::string absolute(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

/// One line and exit status 2 for arguments that would only fail later.
std::optional<std::string> badArgument(const CommandLine &CL) {
  if (!CL.VfsOverlay)
    for (const std::string &F : CL.Files)
      if (!llvm::sys::fs::is_regular_file(F))
        return llvm::sys::fs::exists(F) ? "'" + F + "' is not a regular file"
                                        : "no such source file: '" + F + "'";
  if (CL.ExportFixes) {
    std::string Path = absolute(*CL.ExportFixes);
    std::string Dir = llvm::sys::path::parent_path(Path).str();
    if (llvm::sys::fs::is_directory(*CL.ExportFixes))
      return "--export-fixes: '" + *CL.ExportFixes + "' is a directory";
    if (!llvm::sys::fs::is_directory(Dir))
      return "--export-fixes: directory '" + Dir + "' does not exist";
    if (llvm::sys::fs::access(Dir, llvm::sys::fs::AccessMode::Write))
      return "--export-fixes: directory '" + Dir + "' is not writable";
  }
  return std::nullopt;
}

/// The files whose configuration is looked up: the sources, or (as
/// clang-tidy does for --list-checks without one) a file in the current
/// directory.
std::vector<std::string> configFiles(const CommandLine &CL) {
  std::vector<std::string> Files;
  for (const std::string &F : CL.Files)
    Files.push_back(absolute(F));
  if (Files.empty())
    Files.push_back(absolute("dummy"));
  return Files;
}

/// True when a configuration file (`.clang-tidy` above \p File) sets Checks.
bool configFileNamesChecks(FileOptionsProvider &Provider,
                           llvm::StringRef File) {
  for (const auto &[Options, Source] : Provider.getRawOptions(File))
    if (Source != ClangTidyOptionsProvider::OptionsSourceTypeDefaultBinary &&
        Options.Checks)
      return true;
  return false;
}

std::unique_ptr<FileOptionsProvider>
makeFileProvider(std::optional<std::string> Checks) {
  ClangTidyOptions Defaults;
  Defaults.Checks = ClangTidyDefaultChecks;
  ClangTidyOptions Overrides;
  Overrides.Checks = std::move(Checks);
  return std::make_unique<FileOptionsProvider>(ClangTidyGlobalOptions(),
                                               Defaults, Overrides,
                                               llvm::vfs::getRealFileSystem());
}

/// The names of the torch-* checks linked into this binary.
std::vector<std::string> torchCheckNames() {
  ClangTidyCheckFactories Factories;
  for (const auto &Entry : ClangTidyModuleRegistry::entries())
    Entry.instantiate()->addCheckFactories(Factories);
  std::vector<std::string> Names;
  for (const auto &Factory : Factories)
    if (Factory.getKey().starts_with("torch-"))
      Names.push_back(Factory.getKey().str());
  return Names;
}

/// The effective options of \p File as clangTidyMain computes them from \p CL
/// (with the checks torch-tidy may have added), and where `Checks` came from.
std::optional<std::pair<ClangTidyOptions, std::string>>
effectiveOptions(const CommandLine &CL, llvm::StringRef File) {
  ClangTidyOptions Defaults;
  Defaults.Checks = ClangTidyDefaultChecks;
  ClangTidyOptions Overrides;
  Overrides.Checks = CL.Checks;
  std::unique_ptr<ClangTidyOptionsProvider> Provider;
  if (CL.Config || CL.ConfigFile) {
    std::string Text;
    if (CL.ConfigFile) {
      auto Buffer = llvm::MemoryBuffer::getFile(*CL.ConfigFile);
      if (!Buffer)
        return std::nullopt; // clang-tidy reports it
      Text = (*Buffer)->getBuffer().str();
    } else {
      Text = *CL.Config;
    }
    auto Parsed = parseConfiguration(llvm::MemoryBufferRef(Text, "config"));
    if (!Parsed)
      return std::nullopt;
    Provider = std::make_unique<ConfigOptionsProvider>(
        ClangTidyGlobalOptions(), Defaults, *Parsed, Overrides,
        llvm::vfs::getRealFileSystem());
  } else {
    Provider = std::make_unique<FileOptionsProvider>(
        ClangTidyGlobalOptions(), Defaults, Overrides,
        llvm::vfs::getRealFileSystem());
  }
  std::string Origin = "clang-tidy's default";
  ClangTidyOptions Result;
  for (const auto &[Options, Source] : Provider->getRawOptions(File)) {
    if (Options.Checks &&
        Source != ClangTidyOptionsProvider::OptionsSourceTypeDefaultBinary)
      Origin = Source == ClangTidyOptionsProvider::
                             OptionsSourceTypeCheckCommandLineOption
                   ? std::string("--checks")
               : Source == ClangTidyOptionsProvider::
                               OptionsSourceTypeConfigCommandLineOption
                   ? std::string(CL.ConfigFile ? "--config-file" : "--config")
                   : Source;
    Result.mergeWith(Options, 0);
  }
  return std::make_pair(Result, Origin);
}

/// One line on stderr when some source file runs without any torch-* check.
void noteFilesWithoutTorchChecks(const CommandLine &CL) {
  std::vector<std::string> Torch = torchCheckNames();
  std::string First, FirstChecks, FirstOrigin;
  unsigned Count = 0;
  for (const std::string &F : CL.Files) {
    auto Effective = effectiveOptions(CL, absolute(F));
    if (!Effective)
      return;
    const auto &[Options, Origin] = *Effective;
    GlobList Enabled(Options.Checks.value_or(""));
    if (llvm::any_of(Torch,
                     [&](const std::string &N) { return Enabled.contains(N); }))
      continue;
    if (Count++ == 0) {
      First = F;
      FirstChecks = Options.Checks.value_or("");
      FirstOrigin = Origin;
    }
  }
  if (Count == 0)
    return;
  llvm::errs() << "torch-tidy: note: no torch-* check is enabled for '" << First
               << "'";
  if (Count > 1)
    llvm::errs() << " and " << (Count - 1) << " more file"
                 << (Count > 2 ? "s" : "");
  llvm::errs() << " (Checks '" << FirstChecks << "' from " << FirstOrigin
               << "); add 'torch-*' to Checks to enable them\n";
}

} // namespace

int main(int argc, const char **argv) {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "torch-tidy version " TORCH_TIDY_VERSION
          " (LLVM " TORCH_TIDY_LLVM_PACKAGE_VERSION ")\n";
  });
  // Response files (@args.txt) expanded as clangTidyMain would, so that the
  // decisions below see every argument.
  llvm::BumpPtrAllocator Alloc;
  llvm::SmallVector<const char *, 32> Expanded(argv, argv + argc);
  llvm::cl::ExpansionContext Expansion(Alloc, llvm::cl::TokenizeGNUCommandLine);
  if (llvm::Error Err = Expansion.expandResponseFiles(Expanded)) {
    llvm::errs() << "torch-tidy: error: " << llvm::toString(std::move(Err))
                 << "\n";
    return ExitBadInput;
  }
  std::vector<const char *> Args(Expanded.begin(), Expanded.end());
  OwnOptions Own;
  if (std::optional<std::string> Why = takeOwnOptions(Args, Own)) {
    llvm::errs() << "torch-tidy: error: " << *Why << "\n";
    return ExitBadInput;
  }
  if (Own.Summaries && !llvm::sys::fs::is_regular_file(*Own.Summaries)) {
    llvm::errs() << "torch-tidy: error: --summaries: no such file: '"
                 << *Own.Summaries << "'\n";
    return ExitBadInput;
  }
  if (Own.ExportSummaries) {
    std::string Dir =
        llvm::sys::path::parent_path(absolute(*Own.ExportSummaries)).str();
    if (llvm::sys::fs::is_directory(*Own.ExportSummaries) ||
        !llvm::sys::fs::is_directory(Dir)) {
      llvm::errs() << "torch-tidy: error: --export-summaries: cannot write '"
                   << *Own.ExportSummaries << "'\n";
      return ExitBadInput;
    }
  }
  if (Own.Summaries || Own.ExportSummaries)
    clang::tidy::torch::setSummaryFiles(
        Own.Summaries ? absolute(*Own.Summaries) : "",
        Own.ExportSummaries ? absolute(*Own.ExportSummaries) : "");
  CommandLine CL = parseCommandLine(Args);
  if (!CL.InfoOnly)
    if (std::optional<std::string> Why = badArgument(CL)) {
      llvm::errs() << "torch-tidy: error: " << *Why << "\n";
      return ExitBadInput;
    }

  std::string ChecksArg;
  if (!CL.Checks && !CL.Config && !CL.ConfigFile) {
    std::unique_ptr<FileOptionsProvider> Provider = makeFileProvider({});
    if (llvm::none_of(configFiles(CL), [&](const std::string &F) {
          return configFileNamesChecks(*Provider, F);
        })) {
      ChecksArg = std::string("--checks=") + TorchDefaultChecks;
      CL.Checks = TorchDefaultChecks;
      Args.insert(Args.begin() + 1, ChecksArg.c_str());
    }
  }
  if (!CL.InfoOnly)
    noteFilesWithoutTorchChecks(CL);

  std::string ResourceArg;
  std::string Dir =
      torch_tidy::resourceDirOverride(argv[0], reinterpret_cast<void *>(&main));
  if (!Dir.empty()) {
    // Placed before the compile command's own flags, so that a
    // -resource-dir given by the user or by compile_commands.json wins.
    ResourceArg = "--extra-arg-before=-resource-dir=" + Dir;
    Args.insert(Args.begin() + 1, ResourceArg.c_str());
  }
  return clang::tidy::clangTidyMain(static_cast<int>(Args.size()), Args.data());
}
