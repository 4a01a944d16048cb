//===- torch-eval-mode-not-restored_test.cpp - runtime proof ---------------===//
//
// torch-eval-mode-not-restored: an epoch loop that validates in eval() mode
// and never calls train() again (examples/torch-eval-mode-not-restored/
// buggy.cpp) trains every epoch after the first in evaluation mode: at the
// second epoch's training forward is_training() is false and dropout passes
// its input through unchanged (no zeros, output equal to the input). The
// fixed twin, which calls train() at the top of each epoch, trains with
// dropout active in every epoch (about half the outputs zeroed).
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>

#include <vector>

namespace buggy {
struct EpochRecord {
  bool Training;       // model->is_training()
  double ZeroFraction; // share of dropout's outputs that were zeroed
  bool Identity;       // dropout passed its input through unchanged
};
std::vector<EpochRecord> run(int Epochs);
} // namespace buggy

namespace fixed {
struct EpochRecord {
  bool Training;       // model->is_training()
  double ZeroFraction; // share of dropout's outputs that were zeroed
  bool Identity;       // dropout passed its input through unchanged
};
std::vector<EpochRecord> run(int Epochs);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

TEST(EvalModeNotRestored, RunDescription) { std::cout << runDescription() << "\n"; }

TEST(EvalModeNotRestored, BuggyTrainsLaterEpochsInEvalMode) {
  std::vector<buggy::EpochRecord> Log = buggy::run(3);
  ASSERT_EQ(Log.size(), 3u);
  for (size_t Epoch = 0; Epoch < Log.size(); ++Epoch)
    std::cout << "buggy epoch " << Epoch << ": is_training() " << Log[Epoch].Training
              << ", dropout zeroed " << Log[Epoch].ZeroFraction << ", identity "
              << Log[Epoch].Identity << "\n";
  // The first epoch trains as intended: modules start in training mode.
  EXPECT_TRUE(Log[0].Training);
  EXPECT_GT(Log[0].ZeroFraction, 0.4);
  EXPECT_LT(Log[0].ZeroFraction, 0.6);
  EXPECT_FALSE(Log[0].Identity);
  // After the first validation: evaluation mode, dropout inactive.
  for (size_t Epoch = 1; Epoch < Log.size(); ++Epoch) {
    EXPECT_FALSE(Log[Epoch].Training) << "epoch " << Epoch;
    EXPECT_EQ(Log[Epoch].ZeroFraction, 0.0) << "epoch " << Epoch;
    EXPECT_TRUE(Log[Epoch].Identity) << "epoch " << Epoch;
  }
}

TEST(EvalModeNotRestored, FixedTrainsEveryEpochWithDropout) {
  std::vector<fixed::EpochRecord> Log = fixed::run(3);
  ASSERT_EQ(Log.size(), 3u);
  for (size_t Epoch = 0; Epoch < Log.size(); ++Epoch) {
    std::cout << "fixed epoch " << Epoch << ": is_training() " << Log[Epoch].Training
              << ", dropout zeroed " << Log[Epoch].ZeroFraction << ", identity "
              << Log[Epoch].Identity << "\n";
    EXPECT_TRUE(Log[Epoch].Training) << "epoch " << Epoch;
    EXPECT_GT(Log[Epoch].ZeroFraction, 0.4) << "epoch " << Epoch;
    EXPECT_LT(Log[Epoch].ZeroFraction, 0.6) << "epoch " << Epoch;
    EXPECT_FALSE(Log[Epoch].Identity) << "epoch " << Epoch;
  }
}

} // namespace
