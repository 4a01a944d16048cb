//===- torch-inplace-on-saved-tensor_test.cpp - check 4 of issue 17 -------===//
//
// torch-inplace-on-saved-tensor: a forward() that rescales a sigmoid's result
// in place (examples/torch-inplace-on-saved-tensor/buggy.cpp) makes the
// training step's backward() throw "one of the variables needed for gradient
// computation has been modified by an inplace operation"; the out-of-place
// twin (fixed.cpp) computes the correct gradient.
//
// The second half checks the facts of the operation table
// (checks/utils/libtorch/Ops.def) the check reads, one line each: which
// operations save their result (SavesOutput), their own input (SavesInput), or
// each operand for the other's gradient (SavesOperands), and the cases the
// check leaves alone on purpose.
//
//===----------------------------------------------------------------------===//

#include "RuntimeSupport.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <functional>
#include <string>

namespace buggy {
torch::Tensor trainStep(torch::Device Device);
} // namespace buggy

namespace fixed {
torch::Tensor trainStep(torch::Device Device);
} // namespace fixed

namespace {

using namespace torch_tidy_runtime;

const char *const Modified =
    "one of the variables needed for gradient computation has been modified "
    "by an inplace operation";

TEST(InplaceOnSavedTensor, BackwardThrowsOnTheModifiedSigmoidResult) {
  std::cout << runDescription() << "\n";
  const std::string Message =
      thrownMessage([] { buggy::trainStep(testDevice()); });
  std::cout << Message.substr(0, Message.find('\n')) << "\n";
  EXPECT_TRUE(contains(Message, Modified));
  // LibTorch 1.13 names the saved tensor's producer by its backward node
  // ("output 0 of SigmoidBackward0"), 2.x by its forward operation ("output 0 of
  // Sigmoid"); the version counter part is the same.
#if TORCH_VERSION_MAJOR < 2
  const char *const Producer = "which is output 0 of SigmoidBackward0, is at ";
#else
  const char *const Producer = "which is output 0 of Sigmoid, is at ";
#endif
  EXPECT_TRUE(contains(Message, std::string(Producer) +
                                    "version 1; expected version 0 instead"));
}

// The fixed twin's gradient equals the one computed by hand:
// out = 2 s(z) * x, z = x W^T + b, loss = mean((out - y)^2).
TEST(InplaceOnSavedTensor, OutOfPlaceTwinHasTheCorrectGradient) {
  const torch::Device Device = testDevice();
  torch::Tensor Grad;
  EXPECT_EQ(thrownMessage([&] { Grad = fixed::trainStep(Device); }), "");
  ASSERT_TRUE(Grad.defined());

  torch::manual_seed(0); // the same draws as trainStep
  torch::nn::Linear Fc(4, 4);
  Fc->to(Device);
  auto X = torch::randn({8, 4}, Device);
  auto Y = torch::randn({8, 4}, Device);
  torch::NoGradGuard NoGrad;
  auto S = torch::sigmoid(torch::addmm(Fc->bias, X, Fc->weight.t()));
  auto Out = 2 * S * X;
  auto DOut = 2 * (Out - Y) / Out.numel();
  auto DZ = DOut * 2 * X * S * (1 - S);
  auto Expected = DZ.t().mm(X);
  EXPECT_TRUE(torch::allclose(Grad, Expected, 1e-5, 1e-6))
      << "autograd " << Grad << "\nby hand " << Expected;
  EXPECT_GT(Grad.abs().sum().item<double>(), 0.0);
}

// --- The operation table's facts ------------------------------------------

struct Case {
  const char *Name;
  std::function<void()> Run;
  bool Throws;
};

void PrintTo(const Case &C, std::ostream *OS) { *OS << C.Name; }

class SavedTensorFacts : public ::testing::TestWithParam<Case> {};

TEST_P(SavedTensorFacts, BackwardThrowsExactlyWhenTheSavedTensorChanged) {
  const Case &C = GetParam();
  const std::string Message = thrownMessage(C.Run);
  if (C.Throws)
    EXPECT_TRUE(contains(Message, Modified));
  else
    EXPECT_EQ(Message, "");
}

torch::Tensor leaf() { return torch::ones({3}, torch::requires_grad()); }
// A tensor with autograd history (not a leaf: a leaf may not be written in
// place at all).
torch::Tensor withHistory() { return leaf() * 1; }
torch::Tensor matrix() { return torch::ones({2, 2}, torch::requires_grad()); }

// The result of a SavesOutput operation, written in place.
Case output(const char *Name, std::function<torch::Tensor(torch::Tensor)> Op) {
  return {Name, [Op] {
            auto Y = Op(withHistory());
            Y.mul_(2);
            Y.sum().backward();
          },
          true};
}

// The input of an operation, written in place.
Case input(const char *Name, std::function<torch::Tensor(torch::Tensor)> Op,
           bool Throws) {
  return {Name, [Op] {
            auto X = withHistory();
            auto Y = Op(X);
            X.mul_(2);
            Y.sum().backward();
          },
          Throws};
}

// The operand without history of a two-tensor operation whose other operand
// has history, written in place.
Case operand(const char *Name,
             std::function<torch::Tensor(torch::Tensor, torch::Tensor)> Op) {
  return {Name, [Op] {
            auto Data = torch::ones({2, 2});
            auto Y = Op(Data, matrix());
            Data.add_(1);
            Y.sum().backward();
          },
          true};
}

INSTANTIATE_TEST_SUITE_P(
    OpTable, SavedTensorFacts,
    ::testing::Values(
        // SavesOutput.
        output("sigmoid_result", [](auto X) { return X.sigmoid(); }),
        output("tanh_result", [](auto X) { return X.tanh(); }),
        output("exp_result", [](auto X) { return X.exp(); }),
        output("relu_result", [](auto X) { return X.relu(); }),
        output("softmax_result", [](auto X) { return X.softmax(0); }),
        output("log_softmax_result", [](auto X) { return X.log_softmax(0); }),
        output("sqrt_result", [](auto X) { return X.sqrt(); }),
        output("rsqrt_result", [](auto X) { return X.rsqrt(); }),
        output("norm_result", [](auto X) { return X.norm(); }),
        // SavesInput.
        input("log_input", [](auto X) { return X.log(); }, true),
        input("sin_input", [](auto X) { return X.sin(); }, true),
        input("cos_input", [](auto X) { return X.cos(); }, true),
        input("abs_input", [](auto X) { return X.abs(); }, true),
        input("square_input", [](auto X) { return X.square(); }, true),
        input("norm_input", [](auto X) { return X.norm(); }, true),
        input("pow_scalar_input", [](auto X) { return X.pow(2); }, true),
        // SavesOperands: the operand without history is saved for the
        // gradient of the other.
        operand("mul_operand", [](auto A, auto B) { return A * B; }),
        operand("div_operand", [](auto A, auto B) { return A / B; }),
        operand("mm_operand", [](auto A, auto B) { return A.mm(B); }),
        operand("matmul_operand", [](auto A, auto B) { return A.matmul(B); }),
        operand("bmm_operand",
                [](auto A, auto B) {
                  return A.unsqueeze(0).bmm(B.unsqueeze(0));
                }),
        operand("linear_operand",
                [](auto A, auto B) {
                  return torch::nn::functional::linear(A, B);
                }),
        // Not saved: the input of operations that save only their result
        // (relu, sigmoid, tanh, exp, sqrt), of add and sum, and of mul by a
        // scalar; an operand whose partner needs no gradient; elu's result
        // (elu saves its input): left out of the table.
        input("relu_input", [](auto X) { return X.relu(); }, false),
        input("sigmoid_input", [](auto X) { return X.sigmoid(); }, false),
        input("tanh_input", [](auto X) { return X.tanh(); }, false),
        input("exp_input", [](auto X) { return X.exp(); }, false),
        input("sqrt_input", [](auto X) { return X.sqrt(); }, false),
        input("add_input", [](auto X) { return X + 1; }, false),
        input("sum_input", [](auto X) { return X.sum(); }, false),
        input("mul_scalar_input", [](auto X) { return X * 2; }, false),
        input("mul_constant_input",
              [](auto X) { return X * torch::ones({3}); }, false),
        Case{"elu_result",
             [] {
               auto Y = torch::elu(withHistory());
               Y.mul_(2);
               Y.sum().backward();
             },
             false},
        // The check's other decisions.
        Case{"clone_of_result",
             [] {
               auto Y = withHistory().sigmoid();
               auto C = Y.clone();
               C.mul_(2);
               Y.sum().backward();
             },
             false},
        Case{"detach_of_result_shares_the_version_counter",
             [] {
               auto Y = withHistory().sigmoid();
               Y.detach().mul_(2);
               Y.sum().backward();
             },
             true},
        Case{"write_under_no_grad_guard_still_counts",
             [] {
               auto Y = withHistory().sigmoid();
               {
                 torch::NoGradGuard Guard;
                 Y.mul_(2);
               }
               Y.sum().backward();
             },
             true},
        Case{"index_assignment",
             [] {
               auto Y = withHistory().sigmoid();
               Y[0] = 0;
               Y.sum().backward();
             },
             true},
        Case{"after_the_backward",
             [] {
               auto Y = withHistory().sigmoid();
               Y.sum().backward();
               Y.detach().mul_(2);
             },
             false},
        Case{"reassigned_in_between",
             [] {
               auto Y = withHistory().sigmoid();
               auto Loss = Y.sum();
               Y = torch::zeros({3});
               Y.mul_(2);
               Loss.backward();
             },
             false},
        Case{"saved_under_no_grad_guard",
             [] {
               auto H = withHistory();
               torch::Tensor Y;
               {
                 torch::NoGradGuard Guard;
                 Y = H.sigmoid();
               }
               Y.mul_(2);
               H.sum().backward();
             },
             false},
        Case{"not_in_the_graph_of_the_pass",
             [] {
               auto H = withHistory();
               auto P = H.softmax(0);
               P.mul_(100);
               H.sum().backward();
             },
             false}),
    [](const ::testing::TestParamInfo<Case> &Info) {
      return std::string(Info.param.Name);
    });

// A module of the user's whose forward ends in sigmoid returns the tensor
// sigmoid saved (test/checks/torch-inplace-on-saved-tensor-user-modules.cpp):
// the caller's in-place write makes the backward pass throw; so does writing
// into the input a Linear layer inside the forward saved.
struct GateImpl : torch::nn::Module {
  GateImpl() { Fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::Tensor forward(const torch::Tensor &X) { return torch::sigmoid(Fc(X)); }
  torch::nn::Linear Fc{nullptr};
};

TEST(InplaceOnSavedTensor, UserModuleResultWrittenInPlaceThrows) {
  const torch::Device Device = testDevice();
  auto Gate = std::make_shared<GateImpl>();
  Gate->to(Device);
  auto Run = [&](bool InPlace, bool WriteInput) {
    auto X = torch::randn({2, 4}, Device);
    auto Y = Gate->forward(X);
    if (InPlace && !WriteInput)
      Y.mul_(2);
    if (InPlace && WriteInput)
      X.add_(1);
    Y.sum().backward();
  };
  EXPECT_TRUE(contains(thrownMessage([&] { Run(true, false); }), Modified));
  EXPECT_TRUE(contains(thrownMessage([&] { Run(true, true); }), Modified));
  EXPECT_EQ(thrownMessage([&] { Run(false, false); }), "");
}

} // namespace
