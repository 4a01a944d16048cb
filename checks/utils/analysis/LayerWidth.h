//===--- LayerWidth.h - how many classes, rows, indices a tensor has -*- C++ -*-===//
//
// The sizes a class index is checked against, where the program shows them:
//
//   * classCountOf(scores): the number of classes of a loss's prediction,
//     the size of its class dimension. Known for the output of a
//     torch::nn::Linear (its out_features) or a convolution (its
//     out_channels) whose construction is visible with a constant: a local
//     (`torch::nn::Linear head(16, 10)`), or a member built in place, in a
//     constructor's member initialiser or assigned in a constructor
//     (`fc = register_module("fc", torch::nn::Linear(LinearOptions(16,
//     10)))`; every construction must agree); for a user module's forward,
//     or a function of the user's code, when every returned value agrees;
//     for a factory with constant sizes (`torch::randn({N, 10})`: the size of
//     dimension 1, or 0 for one dimension); through local variables (the
//     definition that reaches the use), elementwise operations that keep the
//     shape (softmax, log_softmax, relu, sigmoid, tanh, dropout, conversions)
//     and `view`/`reshape` whose last size is a constant (the class
//     dimension after flattening `[N, C, ...]` to `[-1, C]`).
//   * embeddingRowsOf(forward): the num_embeddings of a torch::nn::Embedding
//     whose construction is visible likewise.
//   * ignoreIndexOf(loss): the ignore_index a class-index loss uses: the
//     options of the call (`F::CrossEntropyFuncOptions().ignore_index(255)`),
//     the positional argument of at::nll_loss / cross_entropy_loss, the
//     options a loss module was constructed with, or LibTorch's default -100
//     when none is given; unknown when given by a value that is not a
//     constant, or when the module's construction is not visible.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_TIDY_CHECKS_UTILS_ANALYSIS_LAYERWIDTH_H
#define TORCH_TIDY_CHECKS_UTILS_ANALYSIS_LAYERWIDTH_H

#include "utils/analysis/BoundaryGuard.h"
#include "utils/analysis/IntegerValues.h"
#include "clang/AST/Expr.h"
#include <optional>
#include <string>

namespace clang::tidy::torch {

struct LayerWidth {
  int64_t Size = 0;
  /// Where the size was given (the layer's construction, the factory).
  const Expr *Source = nullptr;
  /// What it is, for messages: "out_features of 'fc'", "dimension 1 of the
  /// factory's sizes".
  std::string What;
};

std::optional<LayerWidth> classCountOf(const Expr *Scores,
                                       IntegerValues &Ints,
                                       BoundaryAnalysis &Locals);

std::optional<LayerWidth> embeddingRowsOf(const CallExpr &Forward,
                                          IntegerValues &Ints);

/// nullopt when unknown; the default -100 when none is given.
std::optional<int64_t> ignoreIndexOf(const CallExpr &Loss,
                                     IntegerValues &Ints);

} // namespace clang::tidy::torch

#endif
