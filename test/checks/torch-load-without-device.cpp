// RUN: %check_torch_tidy %s torch-load-without-device %t -- -- -isystem %mock_torch

#include <torch/script.h>
#include <sstream>

struct Net : torch::nn::Module {};

void load_module_without_device(Net &net, const std::string &path) {
  torch::load(net, path);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device restores tensors onto the device they were saved from and fails on a host without it; pass the device to load onto [torch-load-without-device]
  // CHECK-FIXES: {{^}}  torch::load(net, path, torch::kCPU);{{$}}
}

void load_tensors_without_device(std::vector<torch::Tensor> &tensors) {
  torch::load(tensors, "tensors.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(tensors, "tensors.pt", torch::kCPU);{{$}}
}

void load_from_stream_and_buffer(Net &net, std::istream &in, const char *data,
                                 size_t size) {
  torch::load(net, in);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(net, in, torch::kCPU);{{$}}
  torch::load(net, data, size);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(net, data, size, torch::kCPU);{{$}}
}

void load_with_explicit_nullopt(Net &net) {
  torch::load(net, "net.pt", c10::nullopt);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(net, "net.pt", torch::kCPU);{{$}}
}

torch::jit::Module load_script(const std::string &path) {
  return torch::jit::load(path);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::jit::load without a device
  // CHECK-FIXES: {{^}}  return torch::jit::load(path, torch::kCPU);{{$}}
}

torch::jit::Module load_script_from_stream(std::istream &in) {
  return torch::jit::load(in);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::jit::load without a device
  // CHECK-FIXES: {{^}}  return torch::jit::load(in, torch::kCPU);{{$}}
}

torch::jit::Module load_script_with_extra_files(const std::string &path) {
  torch::jit::ExtraFilesMap extra;
  return torch::jit::load(path, c10::nullopt, extra);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::jit::load without a device
  // CHECK-FIXES: {{^}}  return torch::jit::load(path, torch::kCPU, extra);{{$}}
}

void archive_without_device(const std::string &path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: InputArchive::load_from without a device
  // CHECK-FIXES: {{^}}  archive.load_from(path, torch::kCPU);{{$}}
}

// The one torch::Device in scope is preferred over the default.
void uses_the_device_in_scope(Net &net, bool cuda) {
  torch::Device device(cuda ? torch::kCUDA : torch::kCPU);
  torch::load(net, "net.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(net, "net.pt", device);{{$}}
}

void device_parameter(Net &net, const torch::Device &target) {
  if (true) {
    torch::load(net, "net.pt");
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: torch::load without a device
    // CHECK-FIXES: {{^}}    torch::load(net, "net.pt", target);{{$}}
  }
}

// Two devices in scope: ambiguous, so the default is used.
void two_devices(Net &net) {
  torch::Device cpu(torch::kCPU);
  torch::Device gpu(torch::kCUDA);
  torch::load(net, "net.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(net, "net.pt", torch::kCPU);{{$}}
}

// A device declared later, or in a sibling block, is not in scope.
void device_not_in_scope(Net &net) {
  {
    torch::Device inner(torch::kCUDA);
  }
  torch::load(net, "a.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(net, "a.pt", torch::kCPU);{{$}}
  torch::Device later(torch::kCUDA);
}

// A lambda sees its own parameters, not the enclosing function's locals.
void in_lambda(Net &net) {
  torch::Device outer(torch::kCUDA);
  auto reload = [&net](const std::string &p) {
    torch::load(net, p);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: torch::load without a device
    // CHECK-FIXES: {{^}}    torch::load(net, p, torch::kCPU);{{$}}
  };
  reload("x.pt");
}

// --- Negative cases: a device is given --------------------------------------

void with_devices(Net &net, std::vector<torch::Tensor> &tensors,
                  std::istream &in, const torch::Device &device,
                  c10::optional<torch::Device> maybe) {
  torch::load(net, "net.pt", torch::kCPU);
  torch::load(net, "net.pt", torch::Device(torch::kCUDA));
  torch::load(net, "net.pt", device);
  torch::load(net, "net.pt", maybe);
  torch::load(tensors, "t.pt", torch::kCUDA);
  torch::load(net, in, device);
  torch::load(net, "buf", 3, device);
  torch::jit::load("m.pt", device);
  torch::jit::load("m.pt", torch::kCPU);
  torch::jit::load(in, torch::Device("cuda:0"));
  torch::jit::ExtraFilesMap extra;
  torch::jit::load("m.pt", device, extra);
  torch::serialize::InputArchive archive;
  archive.load_from("a.pt", device);
  archive.load_from(in, torch::kCPU);
}

// --- Negative cases: not LibTorch's load ------------------------------------

namespace mine {
template <typename T> void load(T &value, const std::string &path) {}
struct Loader {
  void load(const std::string &path) {}
  void load_from(const std::string &path) {}
};
} // namespace mine

namespace torchvision {
namespace jit {
int load(const std::string &path) { return 0; }
} // namespace jit
} // namespace torchvision

void load(Net &net, const std::string &path) {}

void not_libtorch(Net &net) {
  mine::load(net, "net.pt");
  mine::Loader loader;
  loader.load("x");
  loader.load_from("x");
  torchvision::jit::load("x");
  load(net, "net.pt");
}
