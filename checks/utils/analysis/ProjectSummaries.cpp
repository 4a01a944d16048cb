//===--- ProjectSummaries.cpp - function summaries across files -----------===//

#include "utils/analysis/ProjectSummaries.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "utils/analysis/FunctionSummary.h"
#include "utils/analysis/GradMode.h"
#include "utils/analysis/autograd/MemberState.h"
#include "utils/ast/ASTUtils.h"
#include "utils/ast/BodyParents.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Index/USRGeneration.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

namespace clang::tidy::torch {

namespace {

constexpr llvm::StringLiteral Format = "torch-tidy-summaries";
constexpr int64_t Version = 2;
/// Version 1 files (without the facts version 2 added) are read too.
constexpr int64_t OldestVersion = 1;
constexpr llvm::StringLiteral ImportOption = "torch-tidy.Summaries";
constexpr llvm::StringLiteral ExportOption = "torch-tidy.ExportSummaries";
constexpr llvm::StringLiteral DiscoveredName = "torch-tidy-summaries.json";
/// How deep a clearing is followed through the functions a function calls
/// (as torch-missing-zero-grad follows them).
constexpr unsigned MaxClearingDepth = 3;

/// One function entry, as written.
struct FunctionEntry {
  std::string Usr;
  ExternalSummary Summary;
};

/// One call entry, as written.
struct CallEntry {
  std::string Usr, File;
  unsigned Line = 0;
  bool Guarded = false;
  bool operator<(const CallEntry &O) const {
    return std::tie(Usr, File, Line, Guarded) <
           std::tie(O.Usr, O.File, O.Line, O.Guarded);
  }
};

/// A summary file, read.
struct ProjectTable {
  llvm::StringMap<ExternalSummary> Functions;
  llvm::StringMap<std::vector<CallEntry>> Calls;
};

/// What one translation unit reads and writes.
struct UnitState {
  std::shared_ptr<const ProjectTable> Table;
  std::string MainFile;
  /// externalCallsOf's answers, by USR (computed on first use).
  llvm::StringMap<ExternalCalls> CallCounts;
  /// externalSummaryOf's answers, by canonical declaration: a USR is made
  /// once per function, not once per query (checks ask for every callee).
  llvm::DenseMap<const FunctionDecl *, const ExternalSummary *> Answers;
};

/// The process-wide state: the configuration of the command line, the files
/// read, the live translation units, and what this process exports.
struct Registry {
  std::mutex Lock;
  std::string Import, Export;
  bool Discover = false;
  struct Loaded {
    uint64_t Size = 0;
    llvm::sys::TimePoint<> Modified;
    std::shared_ptr<const ProjectTable> Table;
  };
  std::map<std::string, Loaded> Files;
  std::set<std::string> Warned;
  llvm::DenseMap<const ASTContext *, std::shared_ptr<UnitState>> Units;
  /// The entries this process exports, by main file (a run over several
  /// files writes them all), and where.
  std::map<std::string, std::pair<std::vector<FunctionEntry>,
                                  std::vector<CallEntry>>>
      Exported;
};

Registry &registry() {
  static Registry R;
  return R;
}

const char *historyName(HistoryEvidence H) {
  switch (H) {
  case HistoryEvidence::Evident:
    return "history";
  case HistoryEvidence::None:
    return "no-history";
  case HistoryEvidence::Possible:
    break;
  }
  return "unknown";
}

std::optional<HistoryEvidence> historyFromName(llvm::StringRef Name) {
  if (Name == "history")
    return HistoryEvidence::Evident;
  if (Name == "no-history")
    return HistoryEvidence::None;
  if (Name == "unknown")
    return HistoryEvidence::Possible;
  return std::nullopt;
}

const char *readOutName(ExternalSummary::ReadOut R) {
  switch (R) {
  case ExternalSummary::ReadOut::Own:
    return "own";
  case ExternalSummary::ReadOut::Arguments:
    return "arguments";
  case ExternalSummary::ReadOut::None:
    break;
  }
  return "none";
}

const char *modeName(ModeEffect::Kind K) {
  switch (K) {
  case ModeEffect::Eval:
    return "eval";
  case ModeEffect::Train:
    return "train";
  case ModeEffect::Forward:
    break;
  }
  return "forward";
}

std::optional<ModeEffect::Kind> modeFromName(llvm::StringRef Name) {
  if (Name == "eval")
    return ModeEffect::Eval;
  if (Name == "train")
    return ModeEffect::Train;
  if (Name == "forward")
    return ModeEffect::Forward;
  return std::nullopt;
}

void warnOnce(Registry &R, const std::string &Path, const std::string &Why) {
  if (R.Warned.insert(Path + "\n" + Why).second)
    llvm::errs() << "torch-tidy: warning: summaries '" << Path << "': " << Why
                 << "; analysing without them\n";
}

/// Parses a summary file; a message on failure.
llvm::Expected<std::shared_ptr<const ProjectTable>>
parseTable(llvm::StringRef Text) {
  auto Fail = [](const llvm::Twine &Why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Why);
  };
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Text);
  if (!Parsed)
    return Parsed.takeError();
  const llvm::json::Object *Root = Parsed->getAsObject();
  if (!Root)
    return Fail("not a JSON object");
  if (Root->getString("format") != std::optional<llvm::StringRef>(Format))
    return Fail("not a torch-tidy summary file (\"format\" is not \"" +
                Format + "\")");
  if (std::optional<int64_t> V = Root->getInteger("version");
      !V || *V < OldestVersion || *V > Version)
    return Fail("summary format version " +
                llvm::Twine(Root->getInteger("version").value_or(-1)) +
                " is not supported (this torch-tidy reads version " +
                llvm::Twine(Version) + ")");
  auto Table = std::make_shared<ProjectTable>();
  if (const llvm::json::Array *Functions = Root->getArray("functions"))
    for (const llvm::json::Value &V : *Functions) {
      const llvm::json::Object *O = V.getAsObject();
      std::optional<llvm::StringRef> Usr = O ? O->getString("usr") : std::nullopt;
      std::optional<HistoryEvidence> History =
          O ? historyFromName(O->getString("result").value_or(""))
            : std::nullopt;
      if (!Usr || !History)
        return Fail("a function entry without \"usr\" or a known \"result\"");
      ExternalSummary S;
      S.Name = O->getString("name").value_or("").str();
      S.File = O->getString("file").value_or("").str();
      S.Line = static_cast<unsigned>(O->getInteger("line").value_or(0));
      S.Trains = O->getBoolean("trains").value_or(false);
      S.ClearsGradients = O->getBoolean("clears_gradients").value_or(false);
      S.ResultHistory = *History;
      S.ResultFromValues = O->getBoolean("result_from_values").value_or(false);
      if (const llvm::json::Array *Modes = O->getArray("modes"))
        for (const llvm::json::Value &M : *Modes) {
          const llvm::json::Object *MO = M.getAsObject();
          std::optional<int64_t> Param =
              MO ? MO->getInteger("param") : std::nullopt;
          std::optional<ModeEffect::Kind> What =
              MO ? modeFromName(MO->getString("mode").value_or(""))
                 : std::nullopt;
          if (!Param || *Param < 0 || !What)
            return Fail("a mode entry without \"param\" or a known \"mode\"");
          S.Modes.push_back({*What, static_cast<unsigned>(*Param)});
        }
      S.ResultValuesOwn = O->getBoolean("result_values_own").value_or(false);
      llvm::StringRef ReadOut = O->getString("result_read_out").value_or("none");
      S.ResultReadOut = ReadOut == "own"         ? ExternalSummary::ReadOut::Own
                        : ReadOut == "arguments" ? ExternalSummary::ReadOut::Arguments
                                                 : ExternalSummary::ReadOut::None;
      S.ResultSaved = O->getBoolean("result_saved").value_or(false);
      if (const llvm::json::Array *Saved = O->getArray("saved_params"))
        for (const llvm::json::Value &P : *Saved)
          if (std::optional<int64_t> I = P.getAsInteger(); I && *I >= 0)
            S.SavedParams.push_back(static_cast<unsigned>(*I));
      for (auto [Key, Into] :
           {std::pair{"carries", &S.Carries},
            std::pair{"carries_aside", &S.CarriesAside},
            std::pair{"replaces", &S.Replaces}})
        if (const llvm::json::Array *Names = O->getArray(Key))
          for (const llvm::json::Value &N : *Names)
            if (std::optional<llvm::StringRef> Name = N.getAsString())
              Into->push_back(Name->str());
      // The merge keeps the first definition: so does a reader of an
      // unmerged file.
      Table->Functions.try_emplace(*Usr, std::move(S));
    }
  if (const llvm::json::Array *Calls = Root->getArray("calls"))
    for (const llvm::json::Value &V : *Calls) {
      const llvm::json::Object *O = V.getAsObject();
      std::optional<llvm::StringRef> Usr = O ? O->getString("usr") : std::nullopt;
      if (!Usr)
        return Fail("a call entry without \"usr\"");
      CallEntry C;
      C.Usr = Usr->str();
      C.File = O->getString("file").value_or("").str();
      C.Line = static_cast<unsigned>(O->getInteger("line").value_or(0));
      C.Guarded = O->getBoolean("guarded").value_or(false);
      Table->Calls[C.Usr].push_back(std::move(C));
    }
  return std::shared_ptr<const ProjectTable>(std::move(Table));
}

/// The table in \p Path, read again when it changed; null (and one warning)
/// when it cannot be used. Called with the registry locked.
std::shared_ptr<const ProjectTable> load(Registry &R, const std::string &Path) {
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status) ||
      !llvm::sys::fs::is_regular_file(Status)) {
    warnOnce(R, Path, "no such file");
    return nullptr;
  }
  Registry::Loaded &L = R.Files[Path];
  if (L.Table && L.Size == Status.getSize() &&
      L.Modified == Status.getLastModificationTime())
    return L.Table;
  L = Registry::Loaded();
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer) {
    warnOnce(R, Path, Buffer.getError().message());
    return nullptr;
  }
  auto Table = parseTable((*Buffer)->getBuffer());
  if (!Table) {
    warnOnce(R, Path, llvm::toString(Table.takeError()));
    return nullptr;
  }
  L.Size = Status.getSize();
  L.Modified = Status.getLastModificationTime();
  L.Table = *Table;
  return L.Table;
}

/// `torch-tidy-summaries.json` next to the compilation database of \p File,
/// looked up as clangd looks up the database: in the file's directory and
/// its parents, each also as `build/`.
std::string discover(llvm::StringRef File) {
  for (llvm::StringRef Dir = llvm::sys::path::parent_path(File); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    for (const char *Sub : {"", "build"}) {
      llvm::SmallString<256> Candidate(Dir);
      llvm::sys::path::append(Candidate, Sub, DiscoveredName);
      if (llvm::sys::fs::is_regular_file(Candidate))
        return std::string(Candidate);
    }
  }
  return "";
}

std::string mainFileName(const SourceManager &SM) {
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (!Main)
    return "";
  llvm::StringRef Real = Main->getFileEntry().tryGetRealPathName();
  llvm::SmallString<256> Path(Real.empty() ? Main->getName() : Real);
  llvm::sys::fs::make_absolute(Path);
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return std::string(Path);
}

std::shared_ptr<UnitState> unitOf(const ASTContext &Ctx) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  auto It = R.Units.find(&Ctx);
  return It == R.Units.end() ? nullptr : It->second;
}

/// Forgets a translation unit when its ASTContext is destroyed.
void forgetUnit(void *Ctx) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  R.Units.erase(static_cast<const ASTContext *>(Ctx));
}

bool hasExternalLinkage(const FunctionDecl &F) {
  return F.getFormalLinkage() == Linkage::External ||
         F.getFormalLinkage() == Linkage::UniqueExternal;
}

/// True if \p Def is worth a summary another file can read: defined in the
/// main file, external linkage, not a template or a lambda.
bool isExported(const FunctionDecl &Def, const SourceManager &SM) {
  if (Def.isDependentContext() || Def.isTemplateInstantiation() ||
      Def.getDescribedFunctionTemplate() || Def.isInvalidDecl() ||
      Def.isImplicit() || !Def.doesThisDeclarationHaveABody())
    return false;
  if (const auto *M = dyn_cast<CXXMethodDecl>(&Def);
      M && M->getParent()->isLambda())
    return false;
  if (Def.getFormalLinkage() != Linkage::External)
    return false;
  return SM.isInMainFile(SM.getExpansionLoc(Def.getLocation()));
}

/// True if \p S clears gradients, itself or through the user's functions it
/// calls (defined here, or summarised by another file).
bool clearsGradients(const Stmt &S, ASTContext &Ctx, unsigned Depth,
                     llvm::DenseMap<const FunctionDecl *, bool> &Memo) {
  bool Found = false;
  forEachStmt(&S, [&](const Stmt &Child) {
    if (Found)
      return;
    if (isGradientClearing(Child)) {
      Found = true;
      return;
    }
    const auto *Call = dyn_cast<CallExpr>(&Child);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    if (!Callee)
      return;
    if (const FunctionDecl *Def = calledBody(*Call, Ctx)) {
      if (Depth >= MaxClearingDepth)
        return;
      auto [It, Inserted] = Memo.try_emplace(Def, false);
      if (Inserted)
        It->second = clearsGradients(*Def->getBody(), Ctx, Depth + 1, Memo);
      Found = Memo[Def];
    } else if (const ExternalSummary *Other = externalSummaryOf(*Callee)) {
      Found = Other->ClearsGradients;
    }
  });
  return Found;
}

/// What \p F does to the modules its parameters hold, as
/// torch-eval-mode-not-restored summarises a helper: per module parameter,
/// the first event when it is train() (or a forward, when \p F trains), and
/// the last mode change. \p F's own calls, in the order they run (lambda
/// bodies excluded).
llvm::SmallVector<ModeEffect, 2> modeEffectsOf(const FunctionDecl &F,
                                               bool Trains, ASTContext &Ctx) {
  struct Event {
    ModeEffect::Kind What;
    unsigned Param;
  };
  llvm::SmallVector<Event, 8> Events;
  auto Visit = [&](auto &&Self, const Stmt *S) -> void {
    if (!S || isa<LambdaExpr>(S))
      return;
    for (const Stmt *Child : S->children())
      Self(Self, Child);
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      return;
    std::optional<ModeEffect::Kind> What;
    if (isModuleEvalCall(*Call, Ctx))
      What = ModeEffect::Eval;
    else if (isModuleTrainCall(*Call, Ctx))
      What = ModeEffect::Train;
    else if (isModuleForwardCall(*Call) && !isLossCall(*Call))
      What = ModeEffect::Forward;
    if (!What)
      return;
    if (const auto *Param = dyn_cast_or_null<ParmVarDecl>(
            moduleObjectEntity(callObject(*Call))))
      Events.push_back({*What, Param->getFunctionScopeIndex()});
  };
  Visit(Visit, F.getBody());
  llvm::SmallVector<ModeEffect, 2> Effects;
  llvm::SmallVector<unsigned, 2> Params;
  for (const Event &E : Events)
    if (!llvm::is_contained(Params, E.Param))
      Params.push_back(E.Param);
  llvm::sort(Params);
  for (unsigned Param : Params) {
    const Event *First = nullptr, *LastMode = nullptr;
    for (const Event &E : Events)
      if (E.Param == Param) {
        if (!First)
          First = &E;
        if (E.What != ModeEffect::Forward)
          LastMode = &E;
      }
    const bool Entry = First->What == ModeEffect::Train ||
                       (First->What == ModeEffect::Forward && Trains);
    if (Entry)
      Effects.push_back({First->What, Param});
    if (LastMode && !(Entry && LastMode == First))
      Effects.push_back({LastMode->What, Param});
  }
  return Effects;
}

/// The functions of the main file that other files may call.
class ExportedFunctions : public RecursiveASTVisitor<ExportedFunctions> {
public:
  explicit ExportedFunctions(const SourceManager &SM) : SM(SM) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) && D->getLocation().isValid() &&
        !SM.isInMainFile(SM.getExpansionLoc(D->getLocation())) &&
        !isa<NamespaceDecl, LinkageSpecDecl>(D))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitFunctionDecl(FunctionDecl *F) {
    if (isExported(*F, SM))
      Found.push_back(F);
    return true;
  }
  std::vector<const FunctionDecl *> Found;

private:
  const SourceManager &SM;
};

llvm::json::Value toJSON(const FunctionEntry &E) {
  const ExternalSummary &S = E.Summary;
  return llvm::json::Object{{"usr", E.Usr},
                            {"name", S.Name},
                            {"file", S.File},
                            {"line", S.Line},
                            {"trains", S.Trains},
                            {"clears_gradients", S.ClearsGradients},
                            {"result", historyName(S.ResultHistory)},
                            {"result_from_values", S.ResultFromValues},
                            {"modes", [&] {
                               llvm::json::Array Modes;
                               for (const ModeEffect &M : S.Modes)
                                 Modes.push_back(llvm::json::Object{
                                     {"param", M.Param},
                                     {"mode", modeName(M.What)}});
                               return Modes;
                             }()},
                            {"result_values_own", S.ResultValuesOwn},
                            {"result_read_out", readOutName(S.ResultReadOut)},
                            {"result_saved", S.ResultSaved},
                            {"saved_params", llvm::json::Array(S.SavedParams)},
                            {"carries", llvm::json::Array(S.Carries)},
                            {"carries_aside", llvm::json::Array(S.CarriesAside)},
                            {"replaces", llvm::json::Array(S.Replaces)}};
}

llvm::json::Value toJSON(const CallEntry &C) {
  return llvm::json::Object{{"usr", C.Usr},
                            {"file", C.File},
                            {"line", C.Line},
                            {"guarded", C.Guarded}};
}

/// One object per line inside the arrays, keys in the documented order
/// (llvm::json sorts an object's keys: written by hand instead).
void writeObject(llvm::raw_ostream &OS, const llvm::json::Value &V,
                 llvm::ArrayRef<const char *> Keys) {
  const llvm::json::Object &O = *V.getAsObject();
  OS << "{";
  bool First = true;
  for (const char *K : Keys) {
    const llvm::json::Value &V = *O.get(K);
    OS << (First ? "" : ", ") << llvm::json::Value(K) << ": ";
    if (const llvm::json::Array *A = V.getAsArray()) {
      // The modes: {"param": N, "mode": "..."} each, in order.
      // Names and indices: as values.
      OS << "[";
      for (size_t I = 0; I < A->size(); ++I) {
        OS << (I ? ", " : "");
        if ((*A)[I].getAsObject())
          writeObject(OS, (*A)[I], {"param", "mode"});
        else
          OS << (*A)[I];
      }
      OS << "]";
    } else {
      OS << V;
    }
    First = false;
  }
  OS << "}";
}

/// Writes what this process exported so far (every translation unit it
/// analysed) to \p Path: through a temporary file renamed into place.
void writeExport(Registry &R, const std::string &Path) {
  std::vector<FunctionEntry> Functions;
  std::vector<CallEntry> Calls;
  std::set<std::string> Reads;
  for (const auto &[File, Entries] : R.Exported) {
    for (const FunctionEntry &F : Entries.first) {
      Functions.push_back(F);
      Reads.insert(F.Usr);
    }
    for (const CallEntry &C : Entries.second) {
      Calls.push_back(C);
      Reads.insert(C.Usr);
    }
  }
  std::stable_sort(Functions.begin(), Functions.end(),
                   [](const FunctionEntry &A, const FunctionEntry &B) {
                     return std::tie(A.Usr, A.Summary.File, A.Summary.Line) <
                            std::tie(B.Usr, B.Summary.File, B.Summary.Line);
                   });
  // The first definition of a USR wins (an inline function defined in two
  // main files: the merge rule).
  Functions.erase(std::unique(Functions.begin(), Functions.end(),
                              [](const FunctionEntry &A,
                                 const FunctionEntry &B) {
                                return A.Usr == B.Usr;
                              }),
                  Functions.end());
  std::sort(Calls.begin(), Calls.end());

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << "{\n  \"format\": \"" << Format << "\",\n  \"version\": " << Version
     << ",\n  \"functions\": [";
  for (size_t I = 0; I < Functions.size(); ++I) {
    OS << (I ? ",\n    " : "\n    ");
    writeObject(OS, toJSON(Functions[I]),
                {"usr", "name", "file", "line", "trains", "clears_gradients",
                 "result", "result_from_values", "modes", "result_values_own",
                 "result_read_out", "result_saved", "saved_params", "carries",
                 "carries_aside", "replaces"});
  }
  OS << (Functions.empty() ? "],\n" : "\n  ],\n") << "  \"calls\": [";
  for (size_t I = 0; I < Calls.size(); ++I) {
    OS << (I ? ",\n    " : "\n    ");
    writeObject(OS, toJSON(Calls[I]), {"usr", "file", "line", "guarded"});
  }
  OS << (Calls.empty() ? "],\n" : "\n  ],\n") << "  \"reads\": [";
  size_t I = 0;
  for (const std::string &U : Reads)
    OS << (I++ ? ",\n    " : "\n    ") << llvm::json::Value(U);
  OS << (Reads.empty() ? "]\n" : "\n  ]\n") << "}\n";
  OS.flush();

  llvm::SmallString<256> Temp;
  int FD = -1;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(
          Path + ".tmp-%%%%%%%%", FD, Temp)) {
    warnOnce(R, Path, "cannot write: " + EC.message());
    return;
  }
  {
    llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
    Out << Text;
  }
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Path)) {
    llvm::sys::fs::remove(Temp);
    warnOnce(R, Path, "cannot write: " + EC.message());
  }
}

/// Computes this translation unit's entries and writes the export file.
void exportUnit(ASTContext &Ctx, const std::string &MainFile,
                const std::string &Path) {
  const SourceManager &SM = Ctx.getSourceManager();
  ExportedFunctions Visitor(SM);
  Visitor.TraverseDecl(Ctx.getTranslationUnitDecl());

  std::vector<FunctionEntry> Functions;
  llvm::DenseMap<const FunctionDecl *, bool> ClearsMemo;
  for (const FunctionDecl *F : Visitor.Found) {
    FunctionEntry E;
    E.Usr = summaryKeyOf(*F);
    if (E.Usr.empty())
      continue;
    ExternalSummary &S = E.Summary;
    S.Name = F->getQualifiedNameAsString();
    S.File = MainFile;
    S.Line = SM.getExpansionLineNumber(F->getLocation());
    if (const FunctionSummary *Own = FunctionSummary::of(*F, Ctx)) {
      S.Trains = Own->Trains;
      S.ResultHistory = Own->ResultHistory;
      S.ResultFromValues =
          Own->ResultFromValues != nullptr || Own->ResultFromValuesElsewhere;
      S.ResultValuesOwn = S.ResultFromValues && Own->ResultValuesReadOwnHistory;
      if (Own->ResultReadOut || Own->ResultReadOutElsewhere)
        S.ResultReadOut = Own->ResultReadOutOwnHistory
                              ? ExternalSummary::ReadOut::Own
                              : ExternalSummary::ReadOut::Arguments;
      S.ResultSaved = Own->ResultSaver != nullptr || Own->ResultSavedElsewhere;
      for (const AutogradFlow::SavedParameter &P : Own->SavedParams)
        S.SavedParams.push_back(P.Index);
    }
    if (const auto *M = dyn_cast<CXXMethodDecl>(F))
      if (const autograd::MemberStateSummary *State =
              autograd::memberStateOf(*M)) {
        for (const autograd::CarriedMember &C : State->Carried)
          S.Carries.push_back(C.Field->getNameAsString());
        for (const autograd::CarriedMember &C : State->CarriedAside)
          S.CarriesAside.push_back(C.Field->getNameAsString());
        for (const FieldDecl *Field : State->Replaced)
          S.Replaces.push_back(Field->getNameAsString());
        for (auto *Names : {&S.Carries, &S.CarriesAside, &S.Replaces})
          llvm::sort(*Names);
      }
    S.ClearsGradients = clearsGradients(*F->getBody(), Ctx, 0, ClearsMemo);
    S.Modes = modeEffectsOf(*F, S.Trains, Ctx);
    Functions.push_back(std::move(E));
  }

  // The calls of functions declared here and defined elsewhere, and whether
  // a guard is alive around each.
  std::vector<CallEntry> Calls;
  BodyParents Parents;
  GradModeAnalysis GradMode(Parents);
  forEachCallSite(Ctx, [&](const FunctionDecl &Callee, const CallSite &Site) {
    if (!isDefinedElsewhere(Callee, SM) ||
        !SM.isInMainFile(SM.getExpansionLoc(Site.Call->getBeginLoc())))
      return;
    CallEntry C;
    C.Usr = summaryKeyOf(Callee);
    if (C.Usr.empty())
      return;
    C.File = MainFile;
    C.Line = SM.getExpansionLineNumber(Site.Call->getBeginLoc());
    C.Guarded = GradMode.isOffAt(*Site.Call, *Site.Caller);
    Calls.push_back(std::move(C));
  });

  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  R.Exported[MainFile] = {std::move(Functions), std::move(Calls)};
  writeExport(R, Path);
}

} // namespace

void setSummaryFiles(std::string Import, std::string Export) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  R.Import = std::move(Import);
  R.Export = std::move(Export);
}

void setDiscoverSummaries(bool Discover) {
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  R.Discover = Discover;
}

std::string summaryKeyOf(const FunctionDecl &F) {
  llvm::SmallString<128> Usr;
  if (index::generateUSRForDecl(F.getCanonicalDecl(), Usr))
    return "";
  return std::string(Usr);
}

bool isDefinedElsewhere(const FunctionDecl &F, const SourceManager &SM) {
  if (F.isDefined() || F.isDeleted() || !hasExternalLinkage(F) ||
      F.isDependentContext() || F.getBuiltinID() != 0)
    return false;
  return isInUserCode(SM.getExpansionLoc(F.getLocation()), SM);
}

void startTranslationUnitSummaries(ASTContext &Ctx,
                                   const ClangTidyContext *Tidy) {
  Registry &R = registry();
  std::string Import, Export;
  bool Discover = false;
  {
    std::lock_guard<std::mutex> Guard(R.Lock);
    if (R.Units.count(&Ctx))
      return; // Another check of this translation unit started it.
    Import = R.Import;
    Export = R.Export;
    Discover = R.Discover;
  }
  if (Tidy) {
    const ClangTidyOptions::OptionMap &Options =
        Tidy->getOptions().CheckOptions;
    if (auto It = Options.find(ImportOption); Import.empty() &&
                                              It != Options.end())
      Import = It->getValue().Value;
    if (auto It = Options.find(ExportOption); Export.empty() &&
                                              It != Options.end())
      Export = It->getValue().Value;
  }
  auto Unit = std::make_shared<UnitState>();
  Unit->MainFile = mainFileName(Ctx.getSourceManager());
  if (Import.empty() && Discover && !Unit->MainFile.empty())
    Import = discover(Unit->MainFile);
  {
    std::lock_guard<std::mutex> Guard(R.Lock);
    if (!Import.empty())
      Unit->Table = load(R, Import);
    R.Units[&Ctx] = Unit;
  }
  Ctx.AddDeallocation(forgetUnit, &Ctx);
  if (!Export.empty() && !Unit->MainFile.empty())
    exportUnit(Ctx, Unit->MainFile, Export);
}

const ExternalSummary *externalSummaryOf(const FunctionDecl &F) {
  std::shared_ptr<UnitState> Unit = unitOf(F.getASTContext());
  if (!Unit || !Unit->Table ||
      !isDefinedElsewhere(F, F.getASTContext().getSourceManager()))
    return nullptr;
  const FunctionDecl *Canonical = F.getCanonicalDecl();
  {
    std::lock_guard<std::mutex> Guard(registry().Lock);
    if (auto Known = Unit->Answers.find(Canonical);
        Known != Unit->Answers.end())
      return Known->second;
  }
  auto It = Unit->Table->Functions.find(summaryKeyOf(F));
  // The unit holds the table, and the registry holds the unit until the
  // ASTContext is gone: the entry outlives every query of this unit.
  const ExternalSummary *Answer =
      It == Unit->Table->Functions.end() ? nullptr : &It->second;
  std::lock_guard<std::mutex> Guard(registry().Lock);
  Unit->Answers[Canonical] = Answer;
  return Answer;
}

const ExternalCalls *externalCallsOf(const FunctionDecl &F) {
  std::shared_ptr<UnitState> Unit = unitOf(F.getASTContext());
  if (!Unit || !Unit->Table)
    return nullptr;
  const std::string Usr = summaryKeyOf(F);
  auto It = Unit->Table->Calls.find(Usr);
  if (It == Unit->Table->Calls.end())
    return nullptr;
  Registry &R = registry();
  std::lock_guard<std::mutex> Guard(R.Lock);
  auto [Counts, Inserted] = Unit->CallCounts.try_emplace(Usr);
  if (Inserted)
    for (const CallEntry &C : It->second)
      if (C.File != Unit->MainFile)
        ++(C.Guarded ? Counts->second.Guarded : Counts->second.Unguarded);
  if (Counts->second.Guarded + Counts->second.Unguarded == 0)
    return nullptr;
  return &Counts->second;
}

} // namespace clang::tidy::torch
