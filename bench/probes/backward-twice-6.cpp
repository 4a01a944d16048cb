// Report: https://github.com/KupynOrest/DeblurGAN/pull/91
// What went wrong: the GAN step raised "Trying to backward through the graph a second
// time"; the usual repair detaches the generator output for the discriminator step. Only
// correct look-alikes here (no diagnostic expected).
// CHECKS: torch-backward-twice-without-retain-graph
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  NetImpl() { conv = register_module("conv", torch::nn::Conv2d(3, 3, 3)); }
  torch::Tensor forward(const torch::Tensor &x) { return conv(x); }
};
TORCH_MODULE(Net);

void gan_step(Net &G, Net &D, torch::optim::Adam &opt_g, torch::optim::Adam &opt_d,
              const torch::Tensor &blurred, const torch::Tensor &sharp) {
  auto fake = G(blurred);
  // Discriminator: on a detached fake.
  opt_d.zero_grad();
  auto d_loss = (D(fake.detach()).mean() - D(sharp).mean());
  d_loss.backward();
  opt_d.step();
  // Generator: its own pass through D.
  opt_g.zero_grad();
  auto g_loss = -D(fake).mean() + (fake - sharp).abs().mean();
  g_loss.backward();
  opt_g.step();
}

// Two heads over a shared trunk, one backward through the sum.
void multitask_step(Net &trunk, torch::nn::Linear &a, torch::nn::Linear &b,
                    torch::optim::Adam &opt, const torch::Tensor &x) {
  auto h = trunk(x).flatten(1);
  auto la = a(h).pow(2).mean();
  auto lb = b(h).abs().mean();
  opt.zero_grad();
  (la + lb).backward();
  opt.step();
}

// The first pass keeps the graph for the second.
void two_passes_retained(Net &net, const torch::Tensor &x) {
  auto y = net(x);
  auto l1 = y.mean();
  auto l2 = y.pow(2).mean();
  l1.backward({}, true);
  l2.backward();
}
