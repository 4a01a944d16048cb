// Report: https://github.com/pytorch/pytorch/issues/108568
// What went wrong: the input features were copied into a `new float[]` buffer, wrapped with
// from_blob, and the buffer was deleted before the model ran: the scripted model returned
// garbage scores such as -3.3e+34.
#include <torch/script.h>
#include <algorithm>

float score(torch::jit::Module &model, const std::vector<float> &input_vector) {
  float *features = new float[548];
  std::copy(input_vector.begin(), input_vector.end(), features);
  at::Tensor tensor = torch::from_blob(features, {1, 548}); // EXPECT: torch-from-blob-outlives-buffer
  delete[] features;
  torch::NoGradGuard no_grad;
  std::vector<torch::jit::IValue> stack{tensor};
  at::Tensor score_tensor = model.forward(stack).toTensor();
  return score_tensor.item<float>();
}
