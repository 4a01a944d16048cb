// RUN: %check_torch_tidy %s torch-load-without-device %t -- -- -isystem %mock_torch

#include <torch/script.h>

struct Net : torch::nn::Module {};

// Class templates: the trainer's model is dependent, so the call is an
// unresolved lookup in the template; it is recognised and reported once, not
// once per instantiation.
template <typename Model> class Trainer {
public:
  void restore(const std::string &path) {
    torch::load(model_, path);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: torch::load without a device
    // CHECK-FIXES: {{^}}    torch::load(model_, path, torch::kCPU);{{$}}
  }
  template <typename Path> void restore_script(const Path &path) {
    auto module = torch::jit::load(path);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: torch::jit::load without a device
    // CHECK-FIXES: {{^}}    auto module = torch::jit::load(path, torch::kCPU);{{$}}
  }
  // A dependent argument after the path may be the device: no diagnostic.
  template <typename Dev> void restore_on(const std::string &path, Dev dev) {
    torch::load(model_, path, dev);
    torch::jit::load(path, dev);
  }

private:
  Model model_;
};

template class Trainer<Net>;
template class Trainer<Net &>;

void use() {
  Trainer<Net> t;
  t.restore("a.pt");
  t.restore_script(std::string("b.pt"));
  t.restore_on("c.pt", torch::kCPU);
}

// Function templates, instantiated twice: one diagnostic.
template <typename T> void restore_any(T &value) {
  torch::load(value, "value.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(value, "value.pt", torch::kCPU);{{$}}
}
void instantiate(Net &net, std::vector<torch::Tensor> &tensors) {
  restore_any(net);
  restore_any(tensors);
}

// Generic lambdas.
void generic_lambda(Net &net) {
  auto reload = [](auto &m) {
    torch::load(m, "m.pt");
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: torch::load without a device
    // CHECK-FIXES: {{^}}    torch::load(m, "m.pt", torch::kCPU);{{$}}
  };
  reload(net);
}

// Macros: a call passed as a macro argument is the user's own code and gets
// the fix-it; a call inside a macro body is reported at the expansion without
// a fix-it (editing the body would change every expansion).
#define CHECKED(expr) do { expr; } while (0)
#define RESTORE(m, p) torch::load(m, p)

void macros(Net &net) {
  CHECKED(torch::load(net, "a.pt"));
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  CHECKED(torch::load(net, "a.pt", torch::kCPU));{{$}}
  RESTORE(net, "b.pt");
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  CHECKED(torch::load(net, "c.pt", torch::kCPU));
}

// The mock's own helper (torch::mock_internal_reload) loads without a device;
// with -isystem it is a system header and silent by construction. See
// torch-load-without-device-include-I.cpp for -I.
