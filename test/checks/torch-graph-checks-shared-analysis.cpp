// The two graph checks share one AutogradFlow analysis per function and
// translation unit (checks/utils/analysis/AutogradFlow.h, AutogradFunctions): with both
// enabled, each reports exactly what it reports alone, in functions, lambdas
// and templates that both select, whichever check asks for the analysis first.
// RUN: %check_torch_tidy --check-suffixes=BACK,TENS %s torch-backward-twice-without-retain-graph,torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch
// RUN: %check_torch_tidy --check-suffixes=TENS,BACK %s torch-tensor-from-values-breaks-graph,torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch
// RUN: %check_torch_tidy_plugin --check-suffixes=BACK,TENS %s torch-backward-twice-without-retain-graph,torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch
// RUN: %check_torch_tidy --check-suffix=BACK %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch
// RUN: %check_torch_tidy --check-suffix=TENS %s torch-tensor-from-values-breaks-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>
#include <vector>

// Both checks select this function and both warn in it.
void both_warn(torch::nn::Linear &model, torch::nn::MSELoss &criterion,
               torch::Tensor x, torch::Tensor y) {
  auto out = model(x);
  std::vector<float> values;
  for (int64_t i = 0; i < out.size(0); ++i)
    values.push_back(out[i].item<float>());
  auto pred = torch::tensor(values);
  // CHECK-MESSAGES-TENS: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history from values read out of a tensor that has it, so no gradient flows back through it; build it from the tensors with torch::stack or torch::cat [torch-tensor-from-values-breaks-graph]
  // CHECK-MESSAGES-TENS: :[[@LINE-3]]:29: note: values read out of a tensor with autograd history here
  auto loss = criterion(pred, y);
  // CHECK-MESSAGES-TENS: :[[@LINE-1]]:15: note: the new tensor is the prediction of this loss
  loss.backward();
  auto reg = out.pow(2).mean();
  reg.backward();
  // CHECK-FIXES-BACK: {{^}}  reg.backward({}, /*retain_graph=*/true);{{$}}
  reg.backward();
  // CHECK-MESSAGES-BACK: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'reg', whose buffers the first pass freed; pass retain_graph=true to the first pass, or recompute 'reg' in between [torch-backward-twice-without-retain-graph]
  // CHECK-MESSAGES-BACK: :[[@LINE-4]]:3: note: the first pass, which frees the graph, is here
}

// The same in a lambda.
void in_lambda(torch::nn::Linear &model, torch::nn::MSELoss &criterion,
               torch::Tensor x, torch::Tensor y) {
  auto step = [&] {
    auto out = model(x);
    auto pred = torch::tensor({out[0].item<float>(), out[1].item<float>()});
    // CHECK-MESSAGES-TENS: :[[@LINE-1]]:17: warning: torch::tensor builds a tensor without autograd history
    // CHECK-MESSAGES-TENS: :[[@LINE-2]]:39: note: values read out of a tensor with autograd history here
    auto loss = criterion(pred, y);
    // CHECK-MESSAGES-TENS: :[[@LINE-1]]:17: note: the new tensor is the prediction of this loss
    loss.backward();
    auto reg = out.pow(2).mean();
    reg.backward();
    // CHECK-FIXES-BACK: {{^}}    reg.backward({}, /*retain_graph=*/true);{{$}}
    reg.backward();
    // CHECK-MESSAGES-BACK: :[[@LINE-1]]:5: warning: second backward pass through the graph of 'reg'
    // CHECK-MESSAGES-BACK: :[[@LINE-4]]:5: note: the first pass, which frees the graph, is here
  };
  step();
}

// A template: analysed once, in its written form; both checks skip its
// instantiations.
template <int N>
void in_template(torch::nn::Linear &model, torch::nn::MSELoss &criterion,
                 torch::Tensor x, torch::Tensor y) {
  auto out = model(x);
  auto pred = torch::tensor({out[N].item<float>()});
  // CHECK-MESSAGES-TENS: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES-TENS: :[[@LINE-2]]:37: note: values read out of a tensor with autograd history here
  auto loss = criterion(pred, y);
  // CHECK-MESSAGES-TENS: :[[@LINE-1]]:15: note: the new tensor is the prediction of this loss
  loss.backward();
  auto reg = out.pow(2).mean();
  reg.backward();
  // CHECK-FIXES-BACK: {{^}}  reg.backward({}, /*retain_graph=*/true);{{$}}
  reg.backward();
  // CHECK-MESSAGES-BACK: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'reg'
  // CHECK-MESSAGES-BACK: :[[@LINE-4]]:3: note: the first pass, which frees the graph, is here
}
void use_template(torch::nn::Linear &model, torch::nn::MSELoss &criterion,
                  torch::Tensor x, torch::Tensor y) {
  in_template<0>(model, criterion, x, y);
  in_template<1>(model, criterion, x, y);
}

// Both checks select this function; only the backward check warns (a size is
// not a value with autograd history).
void only_backward_warns(torch::nn::Linear &model, torch::Tensor x) {
  auto out = model(x);
  auto stats = torch::tensor({out.size(0)});
  auto loss = out.sum() + stats.sum();
  loss.backward();
  // CHECK-FIXES-BACK: {{^}}  loss.backward({}, /*retain_graph=*/true);{{$}}
  loss.backward();
  // CHECK-MESSAGES-BACK: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss'
  // CHECK-MESSAGES-BACK: :[[@LINE-4]]:3: note: the first pass, which frees the graph, is here
}

// Both checks select this function; only the tensor check warns.
torch::Tensor only_tensor_warns(torch::nn::Linear &model, torch::Tensor x) {
  auto out = model(x);
  auto pred = torch::tensor({out[0].item<float>()});
  // CHECK-MESSAGES-TENS: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES-TENS: :[[@LINE-2]]:37: note: values read out of a tensor with autograd history here
  pred.backward();
  // CHECK-MESSAGES-TENS: :[[@LINE-1]]:3: note: the new tensor is backpropagated here, with no other autograd history
  return pred;
}

// Each of these is selected by one check only.
void backward_only(torch::nn::Linear &model, torch::Tensor x) {
  auto loss = model(x).sum();
  loss.backward();
  // CHECK-FIXES-BACK: {{^}}  loss.backward({}, /*retain_graph=*/true);{{$}}
  loss.backward();
  // CHECK-MESSAGES-BACK: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss'
  // CHECK-MESSAGES-BACK: :[[@LINE-4]]:3: note: the first pass, which frees the graph, is here
}
torch::Tensor tensor_only(torch::nn::Linear &model, torch::Tensor x) {
  auto out = model(x);
  auto pred = torch::tensor({out[0].item<float>()});
  // CHECK-MESSAGES-TENS: :[[@LINE-1]]:15: warning: torch::tensor builds a tensor without autograd history
  // CHECK-MESSAGES-TENS: :[[@LINE-2]]:37: note: values read out of a tensor with autograd history here
  return torch::mse_loss(pred, x);
  // CHECK-MESSAGES-TENS: :[[@LINE-1]]:10: note: the new tensor is the prediction of this loss
}

// Both select this one and neither warns.
void neither_warns(torch::nn::Linear &model, torch::Tensor x) {
  auto scale = torch::tensor({2.0f});
  auto loss = (model(x) * scale).sum();
  loss.backward();
}
