// A helper that runs the backward pass on the tensor it is handed (a
// zero_grad/backward/step routine): each call is a pass on the argument.
// RUN: %check_torch_tidy %s torch-backward-twice-without-retain-graph %t -- -- -isystem %mock_torch

#include <torch/torch.h>

void optimize(torch::optim::Optimizer &opt, const torch::Tensor &loss) {
  opt.zero_grad();
  loss.backward();
  opt.step();
}

void retainingStep(torch::optim::Optimizer &opt, const torch::Tensor &loss) {
  opt.zero_grad();
  loss.backward({}, /*retain_graph=*/true);
  opt.step();
}

void maybeStep(torch::optim::Optimizer &opt, const torch::Tensor &loss,
               bool update) {
  if (update)
    loss.backward();
}

// --- Positive ------------------------------------------------------------------

// Actor and critic share a body; each loss goes through the helper.
void actorCritic(torch::nn::Linear body, torch::nn::Linear actor,
                 torch::nn::Linear critic, torch::optim::SGD &actor_opt,
                 torch::optim::SGD &critic_opt, torch::Tensor s,
                 torch::Tensor ret) {
  auto h = torch::relu(body(s));
  auto v = critic(h);
  auto actor_loss = -(torch::log_softmax(actor(h), -1) * (ret - v).detach()).mean();
  auto critic_loss = torch::mse_loss(v, ret);
  optimize(actor_opt, actor_loss);
  optimize(critic_opt, critic_loss);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: backward pass through 'critic_loss' reaches the graph of 'h', whose buffers an earlier backward pass freed; pass retain_graph=true to the first pass, or backpropagate once through the sum: '(actor_loss + critic_loss).backward()' [torch-backward-twice-without-retain-graph]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the first pass, which frees the graph, is here
}

// --- Negative ------------------------------------------------------------------

// The first helper keeps the graph.
void retainedFirst(torch::nn::Linear body, torch::nn::Linear a,
                   torch::nn::Linear b, torch::optim::SGD &opt,
                   torch::Tensor s) {
  auto h = torch::relu(body(s));
  retainingStep(opt, a(h).sum());
  optimize(opt, b(h).sum());
}

// Independent losses.
void independent(torch::nn::Linear a, torch::nn::Linear b,
                 torch::optim::SGD &opt, torch::Tensor s) {
  optimize(opt, a(s).sum());
  optimize(opt, b(s).sum());
}

// A helper whose pass is conditional is not a pass at every call.
void conditionalHelper(torch::nn::Linear body, torch::nn::Linear a,
                       torch::nn::Linear b, torch::optim::SGD &opt,
                       torch::Tensor s) {
  auto h = torch::relu(body(s));
  maybeStep(opt, a(h).sum(), false);
  optimize(opt, b(h).sum());
}
