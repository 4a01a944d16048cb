// Report: https://github.com/Hsintien-Ng/idinvert_pytorch-reproduced/issues/1
// What went wrong: in the encoder training loop optimizer_D.zero_grad() was missing before
// the discriminator's backward, so its gradients piled up over iterations.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  NetImpl() { fc = register_module("fc", torch::nn::Linear(64, 64)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
};
TORCH_MODULE(Net);

void train_encoder(Net &E, Net &G, Net &D, torch::optim::Adam &optimizer_E,
                   torch::optim::Adam &optimizer_D, const std::vector<torch::Tensor> &reals) {
  for (const auto &x : reals) {
    // Encoder step.
    auto rec = G(E(x));
    auto loss_e = torch::mse_loss(rec, x) - D(rec).mean();
    optimizer_E.zero_grad();
    loss_e.backward();
    optimizer_E.step();

    // Discriminator step: no zero_grad for D.
    auto loss_d = D(rec.detach()).mean() - D(x).mean();
    loss_d.backward();
    optimizer_D.step(); // EXPECT: torch-missing-zero-grad
  }
}
