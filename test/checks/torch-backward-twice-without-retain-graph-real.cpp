// The same patterns against Debian's real LibTorch headers; the fixed file
// must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-backward-twice-without-retain-graph %t -- -- %libtorch_flags

#include <torch/torch.h>

void fixits(torch::nn::Linear &model, torch::nn::CrossEntropyLoss &criterion,
            torch::Tensor x, torch::Tensor y) {
  auto emb = model(x);
  auto l1 = criterion(emb, y);
  auto l2 = emb.pow(2).mean();
  l1.backward();
  l2.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: backward pass through 'l2' reaches the graph of 'emb', whose buffers an earlier backward pass freed; pass retain_graph=true to the first pass, or backpropagate once through the sum: '(l1 + l2).backward()' [torch-backward-twice-without-retain-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass, which frees the graph, is here
  // CHECK-FIXES: {{^}}  l1.backward({}, /*retain_graph=*/true);{{$}}

  auto loss = torch::nn::functional::mse_loss(model->forward(x), y);
  loss.backward(torch::ones_like(loss));
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass
  // CHECK-FIXES: {{^}}  loss.backward(torch::ones_like(loss), /*retain_graph=*/true);{{$}}

  auto out = model(x).sum();
  auto grads = torch::autograd::grad({out}, {x});
  out.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: backward pass through the graph of 'out', which torch::autograd::grad already freed
  // CHECK-MESSAGES: :[[@LINE-3]]:16: note: the first pass
  // CHECK-FIXES: {{^}}  auto grads = torch::autograd::grad({out}, {x}, /*grad_outputs=*/{}, /*retain_graph=*/true);{{$}}

  auto total = model(x).mean();
  torch::autograd::backward({total});
  total.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'total'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass
  // CHECK-FIXES: {{^}}  torch::autograd::backward({total}, /*grad_tensors=*/{}, /*retain_graph=*/true);{{$}}
}

void loop(torch::nn::Linear &model, torch::optim::SGD &opt, torch::Tensor x) {
  auto loss = model(x).sum();
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'loss'
    // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'loss' is computed here, outside the loop
    opt.step();
  }
}

// Not flagged.
void retained(torch::nn::Linear &model, torch::Tensor x) {
  auto emb = model(x);
  auto l1 = emb.sum();
  auto l2 = emb.mean();
  l1.backward({}, c10::optional<bool>(true));
  l2.backward({}, true);
  bool retain = true;
  auto l3 = model(x).sum();
  l3.backward({}, retain);
  l3.backward();
  auto gp = model(x).sum();
  auto g = torch::autograd::grad({gp}, {x}, {}, /*retain_graph=*/true,
                                 /*create_graph=*/true);
  gp.backward();
}

void gan(torch::nn::Sequential &G, torch::nn::Sequential &D,
         torch::optim::Adam &g_opt, torch::optim::Adam &d_opt,
         torch::Tensor real, torch::Tensor noise) {
  auto fake = G->forward(noise);
  auto ones = torch::ones({real.size(0), 1});
  auto zeros = torch::zeros({real.size(0), 1});
  auto d_loss =
      torch::binary_cross_entropy(D->forward(real), ones) +
      torch::binary_cross_entropy(D->forward(fake.detach()), zeros);
  d_opt.zero_grad();
  d_loss.backward();
  d_opt.step();
  auto g_loss = torch::binary_cross_entropy(D->forward(fake), ones);
  g_opt.zero_grad();
  g_loss.backward();
  g_opt.step();
}

void training_loop(torch::nn::Linear &model, torch::optim::SGD &opt,
                   torch::Tensor x, torch::Tensor y) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
  }
}
