// Report: https://github.com/pytorch/pytorch/issues/43313
// What went wrong: the training step called `train_img.to(device)` and `target_img.to(device)`
// without assigning the results; the model was on CUDA, the data stayed on the CPU:
// "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same".
#include <torch/torch.h>

struct EncoderImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  EncoderImpl() { conv = register_module("conv", torch::nn::Conv2d(3, 16, 3)); }
  torch::Tensor forward(const torch::Tensor &x) { return conv(x); }
};
TORCH_MODULE(Encoder);

struct DecoderImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  DecoderImpl() { conv = register_module("conv", torch::nn::Conv2d(16, 3, 3)); }
  torch::Tensor forward(const torch::Tensor &x) { return conv(x); }
};
TORCH_MODULE(Decoder);

double train_step(Encoder &encoder, Decoder &decoder, torch::optim::Adam &optimizer,
                  torch::Device device) {
  encoder->to(device);
  decoder->to(device);
  auto dataset = torch::data::datasets::MNIST("data").map(torch::data::transforms::Stack<>());
  auto train_loader = torch::data::make_data_loader(std::move(dataset), 32);
  torch::Tensor loss;
  for (auto &batch : *train_loader) {
    batch.data.to(device); // EXPECT: torch-discarded-tensor-result
    batch.target.to(device); // EXPECT: torch-discarded-tensor-result
    optimizer.zero_grad();
    auto enc_output = encoder(batch.data); // EXPECT: torch-device-mismatch
    auto dec_output = decoder(enc_output);
    loss = torch::mse_loss(dec_output, batch.target); // EXPECT: torch-device-mismatch
    loss.backward();
    optimizer.step();
  }
  return loss.item<double>();
}
