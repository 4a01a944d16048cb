//===--- TorchTidyMain.cpp - clang-tidy with the torch module -------------===//
//
// bin/torch-tidy: upstream clang-tidy's driver (every upstream module) with the
// torch module linked in. Same command line as clang-tidy, with these
// differences:
//
// - torch-tidy's defaults are the base layer of every configuration, where
//   clang-tidy has its own (the "clang-tidy binary" source, a constant inside
//   clangTidyMain): Checks `clang-diagnostic-*,torch-*` instead of
//   `clang-diagnostic-*,clang-analyzer-*`, and, unless a configuration or
//   --header-filter sets HeaderFilterRegex, the headers of the source files'
//   projects (projectHeaderFilter below; clang-tidy's default is none). As in
//   clang-tidy, the `.clang-tidy` files' Checks and then --checks are appended
//   to the base: `-torch-missing-epsilon` keeps the other torch-* checks,
//   `-*,bugprone-*` turns them all off. clangTidyMain offers no hook for its
//   defaults, so the binary is linked with
//   `--wrap=clang::tidy::ClangTidyOptionsProvider::getOptions` (CMakeLists.txt)
//   and the wrapper below merges the configuration sources with the base layer
//   replaced; `--dump-config` and `--list-checks` show the result.
// - When the effective configuration of a source file enables no torch-*
//   check, one note line on stderr says so and where the `Checks` came from.
// - A source file that does not exist, an --export-fixes file that cannot be
//   written and a `-p` without a compilation database are reported as one
//   line with exit status 2, before any analysis.
// - --quiet also drops clang's "[1/2] Processing file ..." lines.
// - `--explain CHECK` prints the check's page (docs/checks/CHECK.md, embedded
//   at build time); `--explain` alone lists the checks that have one.
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
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#ifdef __linux__
#include <sys/prctl.h>
#endif

using namespace clang::tidy;

// Listed after clang-tidy's own options in --help.
static llvm::cl::extrahelp TorchTidyOptionsHelp(R"(
torch-tidy's own options:
  --explain <check>          print the check's documentation page and exit;
                             --explain alone lists the checks that have one
  --summaries=<file>         read the summaries of the project's other files
                             (written by run-torch-tidy or --export-summaries)
                             for the functions a file only declares
                             (docs/summaries.md)
  --export-summaries=<file>  write the summaries of the analysed files

torch-tidy's defaults (the base that .clang-tidy files and --checks are
appended to, as clang-tidy does with its own): Checks
'clang-diagnostic-*,torch-*', and HeaderFilterRegex matching the headers of
the source file's project (the nearest directory above it with .git, else
with .clang-tidy, compile_commands.json or compile_flags.txt) unless a
configuration or --header-filter sets one. --dump-config shows both.
)");

namespace {

/// torch-tidy's base layer of Checks (clang-tidy's: isClangTidyDefaultChecks).
constexpr const char *TorchDefaultChecks = "clang-diagnostic-*,torch-*";
/// clang-tidy's own default (ClangTidyMain.cpp, DefaultChecks): the Checks of
/// the "clang-tidy binary" source of clangTidyMain's options providers. LLVM 22
/// dropped clang-analyzer-* from it; both spellings are clang-tidy's defaults.
constexpr const char *ClangTidyDefaultChecks =
    "clang-diagnostic-*,clang-analyzer-*";
constexpr const char *ClangTidy22DefaultChecks = "clang-diagnostic-*";
bool isClangTidyDefaultChecks(const std::optional<std::string> &Checks) {
  return Checks && (*Checks == ClangTidyDefaultChecks ||
                    *Checks == ClangTidy22DefaultChecks);
}
/// Headers of LibTorch found through -I inside the project: not the user's
/// (the checks skip them; this keeps the compiler's warnings there out too).
constexpr const char *LibTorchHeadersRegex =
    "(^|/)include/(ATen|c10|caffe2|torch)/";
constexpr int ExitBadInput = 2;

// --- The project of a source file, and its header filter ---------------------

bool existsIn(llvm::StringRef Dir, llvm::StringRef Name) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, Name);
  return llvm::sys::fs::exists(Path);
}

/// The project directory of \p File: the nearest directory above it holding
/// `.git` (a repository's root, also for a subdirectory with a .clang-tidy of
/// its own); outside a repository the nearest holding `.clang-tidy`,
/// `compile_commands.json` or `compile_flags.txt`; else the file's directory.
std::string projectDirectory(llvm::StringRef File) {
  llvm::SmallString<256> Abs(File);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  llvm::StringRef Start = llvm::sys::path::parent_path(Abs);
  static std::mutex Mu;
  static llvm::StringMap<std::string> Cache;
  std::lock_guard<std::mutex> Lock(Mu);
  if (auto It = Cache.find(Start); It != Cache.end())
    return It->second;
  std::string Marked;
  std::string Result;
  for (llvm::StringRef Dir = Start; !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    if (existsIn(Dir, ".git")) {
      Result = Dir.str();
      break;
    }
    if (Marked.empty() &&
        (existsIn(Dir, ".clang-tidy") || existsIn(Dir, "compile_commands.json") ||
         existsIn(Dir, "compile_flags.txt")))
      Marked = Dir.str();
    if (Dir == llvm::sys::path::parent_path(Dir))
      break;
  }
  if (Result.empty())
    Result = Marked.empty() ? Start.str() : Marked;
  Cache[Start] = Result;
  return Result;
}

/// The project directories of the source files on the command line (main).
std::vector<std::string> &commandLineProjects() {
  static std::vector<std::string> Dirs;
  return Dirs;
}

/// HeaderFilterRegex for the headers of the projects of the source files on
/// the command line and of \p File: names under a project directory, and
/// relative names (clang names a header found through a relative -I directory
/// relative to the compile command's directory, which is the project's).
/// System headers stay out (SystemHeaders), and so do LibTorch's
/// (LibTorchHeadersRegex). All the command line's projects, because clang-tidy
/// 19 makes one header filter for the whole run, from the options of the file
/// "" (ClangTidyDiagnosticConsumer's constructor), before any source file.
std::string projectHeaderFilter(llvm::StringRef File) {
  std::vector<std::string> Dirs = commandLineProjects();
  if (!File.empty())
    Dirs.push_back(projectDirectory(File));
  else if (Dirs.empty())
    Dirs.push_back(projectDirectory("dummy")); // as clangTidyMain does
  std::string Regex = "^(";
  llvm::StringSet<> Seen;
  for (const std::string &Dir : Dirs) {
    if (Dir.empty() || Dir == "/")
      return ".*";
    if (Seen.insert(Dir).second)
      Regex += llvm::Regex::escape(Dir) + "/|";
  }
  return Regex + "[^/])";
}

/// Replaces clang-tidy's defaults by torch-tidy's in \p Raw, the configuration
/// sources of \p File. Only the "clang-tidy binary" source that
/// clangTidyMain made (with clang-tidy's default Checks) is changed: the same
/// source type also wraps already effective options (getCheckNames).
void applyTorchDefaults(
    std::vector<ClangTidyOptionsProvider::OptionsSource> &Raw,
    llvm::StringRef File) {
  if (Raw.empty() ||
      Raw.front().second !=
          ClangTidyOptionsProvider::OptionsSourceTypeDefaultBinary ||
      !isClangTidyDefaultChecks(Raw.front().first.Checks))
    return;
  ClangTidyOptions &Defaults = Raw.front().first;
  Defaults.Checks = TorchDefaultChecks;
  bool SetsFilter = false, SetsExclude = false;
  for (const auto &[Options, Source] : llvm::drop_begin(Raw)) {
    SetsFilter |= Options.HeaderFilterRegex.has_value();
    SetsExclude |= Options.ExcludeHeaderFilterRegex.has_value();
  }
  if (SetsFilter)
    return;
  Defaults.HeaderFilterRegex = projectHeaderFilter(File);
  if (!SetsExclude && Defaults.ExcludeHeaderFilterRegex.value_or("").empty())
    Defaults.ExcludeHeaderFilterRegex = LibTorchHeadersRegex;
}

/// The effective options of \p File: what ClangTidyOptionsProvider::getOptions
/// computes (the sources merged in order), on torch-tidy's defaults.
ClangTidyOptions layeredOptions(ClangTidyOptionsProvider &Provider,
                                llvm::StringRef File,
                                std::string *ChecksOrigin = nullptr) {
  std::vector<ClangTidyOptionsProvider::OptionsSource> Raw =
      Provider.getRawOptions(File);
  applyTorchDefaults(Raw, File);
  ClangTidyOptions Result;
  unsigned Priority = 0;
  for (const auto &[Options, Source] : Raw) {
    if (ChecksOrigin && Options.Checks)
      *ChecksOrigin = Source;
    Result.mergeWith(Options, ++Priority);
  }
  return Result;
}

} // namespace

// Every call of ClangTidyOptionsProvider::getOptions in this binary (the
// linker's --wrap; clangTidyMain's --dump-config, --list-checks and the
// options of each file it analyses) comes here.
ClangTidyOptions wrappedGetOptions(ClangTidyOptionsProvider *Self,
                                   llvm::StringRef File) __asm__(
    "__wrap__ZN5clang4tidy24ClangTidyOptionsProvider10getOptionsEN4llvm9StringRefE");
ClangTidyOptions wrappedGetOptions(ClangTidyOptionsProvider *Self,
                                   llvm::StringRef File) {
  return layeredOptions(*Self, File);
}

namespace {

// --- The command line ---------------------------------------------------------

/// torch-tidy's own options, which clang-tidy's driver does not know: taken
/// off the arguments (both `--name=VALUE` and `--name VALUE`).
struct OwnOptions {
  std::optional<std::string> Summaries, ExportSummaries;
  bool Explain = false;
  std::optional<std::string> ExplainCheck;
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
    bool Dashed = I > 0 && Arg.starts_with("-") && Arg != "-";
    if (Dashed && Name == "explain") {
      // The check's name is optional: the next argument when it is not an
      // option.
      Own.Explain = true;
      if (HasValue)
        Own.ExplainCheck = Value.str();
      else if (I + 1 < Args.size() &&
               !llvm::StringRef(Args[I + 1]).starts_with("-"))
        Own.ExplainCheck = Args[++I];
      continue;
    }
    if (Dashed && Name == "summaries")
      Target = &Own.Summaries;
    else if (Dashed && Name == "export-summaries")
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
  std::optional<std::string> BuildPath; // -p
  std::vector<std::string> Files;       // positional arguments before `--`
  bool InfoOnly = false;                // --help, --version, --dump-config, ...
  bool VfsOverlay = false;
  bool Quiet = false;
  bool FixedDatabase = false; // `--` and compiler flags: -p is not read
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
    if (Arg == "--") {
      CL.FixedDatabase = true;
      break;
    }
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
    else if (Name == "p")
      CL.BuildPath = Value;
    else if (Name == "vfsoverlay")
      CL.VfsOverlay = true;
    else if (Name == "quiet" && (!Value || *Value == "true" || *Value == "1"))
      CL.Quiet = true;
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

/// A `-p` that names no compilation database. clang-tidy prints a few lines
/// ("Error while trying to load a compilation database ... Running without
/// flags.") and analyses every file without its flags, which mostly ends in
/// "'torch/torch.h' file not found"; a typo there is bad input. The lookup is
/// clang's own (CompilationDatabase::autoDetectFromDirectory: the directory,
/// then its parents, so `-p build/compile_commands.json` works as in
/// clang-tidy).
std::optional<std::string> missingDatabase(const CommandLine &CL) {
  if (!CL.BuildPath || CL.BuildPath->empty() || CL.FixedDatabase)
    return std::nullopt;
  const std::string &P = *CL.BuildPath;
  if (!llvm::sys::fs::exists(P))
    return "-p: '" + P +
           "' does not exist: no compilation database (compile_commands.json) "
           "found there";
  std::string Error;
  // The JSON parser writes its own messages to stderr: one line of ours instead.
  std::fflush(stderr);
  int SavedStderr = ::dup(STDERR_FILENO);
  int Null = ::open("/dev/null", O_WRONLY);
  if (SavedStderr >= 0 && Null >= 0)
    ::dup2(Null, STDERR_FILENO);
  bool Found = static_cast<bool>(
      clang::tooling::CompilationDatabase::autoDetectFromDirectory(P, Error));
  if (SavedStderr >= 0 && Null >= 0)
    ::dup2(SavedStderr, STDERR_FILENO);
  for (int FD : {SavedStderr, Null})
    if (FD >= 0)
      ::close(FD);
  if (Found)
    return std::nullopt;
  llvm::SmallString<256> Json(P);
  if (llvm::sys::fs::is_directory(P))
    llvm::sys::path::append(Json, "compile_commands.json");
  if (llvm::sys::fs::is_regular_file(Json)) {
    // It exists but does not load: the first line of clang's reason.
    llvm::StringRef Why(Error);
    size_t At = Why.find("json-compilation-database: ");
    Why = At == llvm::StringRef::npos ? "" : Why.substr(At);
    return "-p: cannot read the compilation database '" + Json.str().str() +
           "'" + (Why.empty() ? "" : ": " + Why.split('\n').first.str());
  }
  return "-p: no compilation database (compile_commands.json) found in '" + P +
         "' or its parent directories";
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
  return missingDatabase(CL);
}

// --- The note when no torch-* check runs ---------------------------------------

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

/// The options provider clangTidyMain makes from \p CL (createOptionsProvider
/// in ClangTidyMain.cpp), for the Checks and their origin; nothing when the
/// configuration does not parse (clang-tidy reports that).
std::unique_ptr<ClangTidyOptionsProvider> makeProvider(const CommandLine &CL) {
  ClangTidyOptions Defaults;
  Defaults.Checks = ClangTidyDefaultChecks;
  ClangTidyOptions Overrides;
  Overrides.Checks = CL.Checks;
  if (!CL.Config && !CL.ConfigFile)
    return std::make_unique<FileOptionsProvider>(
        ClangTidyGlobalOptions(), Defaults, Overrides,
        llvm::vfs::getRealFileSystem());
  std::string Text;
  if (CL.ConfigFile) {
    auto Buffer = llvm::MemoryBuffer::getFile(*CL.ConfigFile);
    if (!Buffer)
      return nullptr;
    Text = (*Buffer)->getBuffer().str();
  } else {
    Text = *CL.Config;
  }
  auto Parsed = parseConfiguration(llvm::MemoryBufferRef(Text, "config"));
  if (!Parsed)
    return nullptr;
  return std::make_unique<ConfigOptionsProvider>(
      ClangTidyGlobalOptions(), Defaults, *Parsed, Overrides,
      llvm::vfs::getRealFileSystem());
}

/// Where the effective Checks of a file came from, for the note.
std::string describeOrigin(const CommandLine &CL, llvm::StringRef Source) {
  if (Source == ClangTidyOptionsProvider::OptionsSourceTypeDefaultBinary)
    return "torch-tidy's default";
  if (Source == ClangTidyOptionsProvider::OptionsSourceTypeCheckCommandLineOption)
    return "--checks";
  if (Source ==
      ClangTidyOptionsProvider::OptionsSourceTypeConfigCommandLineOption)
    return CL.ConfigFile ? "--config-file" : "--config";
  return Source.str();
}

/// One line on stderr when some source file runs without any torch-* check.
void noteFilesWithoutTorchChecks(const CommandLine &CL) {
  std::unique_ptr<ClangTidyOptionsProvider> Provider = makeProvider(CL);
  if (!Provider)
    return;
  std::vector<std::string> Torch = torchCheckNames();
  std::string First, FirstChecks, FirstOrigin;
  unsigned Count = 0;
  for (const std::string &F : CL.Files) {
    std::string Origin;
    ClangTidyOptions Options = layeredOptions(*Provider, absolute(F), &Origin);
    GlobList Enabled(Options.Checks.value_or(""));
    if (llvm::any_of(Torch,
                     [&](const std::string &N) { return Enabled.contains(N); }))
      continue;
    if (Count++ == 0) {
      First = F;
      FirstChecks = Options.Checks.value_or("");
      FirstOrigin = describeOrigin(CL, Origin);
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

// --- --explain ------------------------------------------------------------------

#include "TorchTidyCheckDocs.inc" // EmbeddedCheckDocs: docs/checks/*.md

/// `--explain [CHECK]`: the check's page on stdout (0), the checks that have
/// one (0), or one error line (2).
int explain(const std::optional<std::string> &Check) {
  if (!Check) {
    llvm::outs() << "Checks with a page (torch-tidy --explain <check>):\n";
    for (const EmbeddedCheckDoc &Doc : EmbeddedCheckDocs)
      llvm::outs() << "  " << Doc.Name << "\n";
    return 0;
  }
  for (const EmbeddedCheckDoc &Doc : EmbeddedCheckDocs)
    if (*Check == Doc.Name || "torch-" + *Check == Doc.Name) {
      llvm::outs() << llvm::StringRef(reinterpret_cast<const char *>(Doc.Text),
                                      Doc.Size);
      return 0;
    }
  llvm::errs() << "torch-tidy: error: no check named '" << *Check
               << "' (torch-tidy --list-checks shows them)\n";
  return ExitBadInput;
}

// --- --quiet: no "[1/2] Processing file ..." lines --------------------------------

/// clang's ClangTool writes "[N/M] Processing file F." to stderr before each
/// of several source files, whatever clang-tidy's --quiet says.
bool isProgressLine(llvm::StringRef Line) {
  if (!Line.consume_front("["))
    return false;
  llvm::StringRef Done = Line.take_while(llvm::isDigit);
  Line = Line.drop_front(Done.size());
  if (Done.empty() || !Line.consume_front("/"))
    return false;
  llvm::StringRef Total = Line.take_while(llvm::isDigit);
  Line = Line.drop_front(Total.size());
  return !Total.empty() && Line.consume_front("] Processing file ") &&
         Line.ends_with(".");
}

void writeAll(int FD, const char *Data, size_t Size) {
  while (Size > 0) {
    ssize_t N = ::write(FD, Data, Size);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    Data += N;
    Size -= static_cast<size_t>(N);
  }
}

/// Runs the rest of torch-tidy in a child process whose stderr this process
/// forwards without the progress lines. A child process rather than a thread,
/// so that a crash's stack dump still comes through whole. Returns nothing in
/// the child (or when no child could be made), the child's exit status in the
/// parent (which re-raises the signal that ended the child).
std::optional<int> forwardStderrWithoutProgress() {
  int Pipe[2];
  if (::pipe(Pipe) != 0)
    return std::nullopt;
  std::fflush(nullptr);
  pid_t Child = ::fork();
  if (Child < 0) {
    ::close(Pipe[0]);
    ::close(Pipe[1]);
    return std::nullopt;
  }
  if (Child == 0) {
#ifdef __linux__
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
    ::dup2(Pipe[1], STDERR_FILENO);
    ::close(Pipe[0]);
    ::close(Pipe[1]);
    return std::nullopt;
  }
  ::close(Pipe[1]);
  std::string Pending;
  char Buffer[4096];
  for (;;) {
    ssize_t N = ::read(Pipe[0], Buffer, sizeof Buffer);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Pending.append(Buffer, static_cast<size_t>(N));
    size_t Begin = 0;
    for (size_t End; (End = Pending.find('\n', Begin)) != std::string::npos;
         Begin = End + 1)
      if (!isProgressLine(
              llvm::StringRef(Pending.data() + Begin, End - Begin)))
        writeAll(STDERR_FILENO, Pending.data() + Begin, End - Begin + 1);
    Pending.erase(0, Begin);
    // The start of a line that cannot be a progress line goes out now.
    if (!Pending.empty() && Pending[0] != '[') {
      writeAll(STDERR_FILENO, Pending.data(), Pending.size());
      Pending.clear();
    }
  }
  writeAll(STDERR_FILENO, Pending.data(), Pending.size());
  ::close(Pipe[0]);
  int Status = 0;
  while (::waitpid(Child, &Status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(Status))
    return WEXITSTATUS(Status);
  if (WIFSIGNALED(Status)) {
    std::signal(WTERMSIG(Status), SIG_DFL);
    std::raise(WTERMSIG(Status));
    return 128 + WTERMSIG(Status);
  }
  return 1;
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
  if (Own.Explain)
    return explain(Own.ExplainCheck);
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
  for (const std::string &F : CL.Files)
    commandLineProjects().push_back(projectDirectory(F));
  if (!CL.InfoOnly) {
    if (std::optional<std::string> Why = badArgument(CL)) {
      llvm::errs() << "torch-tidy: error: " << *Why << "\n";
      return ExitBadInput;
    }
    noteFilesWithoutTorchChecks(CL);
    if (CL.Quiet && CL.Files.size() > 1)
      if (std::optional<int> Status = forwardStderrWithoutProgress())
        return *Status;
  }

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
