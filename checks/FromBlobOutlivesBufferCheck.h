//===--- FromBlobOutlivesBufferCheck.h - torch-from-blob-outlives-buffer --===//

#ifndef TORCH_TIDY_CHECKS_FROMBLOBOUTLIVESBUFFERCHECK_H
#define TORCH_TIDY_CHECKS_FROMBLOBOUTLIVESBUFFERCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/libtorch/UserCodeMatchFinder.h"
#include "llvm/ADT/DenseSet.h"

namespace clang::tidy::torch {

/// Finds torch::from_blob calls whose tensor outlives the memory it wraps:
/// from_blob neither copies nor owns that memory, and the tensor is returned,
/// stored in a member, a global or a container, or captured by a lambda that
/// outlives the scope, while the memory belongs to a local std::vector, array,
/// cv::Mat or a temporary, with no clone() before it escapes. The tensor is
/// then read from freed or reused memory.
///
/// Fix-it: `.clone()` appended to the returned tensor, where every escape is a
/// return.
class FromBlobOutlivesBufferCheck : public ClangTidyCheck {
public:
  FromBlobOutlivesBufferCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Analysed.clear(); }

private:
  void checkFunction(const FunctionDecl &Fn, ASTContext &Ctx);

  /// The check's matchers, run over the user's code only.
  UserCodeMatchFinder UserCode{*this};
  /// Functions (lambda bodies included) already analysed in this translation
  /// unit.
  llvm::DenseSet<const FunctionDecl *> Analysed;
};

} // namespace clang::tidy::torch

#endif
