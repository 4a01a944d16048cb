//===--- FixTitles.h - short code-action titles for torch-* fix-its -------===//
//
// clangd titles a fix-it with one edit by the edit ("insert '.detach()'") and
// a fix-it with several edits by the whole diagnostic message. clangd 19 has no
// hook for a program that calls clangdMain to change that (its FeatureModule
// ASTListener cannot be registered from outside clangdMain), so torch-clangd
// rewrites the titles in the LSP messages clangd writes: quick-fix code
// actions of torch-* diagnostics, in textDocument/codeAction results and in
// publishDiagnostics (clangd's inline codeActions extension).
//
// The titles follow the same rules as run-torch-tidy's SARIF fix descriptions
// (fix_title in tool/run-torch-tidy).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_TOOL_CLANGD_FIXTITLES_H
#define TORCH_TIDY_TOOL_CLANGD_FIXTITLES_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace torch_tidy {

/// One edit of a fix-it, in source order.
struct FixEdit {
  bool IsInsertion; // the edit removes nothing
  std::string NewText;
};

/// A short title for a torch-* fix-it, or nothing when clangd's own title
/// (the edit itself, for one edit) is already short.
std::optional<std::string> torchFixTitle(llvm::StringRef Check,
                                         const std::vector<FixEdit> &Edits);

/// Rewrites the titles of torch-* quick fixes in one LSP message (JSON text).
/// Returns nothing when the message is left as it is.
std::optional<std::string> retitleLspMessage(llvm::StringRef Json);

/// Routes this process's stdout through a thread that applies
/// retitleLspMessage to every LSP message (anything else passes unchanged).
class LspOutputFilter {
public:
  /// Does nothing when stdout cannot be redirected.
  LspOutputFilter();
  /// Flushes stdout and waits until everything written is forwarded.
  ~LspOutputFilter();
  LspOutputFilter(const LspOutputFilter &) = delete;
  LspOutputFilter &operator=(const LspOutputFilter &) = delete;

  struct Impl;

private:
  Impl *P = nullptr;
};

} // namespace torch_tidy

#endif
