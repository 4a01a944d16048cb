// Whose gradients a clearing clears: a training loop that steps two
// optimizers and clears only one model's (or one optimizer's) gradients lets
// the other's accumulate. A module's zero_grad() counts for an optimizer
// whose declaration takes its parameters from that module; when that is not
// known (a parameter, a container filled elsewhere), any clearing counts.
// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -- -- -isystem %mock_torch

#include <torch/torch.h>

#include <vector>

// --- Positive ------------------------------------------------------------------

// A GAN that clears the discriminator's gradients only.
void ganClearsOnlyD(torch::nn::Linear G, torch::nn::Linear D, torch::Tensor real) {
  torch::optim::Adam optG(G->parameters()), optD(D->parameters());
  for (int i = 0; i < 100; ++i) {
    D->zero_grad();
    auto fake = G(torch::randn({4, 4}));
    auto d_loss = D(fake.detach()).mean() - D(real).mean();
    d_loss.backward();
    optD.step();
    auto g_loss = -D(fake).mean();
    g_loss.backward();
    optG.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that clears other gradients but never those of 'optG': each backward() adds to the gradients of all earlier iterations; call optG.zero_grad() in every iteration before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-9]]:5: note: this clears the gradients of another model or optimizer
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

// The same with the discriminator's optimizer.
void ganClearsOnlyOptD(torch::nn::Linear G, torch::nn::Linear D,
                       torch::Tensor real) {
  torch::optim::Adam optG(G->parameters());
  torch::optim::Adam optD(D->parameters());
  int step = 0;
  while (step++ < 100) {
    optD.zero_grad();
    auto fake = G(torch::randn({4, 4}));
    (D(fake.detach()).mean() - D(real).mean()).backward();
    optD.step();
    (-D(fake).mean()).backward();
    optG.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that clears other gradients but never those of 'optG': each backward() adds to the gradients of all earlier iterations; call optG.zero_grad() in every iteration before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-7]]:5: note: this clears the gradients of another model or optimizer
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

// Parameters gathered into a local first: still the encoder's.
void otherModelCleared(torch::nn::Linear encoder, torch::nn::Linear decoder,
                       torch::Tensor x) {
  auto encoder_params = encoder->parameters();
  torch::optim::SGD opt(encoder_params, torch::optim::SGDOptions(0.1).momentum(0.9));
  for (int i = 0; i < 100; ++i) {
    decoder->zero_grad();
    encoder->forward(x).sum().backward();
    opt.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that clears other gradients but never those of 'opt': each backward() adds to the gradients of all earlier iterations; call opt.zero_grad() in every iteration before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: this clears the gradients of another model or optimizer
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

// Networks and optimizers handed in by reference are distinct objects.
void ganByReference(torch::nn::Linear &G, torch::nn::Linear &D,
                    torch::optim::Adam &optG, torch::optim::Adam &optD,
                    torch::Tensor real) {
  for (int i = 0; i < 100; ++i) {
    optD.zero_grad();
    auto fake = G(torch::randn({4, 4}));
    (D(fake.detach()).mean() - D(real).mean()).backward();
    optD.step();
    (-D(fake).mean()).backward();
    optG.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer step in a training loop that clears other gradients but never those of 'optG': each backward() adds to the gradients of all earlier iterations; call optG.zero_grad() in every iteration before backward() [torch-missing-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-7]]:5: note: this clears the gradients of another model or optimizer
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: gradients accumulate across iterations here
  }
}

// --- Negative ------------------------------------------------------------------

// Both networks cleared through their modules.
void ganClearsBoth(torch::nn::Linear G, torch::nn::Linear D, torch::Tensor real) {
  torch::optim::Adam optG(G->parameters()), optD(D->parameters());
  for (int i = 0; i < 100; ++i) {
    D->zero_grad();
    auto fake = G(torch::randn({4, 4}));
    (D(fake.detach()).mean() - D(real).mean()).backward();
    optD.step();
    G->zero_grad();
    (-D(fake).mean()).backward();
    optG.step();
  }
}

// A parameter list filled elsewhere: which model it holds is not known.
void filledList(torch::nn::Linear model, torch::Tensor x) {
  std::vector<torch::Tensor> trainable;
  for (auto &p : model->parameters())
    trainable.push_back(p);
  torch::optim::Adam opt(trainable);
  for (int i = 0; i < 100; ++i) {
    model->zero_grad();
    model->forward(x).sum().backward();
    opt.step();
  }
}

struct EncoderDecoderImpl : torch::nn::Module {
  torch::nn::Linear encoder{4, 4};
  torch::nn::Linear decoder{4, 4};
  torch::Tensor forward(const torch::Tensor &x) { return decoder(encoder(x)); }
};
TORCH_MODULE(EncoderDecoder);

// The whole network cleared, the encoder's parameters stepped.
void parentCleared(EncoderDecoder net, torch::Tensor x) {
  torch::optim::Adam opt(net->encoder->parameters());
  for (int i = 0; i < 100; ++i) {
    net->zero_grad();
    net->forward(x).sum().backward();
    opt.step();
  }
}

// An optimizer handed in: its model is not known here.
void handedIn(torch::nn::Linear model, torch::optim::Optimizer &opt,
              torch::Tensor x) {
  for (int i = 0; i < 100; ++i) {
    model->zero_grad();
    model->forward(x).sum().backward();
    opt.step();
  }
}

// A pointer to the optimizer it steps.
void throughPointer(torch::nn::Linear model, torch::Tensor x) {
  torch::optim::Adam opt(model->parameters());
  torch::optim::Adam *current = &opt;
  for (int i = 0; i < 100; ++i) {
    current->zero_grad();
    model->forward(x).sum().backward();
    opt.step();
  }
}

