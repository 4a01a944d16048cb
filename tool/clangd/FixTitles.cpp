//===--- FixTitles.cpp - short code-action titles for torch-* fix-its -----===//

#include "FixTitles.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace torch_tidy {
namespace {

/// 'text' with whitespace runs collapsed, shortened to 60 characters.
std::string quoted(llvm::StringRef Text) {
  std::string Joined;
  bool Space = false;
  for (char C : Text.trim()) {
    if (llvm::isSpace(C)) {
      Space = true;
      continue;
    }
    if (Space)
      Joined += ' ';
    Joined += C;
    Space = false;
  }
  if (Joined.size() > 60)
    Joined = Joined.substr(0, 57) + "...";
  return "'" + Joined + "'";
}

} // namespace

std::optional<std::string> torchFixTitle(llvm::StringRef Check,
                                         const std::vector<FixEdit> &Edits) {
  if (Check == "torch-eval-loop-without-no-grad" && Edits.size() == 1 &&
      Edits[0].IsInsertion &&
      llvm::StringRef(Edits[0].NewText)
          .ltrim()
          .starts_with("torch::NoGradGuard"))
    return "add " + quoted(Edits[0].NewText) + " before the loop";
  if (Edits.size() == 2 && Edits[0].IsInsertion && Edits[1].IsInsertion &&
      Edits[0].NewText == "(") {
    // Parenthesise and append: (x).detach(), (a + b) + eps: name the addition.
    llvm::StringRef Tail = Edits[1].NewText;
    if (!Tail.consume_front(")"))
      Tail.consume_back(")");
    return "insert " + quoted(Tail.trim());
  }
  if (Edits.size() < 2)
    return std::nullopt; // clangd's own title names the edit
  const FixEdit *Changed = nullptr;
  unsigned NonEmpty = 0;
  for (const FixEdit &E : Edits)
    if (!E.NewText.empty()) {
      ++NonEmpty;
      Changed = &E;
    }
  if (NonEmpty == 1 && !Changed->IsInsertion)
    return "change to " + quoted(Changed->NewText);
  return "apply " + std::to_string(Edits.size()) + " edits";
}

namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

/// (line, character) of an LSP position.
std::pair<int64_t, int64_t> position(const Object *Pos) {
  if (!Pos)
    return {0, 0};
  return {Pos->getInteger("line").value_or(0),
          Pos->getInteger("character").value_or(0)};
}

void collectEdits(const Array &TextEdits,
                  std::vector<std::tuple<int64_t, int64_t, FixEdit>> &Out) {
  for (const Value &V : TextEdits) {
    const Object *E = V.getAsObject();
    const Object *Range = E ? E->getObject("range") : nullptr;
    if (!Range)
      continue;
    auto Start = position(Range->getObject("start"));
    auto End = position(Range->getObject("end"));
    std::string Text(E->getString("newText").value_or(""));
    Out.emplace_back(Start.first, Start.second,
                     FixEdit{Start == End, std::move(Text)});
  }
}

/// Retitles one code action of a diagnostic of \p Check; true if changed.
bool retitleAction(Object &Action, llvm::StringRef Check) {
  if (!Check.starts_with("torch-"))
    return false;
  const Object *Edit = Action.getObject("edit");
  if (!Edit)
    return false;
  std::vector<std::tuple<int64_t, int64_t, FixEdit>> Positioned;
  if (const Object *Changes = Edit->getObject("changes"))
    for (const auto &KV : *Changes)
      if (const Array *A = KV.second.getAsArray())
        collectEdits(*A, Positioned);
  if (const Array *DocChanges = Edit->getArray("documentChanges"))
    for (const Value &V : *DocChanges)
      if (const Object *D = V.getAsObject())
        if (const Array *A = D->getArray("edits"))
          collectEdits(*A, Positioned);
  llvm::stable_sort(Positioned, [](const auto &L, const auto &R) {
    return std::tie(std::get<0>(L), std::get<1>(L)) <
           std::tie(std::get<0>(R), std::get<1>(R));
  });
  std::vector<FixEdit> Edits;
  for (auto &P : Positioned)
    Edits.push_back(std::move(std::get<2>(P)));
  std::optional<std::string> Title = torchFixTitle(Check, Edits);
  if (!Title || Action.getString("title") == *Title)
    return false;
  Action["title"] = *Title;
  return true;
}

llvm::StringRef diagnosticCode(const Object &Diag) {
  return Diag.getString("code").value_or("");
}

bool retitle(Value &Message) {
  Object *M = Message.getAsObject();
  if (!M)
    return false;
  bool Changed = false;
  // publishDiagnostics with inline code actions.
  if (M->getString("method") == "textDocument/publishDiagnostics") {
    if (Object *Params = M->getObject("params"))
      if (Array *Diags = Params->getArray("diagnostics"))
        for (Value &D : *Diags)
          if (Object *Diag = D.getAsObject())
            if (Array *Actions = Diag->getArray("codeActions"))
              for (Value &A : *Actions)
                if (Object *Action = A.getAsObject())
                  Changed |= retitleAction(*Action, diagnosticCode(*Diag));
    return Changed;
  }
  // A textDocument/codeAction result: quick fixes name their diagnostic.
  if (Array *Result = M->getArray("result"))
    for (Value &A : *Result)
      if (Object *Action = A.getAsObject())
        if (Action->getString("kind") == "quickfix")
          if (const Array *Diags = Action->getArray("diagnostics"))
            if (!Diags->empty())
              if (const Object *Diag = Diags->front().getAsObject()) {
                std::string Check = diagnosticCode(*Diag).str();
                Changed |= retitleAction(*Action, Check);
              }
  return Changed;
}

bool writeAll(int Fd, llvm::StringRef Data) {
  while (!Data.empty()) {
    ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N <= 0)
      return false;
    Data = Data.drop_front(N);
  }
  return true;
}

/// Forwards \p In to \p Out, rewriting LSP messages; returns at end of input.
void pump(int In, int Out) {
  std::string Buf;
  bool Lsp = true; // until the output turns out not to be LSP framing
  char Chunk[65536];
  const llvm::StringRef Header = "Content-Length:";
  while (true) {
    ssize_t N = ::read(In, Chunk, sizeof(Chunk));
    if (N <= 0)
      break;
    Buf.append(Chunk, N);
    while (Lsp && !Buf.empty()) {
      llvm::StringRef B(Buf);
      if (!B.starts_with_insensitive(Header.take_front(B.size()))) {
        Lsp = false; // --help, --version, ...: plain text
        break;
      }
      size_t End = B.find("\r\n\r\n");
      if (End == llvm::StringRef::npos)
        break;
      size_t Length = 0;
      for (llvm::StringRef Line : llvm::split(B.take_front(End), "\r\n")) {
        auto [Name, Val] = Line.split(':');
        if (Name.trim().equals_insensitive("content-length"))
          Val.trim().getAsInteger(10, Length);
      }
      if (B.size() < End + 4 + Length)
        break;
      llvm::StringRef Body = B.substr(End + 4, Length);
      std::optional<std::string> New = retitleLspMessage(Body);
      if (New)
        writeAll(Out, "Content-Length: " + std::to_string(New->size()) +
                          "\r\n\r\n" + *New);
      else
        writeAll(Out, B.take_front(End + 4 + Length));
      Buf.erase(0, End + 4 + Length);
    }
    if (!Lsp) {
      writeAll(Out, Buf);
      Buf.clear();
    }
  }
  writeAll(Out, Buf);
}

} // namespace

std::optional<std::string> retitleLspMessage(llvm::StringRef Json) {
  if (!Json.contains("torch-"))
    return std::nullopt;
  llvm::Expected<Value> Parsed = llvm::json::parse(Json);
  if (!Parsed) {
    llvm::consumeError(Parsed.takeError());
    return std::nullopt;
  }
  if (!retitle(*Parsed))
    return std::nullopt;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << *Parsed;
  return OS.str();
}

struct LspOutputFilter::Impl {
  int RealStdout = -1;
  std::thread Thread;
  std::once_flag Finished;

  /// Flushes stdout into the pipe, closes its only write end and waits until
  /// the thread has forwarded everything. Runs once: at the end of main, or
  /// at exit() when clangd exits by itself (--version, --help, ...).
  void finish() {
    std::call_once(Finished, [this] {
      llvm::outs().flush();
      std::fflush(stdout);
      ::close(STDOUT_FILENO);
      Thread.join();
      ::dup2(RealStdout, STDOUT_FILENO);
      ::close(RealStdout);
    });
  }
};

namespace {
LspOutputFilter::Impl *ActiveFilter = nullptr;
} // namespace

LspOutputFilter::LspOutputFilter() {
  // Constructed before the exit handler is registered, so that it is
  // destroyed (flushed) only after the handler ran.
  llvm::outs();
  int Pipe[2];
  if (::pipe(Pipe) != 0)
    return;
  int Real = ::dup(STDOUT_FILENO);
  if (Real < 0 || ::dup2(Pipe[1], STDOUT_FILENO) < 0) {
    ::close(Pipe[0]);
    ::close(Pipe[1]);
    if (Real >= 0)
      ::close(Real);
    return;
  }
  ::close(Pipe[1]);
  P = new Impl;
  P->RealStdout = Real;
  P->Thread = std::thread([In = Pipe[0], Real] {
    pump(In, Real);
    ::close(In);
  });
  ActiveFilter = P;
  std::atexit([] {
    if (ActiveFilter)
      ActiveFilter->finish();
  });
}

LspOutputFilter::~LspOutputFilter() {
  if (!P)
    return;
  P->finish();
  ActiveFilter = nullptr;
  delete P;
}

} // namespace torch_tidy
