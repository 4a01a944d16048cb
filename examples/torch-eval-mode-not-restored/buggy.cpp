// torch-eval-mode-not-restored, buggy: the epoch loop validates in eval() mode
// and never switches back to train().
//
// Modules start in training mode, so the first epoch trains as intended. The
// validation at its end calls model->eval(), and nothing calls
// model->train() again: from the second epoch on every training forward runs
// with is_training() false, dropout passes its input through unchanged and
// batch norm normalises with its running statistics (and stops updating
// them). Nothing fails; the model silently trains without regularisation.
// The runtime test (test/runtime/torch-eval-mode-not-restored_test.cpp)
// reads the mode and dropout's output at each epoch's first training forward.
//
// Standalone: buggy [epochs]
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <utility>
#include <vector>

namespace buggy {

// What the first training forward of an epoch saw.
struct EpochRecord {
  bool Training;       // model->is_training()
  double ZeroFraction; // share of dropout's outputs that were zeroed
  bool Identity;       // dropout passed its input through unchanged
};

struct NetImpl : torch::nn::Module {
  NetImpl()
      : Drop(register_module("drop", torch::nn::Dropout(0.5))),
        Fc(register_module("fc", torch::nn::Linear(64, 1))) {}
  torch::Tensor forward(const torch::Tensor &X) {
    Dropped = Drop(X);
    return Fc(Dropped);
  }
  torch::nn::Dropout Drop;
  torch::nn::Linear Fc;
  torch::Tensor Dropped; // dropout's output in the last forward
};
TORCH_MODULE(Net);

using Batches = std::vector<std::pair<torch::Tensor, torch::Tensor>>;

// Trains Model for Epochs epochs, validating after each; returns what each
// epoch's first training forward saw.
std::vector<EpochRecord> fit(Net &Model, const Batches &Train,
                             const Batches &Val, int Epochs) {
  torch::optim::SGD Optimizer(Model->parameters(), /*lr=*/0.01);
  std::vector<EpochRecord> Log;
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    for (size_t I = 0; I < Train.size(); ++I) {
      Optimizer.zero_grad();
      torch::Tensor Out = Model->forward(Train[I].first);
      if (I == 0)
        Log.push_back({Model->is_training(),
                       (Model->Dropped == 0).to(torch::kDouble).mean().item<double>(),
                       torch::equal(Model->Dropped, Train[I].first)});
      torch::mse_loss(Out, Train[I].second).backward();
      Optimizer.step();
    }
    Model->eval();
    torch::NoGradGuard NoGrad;
    double ValLoss = 0;
    for (const auto &Batch : Val)
      ValLoss += torch::mse_loss(Model->forward(Batch.first), Batch.second)
                     .item<double>();
    std::cout << "epoch " << Epoch << ": validation loss " << ValLoss << "\n";
  }
  return Log;
}

// Trains a fresh, seeded model on random data for Epochs epochs.
std::vector<EpochRecord> run(int Epochs) {
  torch::manual_seed(0);
  Net Model;
  Batches Train, Val;
  for (int I = 0; I < 4; ++I) {
    Train.push_back({torch::rand({32, 64}) + 0.1, torch::randn({32, 1})});
    Val.push_back({torch::rand({32, 64}) + 0.1, torch::randn({32, 1})});
  }
  return fit(Model, Train, Val, Epochs);
}

} // namespace buggy

#ifndef TORCH_TIDY_EXAMPLE_NO_MAIN
int main(int argc, char **argv) {
  const int Epochs = argc > 1 ? std::atoi(argv[1]) : 3;
  int EvalEpochs = 0;
  for (const buggy::EpochRecord &R : buggy::run(Epochs))
    EvalEpochs += !R.Training;
  std::cout << EvalEpochs << " of " << Epochs
            << " epochs trained in evaluation mode (dropout off)\n";
  return EvalEpochs == 0 ? 0 : 1;
}
#endif
