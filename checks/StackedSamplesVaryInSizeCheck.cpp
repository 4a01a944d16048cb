//===--- StackedSamplesVaryInSizeCheck.cpp --------------------------------===//
//
// torch-stacked-samples-vary-in-size
//
//===----------------------------------------------------------------------===//

#include "StackedSamplesVaryInSizeCheck.h"
#include "utils/analysis/SampleSizes.h"
#include "utils/ast/ASTUtils.h"
#include "utils/libtorch/LibTorch.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

void StackedSamplesVaryInSizeCheck::registerMatchers(MatchFinder *Finder) {
  // `Dataset(...).map(torch::data::transforms::Stack<>())`, or the free
  // torch::data::datasets::map; which data set it stacks is read from the
  // types (stackedDataset), so a template's map is read in its
  // instantiations (the report is at the data set's get(), once).
  UserCode.addMatcher(
      callExpr(isExpansionInUserCode(), callee(functionDecl(hasName("map"))))
          .bind("map"));
  UserCode.registerWith(*Finder);
}

void StackedSamplesVaryInSizeCheck::check(
    const MatchFinder::MatchResult &Result) {
  if (UserCode.handles(Result))
    return;
  const auto *Map = Result.Nodes.getNodeAs<CallExpr>("map");
  const CXXRecordDecl *Dataset = Map ? stackedDataset(*Map) : nullptr;
  const FunctionDecl *Get =
      Dataset ? datasetGetDefinition(*Dataset) : nullptr;
  if (!Get || !Analysed.insert(Get).second)
    return;
  SampleSizes Sizes(*Get, *Result.Context, Parents);
  for (const ExampleTensor &T : returnedExampleTensors(*Get)) {
    const SizeOrigin O = Sizes.sizesOf(T.Value);
    if (!O.varies() ||
        !Reported
             .insert(Result.SourceManager->getExpansionLoc(beginLoc(*T.Value)))
             .second)
      continue;
    diag(beginLoc(*T.Value),
         "the %0 tensor's sizes come from each sample (%1); stacking samples "
         "of different sizes throws 'stack expects each tensor to be equal "
         "size'; resize or pad to fixed sizes")
        << (T.IsTarget ? "target" : "data")
        << (O.K == SizeOrigin::Image ? "image rows and columns"
                                     : "sequence length");
    if (O.Source) {
      const char *Note =
          isLoopStmt(*O.Source)
              ? "its length is the number of iterations of this loop, which "
                "the sample decides"
          : O.K == SizeOrigin::Image
              ? "the image is read here, with the file's rows and columns"
              : "the sequence is read here, with the sample's length";
      diag(beginLoc(*O.Source), Note, DiagnosticIDs::Note);
    }
    diag(beginLoc(*Map), "the samples are stacked here",
         DiagnosticIDs::Note);
  }
}

} // namespace clang::tidy::torch
