//===--- UserCodeMatchFinder.h - match the user's code only ----*- C++ -*-===//
//
// A file that includes <torch/torch.h> is almost entirely LibTorch's headers:
// about 99% of its AST nodes. clang-tidy's MatchFinder runs every matcher on
// every node of the kind it matches, wherever the node is, so even a matcher
// that starts with a cheap "is this user code?" test is invoked hundreds of
// thousands of times per translation unit for nothing: about 0.1 s per check
// on such a file, more than everything the check does on the user's code.
//
// A check that only ever reports on the user's code adds its matchers to a
// UserCodeMatchFinder instead, and registers it with clang-tidy's finder. The
// only matcher clang-tidy's finder then runs for the check matches the
// translation unit itself, once; from there the check's own matchers run,
// with clang's MatchFinder (the same traversal: template instantiations,
// implicit code), over the top-level declarations that are neither in a
// system header nor in a LibTorch header. In clangd, which already limits the
// traversal to the main file's declarations, that limit is kept.
//
// When every check enabled for the file is a torch-* check (clang's own
// warnings aside, which are no AST checks), clang-tidy's traversal itself is
// then narrowed to those declarations as well: nothing else would look at
// LibTorch's nodes. With a precompiled <torch/torch.h> this is most of a run's
// time (every declaration of the PCH is read back to be traversed): 5.0 s of
// CPU against 1.7 s on an example. Any other check enabled (an upstream one,
// the static analyzer) keeps the whole translation unit.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_LIBTORCH_USERCODEMATCHFINDER_H
#define TORCH_TIDY_CHECKS_UTILS_LIBTORCH_USERCODEMATCHFINDER_H

#include "clang/ASTMatchers/ASTMatchFinder.h"

namespace clang::tidy {
class ClangTidyContext;
} // namespace clang::tidy

namespace clang::tidy::torch {

/// Records the clang-tidy context of the checks being created on this thread
/// (the module's check factories call it). With it, the first torch-* check
/// to see a translation unit can tell whether only torch-* checks run on it;
/// then clang-tidy's own traversal is narrowed to the user's code too (see
/// UserCodeMatchFinder::handles).
void setTidyContextForThisThread(ClangTidyContext *Context);

class UserCodeMatchFinder {
public:
  /// \p Check receives every match of the matchers added here (and must pass
  /// its results to handles() first).
  explicit UserCodeMatchFinder(ast_matchers::MatchFinder::MatchCallback &Check)
      : Check(Check), Forward(Check) {}

  void addMatcher(const ast_matchers::DeclarationMatcher &Matcher) {
    Finder.addMatcher(Matcher, &Forward);
  }
  void addMatcher(const ast_matchers::StatementMatcher &Matcher) {
    Finder.addMatcher(Matcher, &Forward);
  }

  /// Registers the translation-unit matcher with clang-tidy's finder (call
  /// from registerMatchers, after adding the matchers).
  void registerWith(ast_matchers::MatchFinder &ClangTidyFinder);

  /// True if \p Result is the translation unit: then the matchers have run
  /// over the user's code, each match already passed to the check, and the
  /// check has nothing else to do with \p Result.
  bool handles(const ast_matchers::MatchFinder::MatchResult &Result);

private:
  /// Passes the matches to the check, and nothing else: the check's
  /// onStartOfTranslationUnit/onEndOfTranslationUnit are called once, by
  /// clang-tidy's finder, not again around the user-code search (state that
  /// lives for the whole translation unit, such as the graph checks' shared
  /// analyses, must survive it).
  class Forwarder : public ast_matchers::MatchFinder::MatchCallback {
  public:
    explicit Forwarder(ast_matchers::MatchFinder::MatchCallback &Check)
        : Check(Check) {}
    void run(const ast_matchers::MatchFinder::MatchResult &Result) override {
      Check.run(Result);
    }
    std::optional<TraversalKind> getCheckTraversalKind() const override {
      return Check.getCheckTraversalKind();
    }
    StringRef getID() const override { return Check.getID(); }

  private:
    ast_matchers::MatchFinder::MatchCallback &Check;
  };

  ast_matchers::MatchFinder::MatchCallback &Check;
  Forwarder Forward;
  ast_matchers::MatchFinder Finder;
};

} // namespace clang::tidy::torch

#endif
