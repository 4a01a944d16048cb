// The same patterns against Debian's real LibTorch headers, so the mock cannot
// drift from the real API; the fixed file must compile against them.
// REQUIRES: libtorch
// RUN: %check_torch_tidy --compile-fixed %s torch-load-without-device %t -- -- %libtorch_flags

#include <torch/script.h>
#include <torch/torch.h>

struct Net : torch::nn::Module {};

void load_all(std::shared_ptr<Net> net, std::vector<torch::Tensor> &tensors, std::istream &in,
              const std::string &path) {
  torch::load(net, path);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(net, path, torch::kCPU);{{$}}
  torch::load(tensors, path);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(tensors, path, torch::kCPU);{{$}}
  torch::load(net, in);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(net, in, torch::kCPU);{{$}}
  auto module = torch::jit::load(path);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: torch::jit::load without a device
  // CHECK-FIXES: {{^}}  auto module = torch::jit::load(path, torch::kCPU);{{$}}
  torch::jit::ExtraFilesMap extra;
  auto with_extra = torch::jit::load(path, c10::nullopt, extra);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: torch::jit::load without a device
  // CHECK-FIXES: {{^}}  auto with_extra = torch::jit::load(path, torch::kCPU, extra);{{$}}
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: InputArchive::load_from without a device
  // CHECK-FIXES: {{^}}  archive.load_from(path, torch::kCPU);{{$}}
}

void uses_device_variable(std::shared_ptr<Net> net) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  torch::load(net, "net.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(net, "net.pt", device);{{$}}
}

template <typename Model> struct Trainer {
  Model model;
  void restore(const std::string &path) {
    torch::load(model, path);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: torch::load without a device
    // CHECK-FIXES: {{^}}    torch::load(model, path, torch::kCPU);{{$}}
  }
};
template struct Trainer<std::shared_ptr<Net>>;

// Negative: every overload with a device.
void with_devices(std::shared_ptr<Net> net, std::vector<torch::Tensor> &tensors,
                  std::istream &in, const torch::Device &device) {
  torch::load(net, "net.pt", torch::kCPU);
  torch::load(net, "net.pt", device);
  torch::load(tensors, "t.pt", torch::Device("cuda:0"));
  torch::load(net, in, device);
  torch::jit::load("m.pt", device);
  torch::jit::load(in, torch::kCPU);
  torch::jit::ExtraFilesMap extra;
  torch::jit::load("m.pt", device, extra);
  torch::serialize::InputArchive archive;
  archive.load_from("a.pt", device);
}
