// Mock of LibTorch's <torch/torch.h> for fast lit tests.
//
// It mirrors the real headers' *names and namespaces* (at::Tensor with torch::
// re-exporting at:: through `using namespace at`, c10::Device, c10::optional,
// torch::nn::ModuleHolder, torch::serialize::InputArchive, ...) so that checks
// matching qualified names behave the same on both. Tests with REQUIRES: libtorch
// run the same patterns against the real headers so the two cannot drift.
// Keep declarations in the namespaces the real headers use; add what you need.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <istream>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace c10 {
struct nullopt_t {
  constexpr explicit nullopt_t(int) {}
};
constexpr nullopt_t nullopt{0};

template <typename T> class optional {
public:
  constexpr optional() noexcept {}
  constexpr optional(nullopt_t) noexcept {}
  template <typename U = T> constexpr optional(U &&) {}
  bool has_value() const { return false; }
  explicit operator bool() const { return false; }
  T &operator*();
  T *operator->();
};

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

struct Device final {
  /* implicit */ Device(DeviceType type, int8_t index = -1) {}
  /* implicit */ Device(const std::string &device_string) {}
  bool is_cuda() const { return false; }
};

enum class ScalarType : int8_t { Float, Double, Long, Byte };
// torch-from-blob-outlives-buffer: dtypes as the real <c10/core/ScalarType.h>
// names them.
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kLong = ScalarType::Long;

class Scalar {
public:
  Scalar(double) {}
  Scalar(int) {}
  Scalar(int64_t) {}
  double toDouble() const { return 0.0; }
};

struct GradMode {
  static bool is_enabled() { return true; }
  static void set_enabled(bool enabled) {}
};
struct AutoGradMode {
  AutoGradMode(bool enabled) {}
  ~AutoGradMode() {}
};
struct NoGradGuard : public AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};
struct InferenceMode {
  InferenceMode(bool enabled = true) {}
};

// As in the real <c10/core/TensorOptions.h>: options convert from a dtype or
// a device; the free builders start a chain.
struct TensorOptions {
  TensorOptions() {}
  TensorOptions(ScalarType) {}
  TensorOptions(Device) {}
  TensorOptions(DeviceType) {}
  TensorOptions requires_grad(bool = true) const { return *this; }
  TensorOptions dtype(ScalarType) const { return *this; }
  TensorOptions device(Device) const { return *this; }
  TensorOptions device_index(int16_t) const { return *this; }
};
inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) {
  return TensorOptions().requires_grad(r);
}
} // namespace c10

namespace at {
using c10::Device;
using c10::DeviceType;
using c10::kCPU;
using c10::kCUDA;
using c10::Scalar;
using c10::ScalarType;
using c10::kByte;
using c10::kFloat;
using c10::kFloat32;
using c10::kDouble;
using c10::kLong;
using AutoGradMode = c10::AutoGradMode;
using NoGradGuard = c10::NoGradGuard;

using c10::TensorOptions;
using c10::device;
using c10::dtype;
using c10::requires_grad;

class Tensor;

// As in the real <ATen/core/TensorAccessor.h>: element access into a tensor's
// storage on the host.
template <typename T, size_t N> class TensorAccessor {
public:
  TensorAccessor<T, N - 1> operator[](int64_t) const { return {}; }
  int64_t size(int64_t) const { return 0; }
};
template <typename T> class TensorAccessor<T, 1> {
public:
  T &operator[](int64_t) const { static T value; return value; }
  int64_t size(int64_t) const { return 0; }
};

class TensorBase {
public:
  int64_t dim() const { return 0; }
  int64_t numel() const { return 0; }
  int64_t size(int64_t dim) const { return 0; }
  bool defined() const { return true; }
  bool requires_grad() const { return false; }
  void reset() {}
  template <typename T> T *data_ptr() const { return nullptr; }
  template <typename T, size_t N> TensorAccessor<T, N> accessor() const & {
    return {};
  }
};

class Tensor : public TensorBase {
public:
  Tensor() {}
  Tensor(const Tensor &) = default;
  // torch-inplace-on-saved-tensor: assigning to an lvalue rebinds the handle,
  // assigning to a temporary (`t[0] = v`) writes in place (fill_/copy_).
  Tensor &operator=(const Tensor &) & = default;
  Tensor &operator=(Scalar) && { return *this; }
  Tensor &operator=(const Tensor &) && { return *this; }

  // Autograd.
  void backward(const Tensor &gradient = {},
                c10::optional<bool> retain_graph = c10::nullopt,
                bool create_graph = false,
                c10::optional<std::vector<Tensor>> inputs = c10::nullopt) const {}
  Tensor detach() const { return *this; }
  Tensor &detach_() { return *this; }
  Tensor data() const { return *this; }
  Tensor grad() const { return *this; }
  Tensor &mutable_grad() const { static Tensor g; return g; }
  Tensor &requires_grad_(bool = true) { return *this; }
  template <typename T> T item() const { return T(); }
  Scalar item() const { return Scalar(0.0); }

  // Conversions.
  // As in the real TensorBody.h: a device converts to TensorOptions.
  Tensor to(TensorOptions options = {}, bool non_blocking = false,
            bool copy = false) const { return *this; }
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false,
            bool copy = false) const { return *this; }
  Tensor to(ScalarType dtype, bool non_blocking = false,
            bool copy = false) const { return *this; }
  Tensor to(const Tensor &other, bool non_blocking = false,
            bool copy = false) const { return *this; }
  Tensor toType(ScalarType) const { return *this; }
  Tensor permute(std::vector<int64_t>) const { return *this; }
  Tensor transpose(int64_t, int64_t) const { return *this; }
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const { return *this; }
  Tensor gather(int64_t dim, const Tensor &index) const { return *this; }
  Tensor cpu() const { return *this; }
  Tensor cuda() const { return *this; }
  Tensor clone() const { return *this; }
  Tensor contiguous() const { return *this; }
  Tensor view(std::vector<int64_t>) const { return *this; }
  Tensor reshape(std::vector<int64_t>) const { return *this; }
  Tensor squeeze() const { return *this; }
  Tensor unsqueeze(int64_t) const { return *this; }
  Tensor argmax(int64_t = 0) const { return *this; }
  Tensor eq(const Tensor &) const { return *this; }

  // Reductions.
  Tensor sum() const { return *this; }
  Tensor sum(int64_t dim, bool keepdim = false) const { return *this; }
  Tensor mean() const { return *this; }
  Tensor mean(int64_t dim, bool keepdim = false) const { return *this; }
  Tensor std() const { return *this; }
  Tensor var() const { return *this; }
  // torch-missing-epsilon: more pointwise math, reductions and in-place forms.
  Tensor square() const { return *this; }
  Tensor dot(const Tensor &) const { return *this; }
  const Tensor &sqrt_() const { return *this; }
  const Tensor &div_(const Tensor &) const { return *this; }
  const Tensor &clamp_min_(Scalar) const { return *this; }
  const Tensor &unsqueeze_(int64_t) const { return *this; }
  Tensor norm() const { return *this; }
  Tensor norm(Scalar p, int64_t dim, bool keepdim = false) const { return *this; }
  Tensor max() const { return *this; }
  Tensor min() const { return *this; }
  Tensor prod() const { return *this; }

  // Pointwise math.
  Tensor sqrt() const { return *this; }
  Tensor rsqrt() const { return *this; }
  Tensor pow(Scalar) const { return *this; }
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const { return *this; }
  Tensor pow(const Tensor &) const { return *this; }
  Tensor log() const { return *this; }
  Tensor log2() const { return *this; }
  Tensor log10() const { return *this; }
  Tensor log1p() const { return *this; }
  Tensor exp() const { return *this; }
  Tensor abs() const { return *this; }
  Tensor isnan() const { return *this; }
  Tensor isinf() const { return *this; }
  Tensor isfinite() const { return *this; }
  Tensor acos() const { return *this; }
  Tensor asin() const { return *this; }
  Tensor sigmoid() const { return *this; }
  Tensor tanh() const { return *this; }
  Tensor relu() const { return *this; }
  Tensor softmax(int64_t dim) const { return *this; }
  Tensor log_softmax(int64_t dim) const { return *this; }
  Tensor clamp(c10::optional<Scalar> min, c10::optional<Scalar> max = c10::nullopt) const { return *this; }
  Tensor clamp_min(Scalar) const { return *this; }
  Tensor clamp_max(Scalar) const { return *this; }
  Tensor div(const Tensor &) const { return *this; }
  Tensor div(Scalar) const { return *this; }
  Tensor mul(const Tensor &) const { return *this; }
  Tensor add(const Tensor &, Scalar alpha = 1) const { return *this; }
  Tensor sub(const Tensor &, Scalar alpha = 1) const { return *this; }
  Tensor matmul(const Tensor &) const { return *this; }
  Tensor t() const { return *this; }
  // torch-missing-epsilon: products and the tests of path guards.
  Tensor mm(const Tensor &) const { return *this; }
  Tensor any() const { return *this; }
  Tensor all() const { return *this; }

  // In place.
  Tensor &add_(const Tensor &, Scalar alpha = 1) { return *this; }
  Tensor &add_(Scalar) { return *this; }
  Tensor &sub_(const Tensor &) { return *this; }
  Tensor &mul_(Scalar) { return *this; }
  Tensor &zero_() { return *this; }
  // torch-inplace-on-saved-tensor.
  const Tensor &mul_(const Tensor &) const { return *this; }
  const Tensor &fill_(Scalar) const { return *this; }
  Tensor &copy_(const Tensor &, bool non_blocking = false) { return *this; }
  const Tensor &relu_() const { return *this; }
  const Tensor &sigmoid_() const { return *this; }
  const Tensor &exp_() const { return *this; }
  const Tensor &clamp_(c10::optional<Scalar> min, c10::optional<Scalar> max = c10::nullopt) const { return *this; }
  Tensor mul(Scalar) const { return *this; }

  // torch-discarded-tensor-result.
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const { return {}; }
  const Tensor &squeeze_() const { return *this; }
  const Tensor &abs_() const { return *this; }
  Tensor masked_fill(const Tensor &mask, Scalar value) const { return *this; }
  const Tensor &masked_fill_(const Tensor &mask, Scalar value) const { return *this; }

  Tensor &operator+=(const Tensor &) { return *this; }
  Tensor &operator+=(Scalar) { return *this; }
  Tensor &operator-=(const Tensor &) { return *this; }
  Tensor &operator-=(Scalar) { return *this; }
  Tensor &operator*=(const Tensor &) { return *this; }
  Tensor &operator*=(Scalar) { return *this; }
  Tensor &operator/=(const Tensor &) { return *this; }
  Tensor operator-() const { return *this; }
  Tensor operator[](int64_t) const { return *this; }
  // Basic and advanced indexing, views (torch::indexing).
  Tensor index(std::initializer_list<struct TensorIndex>) const { return *this; }
  Tensor &index_put_(std::initializer_list<struct TensorIndex>, const Tensor &) { return *this; }
  Tensor select(int64_t dim, int64_t index) const { return *this; }
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const { return *this; }
};

struct TensorIndex {
  TensorIndex(int64_t) {}
  TensorIndex(int) {}
  TensorIndex(const Tensor &) {}
};

Tensor operator+(const Tensor &, const Tensor &);
Tensor operator+(const Tensor &, Scalar);
Tensor operator+(Scalar, const Tensor &);
Tensor operator-(const Tensor &, const Tensor &);
Tensor operator-(const Tensor &, Scalar);
Tensor operator-(Scalar, const Tensor &);
Tensor operator*(const Tensor &, const Tensor &);
Tensor operator*(const Tensor &, Scalar);
Tensor operator*(Scalar, const Tensor &);
Tensor operator/(const Tensor &, const Tensor &);
Tensor operator/(const Tensor &, Scalar);
Tensor operator/(Scalar, const Tensor &);
Tensor operator==(const Tensor &, Scalar);
Tensor operator>(const Tensor &, Scalar);
Tensor operator<(const Tensor &, Scalar);

// Factories and free functions (torch:: re-exports these via `using namespace at`).
Tensor zeros(std::vector<int64_t>, TensorOptions = {});
Tensor ones(std::vector<int64_t>, TensorOptions = {});
Tensor randn(std::vector<int64_t>, TensorOptions = {});
Tensor rand(std::vector<int64_t>, TensorOptions = {});
Tensor empty(std::vector<int64_t>, TensorOptions = {});
Tensor zeros_like(const Tensor &, TensorOptions = {});
Tensor ones_like(const Tensor &, TensorOptions = {});
Tensor full_like(const Tensor &, Scalar, TensorOptions = {});
Tensor full(std::vector<int64_t>, Scalar, TensorOptions = {});
Tensor stack(std::vector<Tensor>, int64_t dim = 0);
Tensor cat(std::vector<Tensor>, int64_t dim = 0);
Tensor sqrt(const Tensor &);
Tensor rsqrt(const Tensor &);
Tensor pow(const Tensor &, Scalar);
Tensor pow(const Tensor &, const Tensor &);
Tensor log(const Tensor &);
Tensor log2(const Tensor &);
Tensor log10(const Tensor &);
Tensor log_sigmoid(const Tensor &);
Tensor exp(const Tensor &);
Tensor abs(const Tensor &);
Tensor acos(const Tensor &);
Tensor asin(const Tensor &);
Tensor sigmoid(const Tensor &);
Tensor tanh(const Tensor &);
Tensor softplus(const Tensor &);
Tensor softmax(const Tensor &, int64_t dim, c10::optional<ScalarType> dtype = c10::nullopt);
Tensor log_softmax(const Tensor &, int64_t dim);
Tensor clamp(const Tensor &, c10::optional<Scalar> min, c10::optional<Scalar> max = c10::nullopt);
Tensor clamp_min(const Tensor &, Scalar);
Tensor max(const Tensor &, const Tensor &);
Tensor sum(const Tensor &);
Tensor isnan(const Tensor &);
Tensor isinf(const Tensor &);
Tensor isfinite(const Tensor &);
Tensor mean(const Tensor &);
Tensor norm(const Tensor &);
Tensor div(const Tensor &, const Tensor &);
Tensor matmul(const Tensor &, const Tensor &);
Tensor relu(const Tensor &);
Tensor &relu_(Tensor &);
Tensor mul(const Tensor &, const Tensor &);
Tensor mm(const Tensor &, const Tensor &);
Tensor bmm(const Tensor &, const Tensor &);
Tensor mse_loss(const Tensor &input, const Tensor &target, int64_t reduction = 1);
Tensor nll_loss(const Tensor &input, const Tensor &target);
Tensor cross_entropy_loss(const Tensor &input, const Tensor &target);
Tensor linear(const Tensor &input, const Tensor &weight, const Tensor &bias = {});
Tensor binary_cross_entropy(const Tensor &input, const Tensor &target);
Tensor cosine_similarity(const Tensor &, const Tensor &, int64_t dim = 1, double eps = 1e-8);
Tensor square(const Tensor &);
Tensor pow(Scalar, const Tensor &);
Tensor std(const Tensor &);
Tensor var(const Tensor &);
std::tuple<Tensor, Tensor> var_mean(const Tensor &, std::vector<int64_t> dim = {}, bool unbiased = true, bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor &, std::vector<int64_t> dim = {}, bool unbiased = true, bool keepdim = false);
Tensor dot(const Tensor &, const Tensor &);
Tensor mm(const Tensor &, const Tensor &);
Tensor outer(const Tensor &, const Tensor &);
Tensor conv2d(const Tensor &input, const Tensor &weight);
Tensor from_blob(void *data, std::vector<int64_t> sizes, const TensorOptions &options = {});
// torch-discarded-tensor-result: add has no function form in place, clamp_ has.
Tensor add(const Tensor &, const Tensor &, Scalar alpha = 1);
Tensor &clamp_(Tensor &, c10::optional<Scalar> min, c10::optional<Scalar> max = c10::nullopt);
Tensor squeeze(const Tensor &);
Tensor where(const Tensor &condition, const Tensor &self, const Tensor &other);
// Bounds, ranges and grids (torch-missing-epsilon), and activations the
// operation table does not name (the autograd analyses' default).
Tensor clamp_max(const Tensor &, Scalar);
Tensor arange(Scalar end, TensorOptions = {});
Tensor arange(Scalar start, Scalar end, TensorOptions = {});
Tensor linspace(Scalar start, Scalar end, int64_t steps, TensorOptions = {});
std::vector<Tensor> meshgrid(std::vector<Tensor> tensors);
Tensor gelu(const Tensor &);
Tensor silu(const Tensor &);
Tensor leaky_relu(const Tensor &, Scalar negative_slope = 0.01);
} // namespace at

namespace torch {
using namespace at; // NOLINT: as in the real <torch/types.h>
using at::NoGradGuard;
using at::AutoGradMode;

namespace detail {
struct TensorDataContainer {
  TensorDataContainer(double) {}
  TensorDataContainer(float) {}
  TensorDataContainer(int) {}
  TensorDataContainer(int64_t) {}
  TensorDataContainer(std::initializer_list<TensorDataContainer>) {}
  TensorDataContainer(const std::vector<float> &) {}
  TensorDataContainer(const std::vector<double> &) {}
  TensorDataContainer(const std::vector<int64_t> &) {}
};
} // namespace detail

inline at::Tensor tensor(detail::TensorDataContainer data,
                         const at::TensorOptions &options = {}) {
  return {};
}
inline at::Tensor from_blob(void *data, std::vector<int64_t> sizes,
                            const at::TensorOptions &options = {}) {
  return {};
}
// torch-from-blob-outlives-buffer: the overloads with strides and a deleter,
// as in the real <torch/csrc/autograd/generated/variable_factories.h>.
inline at::Tensor from_blob(void *data, std::vector<int64_t> sizes,
                            std::vector<int64_t> strides,
                            const at::TensorOptions &options = {}) {
  return {};
}
inline at::Tensor from_blob(void *data, std::vector<int64_t> sizes,
                            const std::function<void(void *)> &deleter,
                            const at::TensorOptions &options = {}) {
  return {};
}
inline at::Tensor from_blob(void *data, std::vector<int64_t> sizes,
                            std::vector<int64_t> strides,
                            const std::function<void(void *)> &deleter,
                            const at::TensorOptions &options = {}) {
  return {};
}

namespace data {
template <typename Data = at::Tensor, typename Target = at::Tensor>
struct Example {
  Example() = default;
  Example(Data data, Target target)
      : data(std::move(data)), target(std::move(target)) {}
  Data data;
  Target target;
};
} // namespace data

// What named_parameters() returns: entries with key() and value(), as in
// <torch/ordered_dict.h>.
template <typename Key, typename Value> class OrderedDict {
public:
  class Item {
  public:
    const Key &key() const { return key_; }
    Value &value() { return value_; }
    const Value &value() const { return value_; }
    Value *operator->() { return &value_; }

  private:
    Key key_;
    Value value_;
  };
  typename std::vector<Item>::iterator begin() { return items_.begin(); }
  typename std::vector<Item>::iterator end() { return items_.end(); }
  typename std::vector<Item>::const_iterator begin() const { return items_.begin(); }
  typename std::vector<Item>::const_iterator end() const { return items_.end(); }
  std::vector<Value> values() const { return {}; }
  std::vector<Key> keys() const { return {}; }

private:
  std::vector<Item> items_;
};

namespace autograd {
using Variable = at::Tensor;
using variable_list = std::vector<Variable>;
variable_list grad(const variable_list &outputs, const variable_list &inputs,
                   const variable_list &grad_outputs = {},
                   c10::optional<bool> retain_graph = c10::nullopt,
                   bool create_graph = false, bool allow_unused = false);
void backward(const variable_list &tensors, const variable_list &grad_tensors = {},
              c10::optional<bool> retain_graph = c10::nullopt,
              bool create_graph = false, const variable_list &inputs = {});
} // namespace autograd

namespace nn {
template <typename Contained> class ModuleHolder;

class Module : public std::enable_shared_from_this<Module> {
public:
  virtual ~Module() = default;
  void train(bool on = true) {}
  void eval() {}
  bool is_training() const { return true; }
  std::vector<at::Tensor> parameters(bool recurse = true) const { return {}; }
  OrderedDict<std::string, at::Tensor> named_parameters(bool recurse = true) const { return {}; }
  virtual void to(c10::Device device, c10::ScalarType dtype,
                  bool non_blocking = false) {}
  virtual void to(c10::ScalarType dtype, bool non_blocking = false) {}
  virtual void to(c10::Device device, bool non_blocking = false) {}
  virtual void zero_grad(bool set_to_none = false) {}
  template <typename M> std::shared_ptr<M> register_module(std::string, std::shared_ptr<M> m) { return m; }
  template <typename M> std::shared_ptr<M> register_module(std::string, ModuleHolder<M> m) { return m.ptr(); }
  at::Tensor register_parameter(std::string, at::Tensor t, bool = true) { return t; }
  at::Tensor register_buffer(std::string, at::Tensor t) { return t; }
};

template <typename Derived> class Cloneable : public Module {};

template <typename Contained> class ModuleHolder {
protected:
  std::shared_ptr<Contained> impl_;

public:
  ModuleHolder() : impl_(std::make_shared<Contained>()) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}
  template <typename... Args>
  explicit ModuleHolder(Args &&...args) : impl_(std::make_shared<Contained>()) {}
  Contained *operator->() { return impl_.get(); }
  const Contained *operator->() const { return impl_.get(); }
  Contained &operator*() { return *impl_; }
  template <typename... Args> auto operator()(Args &&...args) {
    return impl_->forward(std::forward<Args>(args)...);
  }
  const std::shared_ptr<Contained> &ptr() const { return impl_; }
};

#define TORCH_MODULE(Name)                                                     \
  class Name : public torch::nn::ModuleHolder<Name##Impl> {                   \
  public:                                                                      \
    using torch::nn::ModuleHolder<Name##Impl>::ModuleHolder;                  \
  }

class LinearImpl : public Cloneable<LinearImpl> {
public:
  LinearImpl(int64_t in = 1, int64_t out = 1) {}
  at::Tensor forward(const at::Tensor &input) { return input; }
  at::Tensor weight, bias;
};
TORCH_MODULE(Linear);

// Recurrent layers: their state travels as tensors and tuples of tensors.
class RNNCellImpl : public Cloneable<RNNCellImpl> {
public:
  RNNCellImpl(int64_t in = 1, int64_t hidden = 1) {}
  at::Tensor forward(const at::Tensor &input, at::Tensor hx = {}) { return input; }
};
TORCH_MODULE(RNNCell);

class GRUImpl : public Cloneable<GRUImpl> {
public:
  GRUImpl(int64_t in = 1, int64_t hidden = 1) {}
  std::tuple<at::Tensor, at::Tensor> forward(const at::Tensor &input, at::Tensor hx = {}) { return {}; }
};
TORCH_MODULE(GRU);

class LSTMImpl : public Cloneable<LSTMImpl> {
public:
  LSTMImpl(int64_t in = 1, int64_t hidden = 1) {}
  std::tuple<at::Tensor, std::tuple<at::Tensor, at::Tensor>>
  forward(const at::Tensor &input,
          c10::optional<std::tuple<at::Tensor, at::Tensor>> hx = {}) { return {}; }
};
TORCH_MODULE(LSTM);

class Conv2dImpl : public Cloneable<Conv2dImpl> {
public:
  Conv2dImpl(int64_t in = 1, int64_t out = 1, int64_t k = 1) {}
  at::Tensor forward(const at::Tensor &input) { return input; }
  // In the real headers declared by ConvNdImpl<2, Conv2dImpl>.
  at::Tensor weight;
  at::Tensor bias;
};
TORCH_MODULE(Conv2d);

// Normalisation layers, as in <torch/nn/modules/batchnorm.h>: the class
// template registers the affine weight and bias as parameters and the
// running statistics as buffers, in its reset() written in the header.
struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}
  int64_t num_features() const { return num_features_; }
  bool affine() const { return true; }
  bool track_running_stats() const { return true; }
  int64_t num_features_;
};

template <size_t D, typename Derived, typename DerivedOptions>
class NormImplBase : public torch::nn::Cloneable<Derived> {
public:
  NormImplBase(const DerivedOptions &options_ = DerivedOptions(1))
      : options(options_) {
    reset();
  }
  void reset() {
    if (options.affine()) {
      weight = this->register_parameter(
          "weight", torch::empty({options.num_features()}));
      bias = this->register_parameter(
          "bias", torch::empty({options.num_features()}));
    } else {
      weight =
          this->register_parameter("weight", at::Tensor(), /*requires_grad=*/false);
      bias = this->register_parameter("bias", at::Tensor(), /*requires_grad=*/false);
    }
    if (options.track_running_stats()) {
      running_mean = this->register_buffer(
          "running_mean", torch::zeros({options.num_features()}));
      running_var = this->register_buffer(
          "running_var", torch::ones({options.num_features()}));
      num_batches_tracked = this->register_buffer(
          "num_batches_tracked", torch::zeros({}));
    } else {
      running_mean = this->register_buffer("running_mean", at::Tensor());
      running_var = this->register_buffer("running_var", at::Tensor());
      num_batches_tracked =
          this->register_buffer("num_batches_tracked", at::Tensor());
    }
  }
  DerivedOptions options;
  at::Tensor weight;
  at::Tensor bias;
  at::Tensor running_mean;
  at::Tensor running_var;
  at::Tensor num_batches_tracked;
};

template <size_t D, typename Derived>
class BatchNormImplBase : public NormImplBase<D, Derived, BatchNormOptions> {
public:
  using NormImplBase<D, Derived, BatchNormOptions>::NormImplBase;
  at::Tensor forward(const at::Tensor &input) { return input; }
};

class BatchNorm2dImpl : public BatchNormImplBase<2, BatchNorm2dImpl> {
public:
  using BatchNormImplBase<2, BatchNorm2dImpl>::BatchNormImplBase;
};
TORCH_MODULE(BatchNorm2d);

class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
public:
  explicit SoftmaxImpl(int64_t dim = 1) {}
  at::Tensor forward(const at::Tensor &input) { return input; }
};
TORCH_MODULE(Softmax);

class LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
public:
  explicit LogSoftmaxImpl(int64_t dim = 1) {}
  at::Tensor forward(const at::Tensor &input) { return input; }
};
TORCH_MODULE(LogSoftmax);

class ReLUImpl : public Cloneable<ReLUImpl> {
public:
  explicit ReLUImpl(bool inplace = false) {}
  at::Tensor forward(const at::Tensor &input) { return input; }
};
TORCH_MODULE(ReLU);

// A layer with its name, as in <torch/nn/modules/container/named_any.h>.
class NamedAnyModule {
public:
  template <typename M> NamedAnyModule(std::string name, M &&module) {}
};

class SequentialImpl : public Cloneable<SequentialImpl> {
public:
  template <typename... M> SequentialImpl(M &&...) {}
  SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {}
  at::Tensor forward(const at::Tensor &input) { return input; }
  template <typename M> void push_back(M &&module) {}
  template <typename M> void push_back(std::string name, M &&module) {}
};
// As in <torch/nn/modules/container/sequential.h>: the holder also takes named layers.
class Sequential : public torch::nn::ModuleHolder<SequentialImpl> {
public:
  using torch::nn::ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

// Type-erased module (not a torch::nn::Module), as in <torch/nn/modules/container/any.h>.
class AnyModule {
public:
  AnyModule() = default;
  template <typename ModuleType> explicit AnyModule(ModuleType module) {}
  template <typename ReturnType = at::Tensor, typename... ArgumentTypes>
  ReturnType forward(ArgumentTypes &&...arguments) { return ReturnType(); }
};

class CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
public:
  at::Tensor forward(const at::Tensor &input, const at::Tensor &target) { return input; }
  /// A manual rescaling weight of each class: a buffer (registered in the
  /// real module's reset(), out of sight in the library).
  at::Tensor weight;
};
TORCH_MODULE(CrossEntropyLoss);

class MSELossImpl : public Cloneable<MSELossImpl> {
public:
  at::Tensor forward(const at::Tensor &input, const at::Tensor &target) { return input; }
};
TORCH_MODULE(MSELoss);

class NLLLossImpl : public Cloneable<NLLLossImpl> {
public:
  at::Tensor forward(const at::Tensor &input, const at::Tensor &target) { return input; }
};
TORCH_MODULE(NLLLoss);

namespace functional {
// torch-missing-epsilon: functional forms with options, as in the real
// torch/nn/functional/{activation,distance,normalization}.h.
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) {}
};
inline at::Tensor softmax(const at::Tensor &input, const SoftmaxFuncOptions &options) { return input; }
inline at::Tensor softplus(const at::Tensor &input) { return input; }
struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) {}
};
inline at::Tensor log_softmax(const at::Tensor &input, const LogSoftmaxFuncOptions &options) { return input; }
struct NormalizeFuncOptions {
  NormalizeFuncOptions() {}
  NormalizeFuncOptions dim(int64_t) const { return *this; }
};
inline at::Tensor normalize(const at::Tensor &input, NormalizeFuncOptions options = {}) { return input; }
struct CosineSimilarityFuncOptions {
  CosineSimilarityFuncOptions() {}
  CosineSimilarityFuncOptions dim(int64_t) const { return *this; }
};
inline at::Tensor cosine_similarity(const at::Tensor &x1, const at::Tensor &x2,
                                    const CosineSimilarityFuncOptions &options = {}) { return x1; }
inline at::Tensor mse_loss(const at::Tensor &input, const at::Tensor &target) { return input; }
inline at::Tensor cross_entropy(const at::Tensor &input, const at::Tensor &target) { return input; }
inline at::Tensor nll_loss(const at::Tensor &input, const at::Tensor &target) { return input; }
inline at::Tensor binary_cross_entropy(const at::Tensor &input, const at::Tensor &target) { return input; }
inline at::Tensor relu(const at::Tensor &input) { return input; }
} // namespace functional
} // namespace nn

namespace optim {
class Optimizer {
public:
  virtual ~Optimizer() = default;
  virtual at::Tensor step(std::function<at::Tensor()> closure = nullptr) { return {}; }
  void zero_grad() {}
};
struct SGDOptions {
  SGDOptions(double lr) {}
  SGDOptions &momentum(double) { return *this; }
};
class SGD : public Optimizer {
public:
  SGD(std::vector<at::Tensor> params, SGDOptions options) {}
};
struct AdamOptions {
  AdamOptions(double lr = 1e-3) {}
};
// Parameters with options of their own, as in <torch/optim/optimizer.h>.
class OptimizerParamGroup {
public:
  OptimizerParamGroup(std::vector<at::Tensor> params) {}
  template <typename Options>
  OptimizerParamGroup(std::vector<at::Tensor> params, std::unique_ptr<Options> options) {}
};
class Adam : public Optimizer {
public:
  explicit Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions options = {}) {}
  explicit Adam(std::vector<at::Tensor> params, AdamOptions options = {}) {}
};
struct LBFGSOptions {
  LBFGSOptions(double lr = 1) {}
  LBFGSOptions &max_iter(int64_t) { return *this; }
};
// Evaluates the closure it is handed several times per step.
class LBFGS : public Optimizer {
public:
  explicit LBFGS(std::vector<at::Tensor> params, LBFGSOptions options = {}) {}
};
struct RMSpropOptions {
  RMSpropOptions(double lr = 1e-2) {}
};
class RMSprop : public Optimizer {
public:
  RMSprop(std::vector<at::Tensor> params, RMSpropOptions options = {}) {}
};
class LRScheduler {
public:
  LRScheduler(Optimizer &optimizer) {}
  void step() {}
};
class StepLR : public LRScheduler {
public:
  StepLR(Optimizer &optimizer, unsigned step_size, double gamma = 0.1)
      : LRScheduler(optimizer) {}
};
} // namespace optim

namespace serialize {
class OutputArchive {
public:
  void write(const std::string &key, const at::Tensor &tensor) {}
  void save_to(const std::string &filename) {}
};
class InputArchive {
public:
  void load_from(const std::string &filename,
                 c10::optional<c10::Device> device = c10::nullopt) {}
  void load_from(std::istream &stream,
                 c10::optional<c10::Device> device = c10::nullopt) {}
  void load_from(const char *data, size_t size,
                 c10::optional<c10::Device> device = c10::nullopt) {}
  void load_from(const std::function<size_t(uint64_t, void *, size_t)> &read_func,
                 const std::function<size_t(void)> &size_func,
                 c10::optional<c10::Device> device = c10::nullopt) {}
  bool try_read(const std::string &key, at::Tensor &tensor) { return true; }
};
} // namespace serialize

template <typename Value, typename... SaveToArgs>
void save(const Value &value, SaveToArgs &&...args) {}

// As in the real <torch/serialize.h>: everything after `value` is forwarded to
// InputArchive::load_from. (This body is LibTorch's own code: never flagged.)
template <typename Value, typename... LoadFromArgs>
void load(Value &value, LoadFromArgs &&...args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
}
template <typename... LoadFromArgs>
void load(std::vector<at::Tensor> &tensor_vec, LoadFromArgs &&...args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
}

namespace cuda {
inline bool is_available() { return false; }
} // namespace cuda

// As in the real <torch/data.h>: a data loader over a stacked data set yields
// Example batches.
namespace data {
// Example: declared above (with torch::from_blob).
namespace transforms {
template <typename T = Example<>> struct Stack {};
} // namespace transforms
namespace samplers {
class RandomSampler {};
class SequentialSampler {};
} // namespace samplers
template <typename Batch> class Iterator {
public:
  Batch &operator*() { static Batch b; return b; }
  Iterator &operator++() { return *this; }
  bool operator!=(const Iterator &) const { return false; }
};
template <typename Dataset, typename Batch, typename BatchRequest>
class DataLoaderBase {
public:
  virtual ~DataLoaderBase() = default;
  Iterator<Batch> begin() { return {}; }
  Iterator<Batch> end() { return {}; }
};
template <typename Dataset, typename Sampler>
class StatelessDataLoader
    : public DataLoaderBase<Dataset, typename Dataset::BatchType,
                            std::vector<size_t>> {};
namespace datasets {
template <typename Source, typename Transform> class MapDataset {
public:
  using BatchType = Example<>;
  size_t size() const { return 0; }
};
template <typename Self, typename SingleExample = Example<>> class Dataset {
public:
  using BatchType = std::vector<SingleExample>;
  template <typename T> MapDataset<Self, T> map(T) && { return {}; }
};
class MNIST : public Dataset<MNIST> {
public:
  explicit MNIST(const std::string &root) {}
  Example<> get(size_t index) { return {}; }
};
} // namespace datasets
template <typename Sampler = samplers::RandomSampler, typename Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>
make_data_loader(Dataset dataset, size_t batch_size) {
  return nullptr;
}
} // namespace data

// LibTorch's own helper that loads without a device: with -I (not -isystem)
// and --header-filter=.*, checks must still stay silent here.
inline void mock_internal_reload(nn::Module &m, const std::string &path) {
  torch::load(m, path);
}
} // namespace torch

// --- class-index / BCE additions ---------------------------------------------
// torch-class-index-out-of-range and torch-bce-input-out-of-range: index
// factories, losses with options, Embedding, BCELoss.
namespace at {
Tensor randint(int64_t high, std::vector<int64_t> size, TensorOptions = {});
Tensor randint(int64_t low, int64_t high, std::vector<int64_t> size, TensorOptions = {});
Tensor randint_like(const Tensor &, int64_t high);
Tensor one_hot(const Tensor &, int64_t num_classes = -1);
Tensor nll_loss(const Tensor &input, const Tensor &target, const c10::optional<Tensor> &weight,
                int64_t reduction = 1, int64_t ignore_index = -100);
Tensor binary_cross_entropy_with_logits(const Tensor &input, const Tensor &target);
Tensor where(const Tensor &condition, Scalar self, Scalar other);
} // namespace at
namespace torch {
namespace nn {
struct LinearOptions {
  LinearOptions(int64_t in, int64_t out) {}
  LinearOptions bias(bool) const { return *this; }
};
struct Conv2dOptions {
  Conv2dOptions(int64_t in, int64_t out, int64_t kernel) {}
};
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t dim) {}
};
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
public:
  EmbeddingImpl(int64_t num_embeddings = 1, int64_t dim = 1) {}
  at::Tensor forward(const at::Tensor &indices) { return indices; }
  at::Tensor weight;
};
TORCH_MODULE(Embedding);
struct CrossEntropyLossOptions {
  CrossEntropyLossOptions ignore_index(int64_t) const { return *this; }
};
struct NLLLossOptions {
  NLLLossOptions ignore_index(int64_t) const { return *this; }
};
class BCELossImpl : public Cloneable<BCELossImpl> {
public:
  at::Tensor forward(const at::Tensor &input, const at::Tensor &target) { return input; }
};
TORCH_MODULE(BCELoss);
class SigmoidImpl : public Cloneable<SigmoidImpl> {
public:
  at::Tensor forward(const at::Tensor &input) { return input; }
};
TORCH_MODULE(Sigmoid);
namespace functional {
struct CrossEntropyFuncOptions {
  CrossEntropyFuncOptions ignore_index(int64_t) const { return *this; }
};
inline at::Tensor cross_entropy(const at::Tensor &input, const at::Tensor &target,
                                const CrossEntropyFuncOptions &options) { return input; }
inline at::Tensor one_hot(const at::Tensor &tensor, int64_t num_classes = -1) { return tensor; }
inline at::Tensor binary_cross_entropy_with_logits(const at::Tensor &input, const at::Tensor &target) { return input; }
} // namespace functional
} // namespace nn
} // namespace torch

// --- wt-softmax additions ---
// torch-softmax-over-batch-dim: the softmax layers' options, flatten and
// dropout as functions, and layers that keep a batch's layout, as in the real
// <torch/nn/options/activation.h>, <torch/nn/modules/{dropout,conv,batchnorm}.h>.
namespace at {
Tensor flatten(const Tensor &, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor dropout(const Tensor &, double p, bool train);
} // namespace at
namespace torch {
namespace nn {
struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) {}
};
struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) {}
};
class DropoutImpl : public Cloneable<DropoutImpl> {
public:
  explicit DropoutImpl(double p = 0.5) {}
  at::Tensor forward(at::Tensor input) { return input; }
};
TORCH_MODULE(Dropout);
class Conv1dImpl : public Cloneable<Conv1dImpl> {
public:
  Conv1dImpl(int64_t in = 1, int64_t out = 1, int64_t k = 1) {}
  at::Tensor forward(const at::Tensor &input) { return input; }
};
TORCH_MODULE(Conv1d);
class BatchNorm1dImpl : public BatchNormImplBase<1, BatchNorm1dImpl> {
public:
  using BatchNormImplBase<1, BatchNorm1dImpl>::BatchNormImplBase;
};
TORCH_MODULE(BatchNorm1d);
// (torch::nn::Embedding: in the class-index / BCE block above.)
} // namespace nn
} // namespace torch
// --- wt-stacked additions ---
// torch-stacked-samples-vary-in-size: what a data set's get() uses to build
// and normalise its samples, as the real headers name them.
#include <array>
namespace torch {
template <typename T, size_t N>
inline at::Tensor tensor(const std::array<T, N> &values,
                         const at::TensorOptions &options = {}) {
  return {};
}
namespace nn {
namespace functional {
struct InterpolateFuncOptions {
  InterpolateFuncOptions() {}
  InterpolateFuncOptions size(std::vector<int64_t>) const { return *this; }
  InterpolateFuncOptions scale_factor(std::vector<double>) const { return *this; }
  InterpolateFuncOptions align_corners(bool) const { return *this; }
};
inline at::Tensor interpolate(const at::Tensor &input,
                              const InterpolateFuncOptions &options = {}) {
  return input;
}
struct PadFuncOptions {
  PadFuncOptions(std::vector<int64_t> pad) {}
  PadFuncOptions value(double) const { return *this; }
};
inline at::Tensor pad(const at::Tensor &input, const PadFuncOptions &options) {
  return input;
}
} // namespace functional
} // namespace nn
namespace data {
namespace transforms {
template <typename Target = at::Tensor> struct Normalize {
  Normalize(double mean, double stddev) {}
};
} // namespace transforms
} // namespace data
} // namespace torch
namespace at {
Tensor constant_pad_nd(const Tensor &, std::vector<int64_t> pad, Scalar value = 0);
} // namespace at
