// An unnamed torch::Device parameter is in scope but cannot be passed: the
// fix-it uses the default device, not an empty name (found while reviewing the
// check for the crash hunt; it used to insert ", ").
// RUN: %check_torch_tidy %s torch-load-without-device %t -- -- -isystem %mock_torch

#include <torch/script.h>
#include <string>

void restore(torch::nn::Linear &model, const std::string &path, torch::Device) {
  torch::load(model, path);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(model, path, torch::kCPU);{{$}}
}

// An unnamed one next to a named one: the named one is the only candidate.
void restore_on(torch::nn::Linear &model, const std::string &path,
                torch::Device, torch::Device target) {
  torch::load(model, path);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: torch::load without a device
  // CHECK-FIXES: {{^}}  torch::load(model, path, target);{{$}}
}
