// Mock of LibTorch's <torch/script.h>: TorchScript modules and torch::jit::load.
#pragma once

#include "torch.h"

namespace c10 {
struct IValue {
  IValue(const at::Tensor &) {}
  at::Tensor toTensor() const { return {}; }
};
} // namespace c10

namespace torch {
namespace jit {
using ExtraFilesMap = std::unordered_map<std::string, std::string>;
using c10::IValue;

struct Method {
  IValue operator()(std::vector<IValue> stack) { return IValue(at::Tensor()); }
};

class Module {
public:
  IValue forward(std::vector<IValue> inputs) { return IValue(at::Tensor()); }
  Method get_method(const std::string &name) const { return Method(); }
  template <typename... Types>
  IValue run_method(const std::string &method_name, Types &&...args) {
    return IValue(at::Tensor());
  }
  IValue operator()(std::vector<IValue> inputs) { return forward(inputs); }
  void eval() {}
  void train(bool on = true) {}
  void to(c10::Device device, c10::ScalarType dtype, bool non_blocking = false) {}
  void to(c10::ScalarType dtype, bool non_blocking = false) {}
  void to(c10::Device device, bool non_blocking = false) {}
  void save(const std::string &filename) const {}
};

Module load(std::istream &in, c10::optional<c10::Device> device = c10::nullopt);
Module load(std::istream &in, c10::optional<c10::Device> device,
            ExtraFilesMap &extra_files);
Module load(const std::string &filename,
            c10::optional<c10::Device> device = c10::nullopt);
Module load(const std::string &filename, c10::optional<c10::Device> device,
            ExtraFilesMap &extra_files);
} // namespace jit
} // namespace torch
