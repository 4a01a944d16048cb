// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>

struct Net : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x; }
};

// --- Positive: the same tensor backpropagated twice -----------------------------

void same_tensor_twice(torch::nn::Linear &model, torch::Tensor x,
                       torch::Tensor y) {
  auto out = model(x);
  auto loss = torch::mse_loss(out, y);
  loss.backward();
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss', whose buffers the first pass freed; pass retain_graph=true to the first pass, or recompute 'loss' in between [torch-backward-twice-without-retain-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass, which frees the graph, is here
  // CHECK-FIXES: {{^}}  loss.backward({}, /*retain_graph=*/true);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  loss.backward();{{$}}
}

// backward() itself is evidence of history: a parameter counts too.
void parameter_twice(const torch::Tensor &loss, torch::Tensor grad) {
  loss.backward(grad);
  loss.backward(grad);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass, which frees the graph, is here
  // CHECK-FIXES: {{^}}  loss.backward(grad, /*retain_graph=*/true);{{$}}
}

// An explicit retain_graph=false (or nullopt) is replaced.
void explicit_false(Net &net, torch::Tensor x) {
  auto loss = net.forward(x).sum();
  loss.backward({}, false);
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass
  // CHECK-FIXES: {{^}}  loss.backward({}, true);{{$}}
  auto loss2 = net.forward(x).sum();
  loss2.backward({}, c10::nullopt);
  loss2.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss2'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass
  // CHECK-FIXES: {{^}}  loss2.backward({}, true);{{$}}
}

// --- Positive: backward in a loop on a tensor computed before the loop ----------

void loop_on_tensor_from_before(torch::nn::Linear &model, torch::Tensor x,
                                torch::optim::SGD &opt) {
  auto loss = model(x).sum();
  for (int step = 0; step < 10; ++step) {
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'loss', which was built before the loop and is freed by the first iteration; compute 'loss' inside the loop, or pass retain_graph=true [torch-backward-twice-without-retain-graph]
    // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'loss' is computed here, outside the loop
    opt.step();
  }
}

// The shared part is an intermediate computed before the loop.
void loop_on_intermediate_from_before(torch::nn::Linear &model, torch::Tensor x,
                                      torch::Tensor y) {
  auto features = model(x);
  while (true) {
    auto loss = torch::mse_loss(features, y);
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'features'
    // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'features' is computed here, outside the loop
  }
}

// Only some iterations reach the graph built before the loop: the one that
// takes the branch after another did still fails.
void loop_on_intermediate_conditionally(torch::nn::Linear &model,
                                        torch::Tensor x, bool every) {
  auto features = model(x);
  torch::Tensor total;
  for (int it = 0; it < 10; ++it) {
    auto head = model(x) * 2;
    if (every || it % 2 == 0)
      head = features * 2;
    auto loss = head.sum();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: backward pass in a loop reaches the graph of 'features', which was built before the loop
    // CHECK-MESSAGES: :[[@LINE-9]]:8: note: 'features' is computed here, outside the loop
    total += loss;
  }
}

// --- Positive: torch::autograd::grad, then another pass ----------------------------

void grad_then_backward(Net &net, torch::Tensor x) {
  auto loss = net.forward(x).sum();
  auto grads = torch::autograd::grad({loss}, {x});
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: backward pass through the graph of 'loss', which torch::autograd::grad already freed; pass retain_graph=true to torch::autograd::grad [torch-backward-twice-without-retain-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:16: note: the first pass, which frees the graph, is here
  // CHECK-FIXES: {{^}}  auto grads = torch::autograd::grad({loss}, {x}, /*grad_outputs=*/{}, /*retain_graph=*/true);{{$}}
}

void autograd_backward_twice(Net &net, torch::Tensor x) {
  auto loss = net.forward(x).sum();
  torch::autograd::backward({loss});
  torch::autograd::backward({loss});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: second backward pass through the graph of 'loss'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass
  // CHECK-FIXES: {{^}}  torch::autograd::backward({loss}, /*grad_tensors=*/{}, /*retain_graph=*/true);{{$}}
}

// --- Positive: two losses sharing a non-leaf intermediate ---------------------------

void two_losses_share_embedding(torch::nn::Linear &model, torch::Tensor x,
                                torch::Tensor y) {
  auto emb = model(x);
  auto l1 = torch::mse_loss(emb, y);
  auto l2 = emb.pow(2).mean();
  l1.backward();
  l2.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: backward pass through 'l2' reaches the graph of 'emb', whose buffers an earlier backward pass freed; pass retain_graph=true to the first pass, or backpropagate once through the sum: '(l1 + l2).backward()' [torch-backward-twice-without-retain-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass, which frees the graph, is here
  // CHECK-FIXES: {{^}}  l1.backward({}, /*retain_graph=*/true);{{$}}
}

// The second root is an expression, not a variable.
void shared_through_expression(torch::nn::Linear &model, torch::Tensor x) {
  torch::Tensor hidden = model(x).relu();
  hidden.sum().backward();
  (hidden * 2).mean().backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: backward pass reaches the graph of 'hidden', whose buffers an earlier backward pass freed; pass retain_graph=true to the first pass, or backpropagate once through the sum of the losses, e.g. '(l1 + l2).backward()'
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass
  // CHECK-FIXES: {{^}}  hidden.sum().backward({}, /*retain_graph=*/true);{{$}}
}

// Along one path of a branch.
void second_pass_on_one_path(Net &net, torch::Tensor x, bool extra) {
  auto loss = net.forward(x).mean();
  loss.backward();
  if (extra)
    loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: second backward pass through the graph of 'loss'
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the first pass
  // CHECK-FIXES: {{^}}  loss.backward({}, /*retain_graph=*/true);{{$}}
}

// --- Negative: retain_graph=true on the first pass, in every spelling ---------------

void retained_positional(torch::nn::Linear &model, torch::Tensor x) {
  auto emb = model(x);
  auto l1 = emb.sum();
  auto l2 = emb.mean();
  l1.backward({}, true);
  l2.backward();
}

void retained_optional(torch::nn::Linear &model, torch::Tensor x) {
  auto loss = model(x).sum();
  loss.backward(torch::Tensor(), c10::optional<bool>(true));
  loss.backward();
}

void retained_named_variable(torch::nn::Linear &model, torch::Tensor x) {
  bool retain = true;
  auto loss = model(x).sum();
  loss.backward({}, retain);
  loss.backward();
  const bool keep = true;
  auto loss2 = model(x).sum();
  loss2.backward({}, keep);
  loss2.backward();
}

void retained_by_create_graph(torch::nn::Linear &model, torch::Tensor x) {
  auto loss = model(x).sum();
  loss.backward({}, c10::nullopt, /*create_graph=*/true);
  loss.backward();
  auto out = model(x).sum();
  auto g = torch::autograd::grad({out}, {x}, {}, /*retain_graph=*/true,
                                 /*create_graph=*/true);
  out.backward();
}

void retained_autograd_backward(torch::nn::Linear &model, torch::Tensor x) {
  auto loss = model(x).sum();
  torch::autograd::backward({loss}, {}, true);
  loss.backward();
}

// --- Negative: recomputation between passes, reassignment inside a loop -----------

void recomputed_in_between(torch::nn::Linear &model, torch::Tensor x) {
  auto out = model(x);
  auto l1 = out.sum();
  l1.backward();
  out = model(x);
  auto l2 = out.mean();
  l2.backward();
  l1 = model(x).sum();
  l1.backward();
}

void reassigned_inside_loop(torch::nn::Linear &model, torch::Tensor x,
                            torch::optim::SGD &opt) {
  torch::Tensor loss;
  for (int step = 0; step < 10; ++step) {
    opt.zero_grad();
    loss = model(x).sum();
    loss.backward();
    opt.step();
  }
}

// The loss for the next iteration is computed at the end of the body.
void recomputed_at_end_of_loop(torch::nn::Linear &model, torch::Tensor x,
                               torch::optim::SGD &opt) {
  auto emb = model(x);
  auto loss = emb.pow(2).mean();
  while (loss.item<float>() > 0.01f) {
    opt.zero_grad();
    loss.backward();
    opt.step();
    emb = model(x);
    loss = emb.pow(2).mean();
  }
  auto again = model(x).sum();
  do {
    again.backward();
    again = model(x).sum();
  } while (again.item<float>() > 0);
}

// Reduced from pytorch-cpp's neural_style_transfer: a loss accumulated with
// `+=` in an inner loop (which may run zero times), backpropagated once per
// outer iteration. Each outer iteration starts from a fresh zero tensor.
void accumulated_in_inner_loop(torch::nn::Linear &model, torch::Tensor target,
                               torch::optim::Adam &opt, int layers) {
  for (int step = 0; step < 100; ++step) {
    auto features = model(target);
    auto style_loss = torch::zeros({1});
    for (int f = 0; f < layers; ++f)
      style_loss += torch::mse_loss(features, target);
    auto total_loss = 2 * style_loss;
    opt.zero_grad();
    total_loss.backward();
    opt.step();
  }
}

// Fuzzing false positive, reduced: a tensor declared in the loop and
// reassigned on some iterations only, while a running total keeps the
// previous iteration's (freed) graph alive. Each iteration's tensor is fresh,
// whichever branch assigned it: a freed mark stays with the values of the path
// that freed it.
void conditionally_reassigned_inside_loop(torch::nn::Linear &model,
                                          torch::Tensor x) {
  torch::Tensor total;
  for (int it = 0; it < 10; ++it) {
    auto a0 = model(x);
    auto a1 = a0 + a0;
    if (it % 2 == 0)
      a1 = a0 * a0;
    auto loss = a1.sum();
    loss.backward();
    total += loss;
  }
  torch::Tensor running;
  torch::Tensor a2 = model(x);
  for (int it = 0; it < 10; ++it) {
    if (it % 3 == 0)
      a2 = model(x) * 2;
    else
      a2 = model(x);
    auto loss = a2.mean();
    loss.backward();
    running = running + loss;
  }
}

void computed_inside_loop(torch::nn::Linear &model,
                          const std::vector<torch::Tensor> &batches) {
  for (const auto &batch : batches) {
    auto out = model(batch);
    auto loss = torch::mse_loss(out, batch);
    loss.backward();
  }
}

// --- Negative: sharing only through .detach(), or only leaves / parameters ----------

void shared_only_through_detach(torch::nn::Linear &model, torch::Tensor x) {
  auto emb = model(x);
  auto l1 = emb.sum();
  auto l2 = emb.detach().pow(2).sum() + model(x).mean();
  l1.backward();
  l2.backward();
  auto frozen = emb.detach();
  auto l3 = model(frozen).sum();
  l3.backward();
}

void shared_leaf(torch::Tensor x) {
  auto w = torch::randn({3}, torch::TensorOptions().requires_grad(true));
  auto l1 = (w * x).sum();
  auto l2 = (w * 2).sum();
  l1.backward();
  l2.backward();
}

// A GAN training step: discriminator on a detached fake, then the generator.
void gan_step(torch::nn::Sequential &G, torch::nn::Sequential &D,
              torch::optim::Adam &g_opt, torch::optim::Adam &d_opt,
              torch::Tensor real, torch::Tensor noise, torch::Tensor ones,
              torch::Tensor zeros) {
  auto fake = G(noise);
  auto d_real = torch::binary_cross_entropy(D(real), ones);
  auto d_fake = torch::binary_cross_entropy(D(fake.detach()), zeros);
  auto d_loss = d_real + d_fake;
  d_opt.zero_grad();
  d_loss.backward();
  d_opt.step();
  auto g_loss = torch::binary_cross_entropy(D(fake), ones);
  g_opt.zero_grad();
  g_loss.backward();
  g_opt.step();
}

// The pytorch-cpp GAN tutorial's step: no detach, but the generator's output
// is recomputed before its own pass.
void gan_step_recomputed(torch::nn::Sequential &G, torch::nn::Sequential &D,
                         torch::Tensor real, torch::Tensor z,
                         torch::Tensor ones, torch::Tensor zeros) {
  auto fake_images = G(z);
  auto d_loss = torch::binary_cross_entropy(D(real), ones) +
                torch::binary_cross_entropy(D(fake_images), zeros);
  d_loss.backward();
  fake_images = G(z);
  auto g_loss = torch::binary_cross_entropy(D(fake_images), ones);
  g_loss.backward();
}

// Exclusive branches.
void one_pass_per_branch(Net &net, torch::Tensor x, bool first) {
  auto loss = net.forward(x).sum();
  if (first)
    loss.backward();
  else
    loss.backward();
}

// Summing first is the fix.
void summed(torch::nn::Linear &model, torch::Tensor x) {
  auto emb = model(x);
  auto l1 = emb.sum();
  auto l2 = emb.mean();
  (l1 + l2).backward();
}

// Under a no-grad guard nothing has history.
void no_grad_recompute(torch::nn::Linear &model, torch::Tensor x) {
  torch::Tensor out;
  {
    torch::NoGradGuard guard;
    out = model(x);
  }
  auto l1 = (out * x).sum();
  auto l2 = (out * 2).sum();
  l1.backward();
  l2.backward();
}

// A user type with a backward() method is not LibTorch.
struct FakeLoss {
  void backward() {}
};
void not_a_tensor(FakeLoss loss) {
  loss.backward();
  loss.backward();
}

// A lambda is its own function; its body is analysed on its own.
void lambda_closure(torch::nn::Linear &model, torch::Tensor x) {
  auto closure = [&] {
    auto loss = model(x).sum();
    loss.backward();
    return loss;
  };
  closure();
  closure();
}

// Labels made with full_like/zeros_like from a discriminator's output share no
// graph with it (corpus false positive, reduced: a GAN step whose generator loss
// reuses the labels built for the discriminator's loss).
void gan_labels_from_full_like(torch::nn::Linear &dis, torch::nn::Linear &gen,
                               torch::Tensor real, torch::Tensor z) {
  auto fake = gen(z);
  auto dis_real_out = dis(real);
  auto dis_fake_out = dis(fake.detach());
  auto label_real = torch::full_like(dis_fake_out, 1.0);
  auto label_fake = torch::zeros_like(dis_fake_out);
  auto loss_d = torch::mse_loss(dis_real_out, label_real) +
                torch::mse_loss(dis_fake_out, label_fake);
  loss_d.backward();
  auto gen_out = dis(fake);
  auto loss_g = torch::mse_loss(gen_out, label_real);
  loss_g.backward();
}
