// C++ convenience layer over tmc_runtime.h: owning handles that release
// their resources, and errors as exceptions carrying tmc_last_error().
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tmc_runtime.h"

namespace tmc {

struct RuntimeError : std::runtime_error {
  tmc_status status;
  RuntimeError(tmc_status s, const std::string& what) : std::runtime_error(what), status(s) {}
};

inline void Check(tmc_status s, const char* what) {
  if (s != TMC_SUCCESS) throw RuntimeError(s, std::string(what) + ": " + tmc_last_error());
}

/// A device context (tmc_init / tmc_shutdown): a CUDA device number,
/// TMC_DEVICE_CPU (the CPU executor) or TMC_DEVICE_AUTO (tmc_init_auto).
class Context {
 public:
  explicit Context(int device = 0) { Check(tmc_init(device, &ctx_), "tmc_init"); }
  ~Context() { tmc_shutdown(ctx_); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  tmc_context* get() const { return ctx_; }
  void Synchronize() { Check(tmc_synchronize(ctx_), "tmc_synchronize"); }

 private:
  tmc_context* ctx_ = nullptr;
};

/// Device memory holding a tensor of `dtype` and `shape`.
class DeviceTensor {
 public:
  DeviceTensor(Context& ctx, tmc_dtype dtype, std::vector<int64_t> shape, size_t element_bytes)
      : ctx_(&ctx), dtype_(dtype), shape_(std::move(shape)) {
    bytes_ = element_bytes;
    for (int64_t d : shape_) bytes_ *= static_cast<size_t>(d);
    Check(tmc_malloc(ctx.get(), bytes_, &ptr_), "tmc_malloc");
  }
  ~DeviceTensor() {
    if (ptr_) tmc_free(ctx_->get(), ptr_);
  }
  DeviceTensor(DeviceTensor&& o) noexcept
      : ctx_(o.ctx_), dtype_(o.dtype_), shape_(std::move(o.shape_)), bytes_(o.bytes_), ptr_(std::exchange(o.ptr_, 0)) {}
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  void CopyFrom(const void* host) { Check(tmc_copy_to_device(ctx_->get(), ptr_, host, bytes_), "tmc_copy_to_device"); }
  void CopyTo(void* host) const { Check(tmc_copy_to_host(ctx_->get(), host, ptr_, bytes_), "tmc_copy_to_host"); }
  size_t bytes() const { return bytes_; }

  /// This tensor as a kernel argument.
  tmc_arg Arg() const {
    tmc_arg a{};
    a.is_tensor = 1;
    a.tensor.data = ptr_;
    a.tensor.dtype = dtype_;
    a.tensor.rank = static_cast<int>(shape_.size());
    for (size_t i = 0; i < shape_.size() && i < TMC_MAX_RANK; ++i) a.tensor.shape[i] = shape_[i];
    return a;
  }

 private:
  Context* ctx_;
  tmc_dtype dtype_;
  std::vector<int64_t> shape_;
  size_t bytes_ = 0;
  uint64_t ptr_ = 0;
};

/// A loaded module (PTX or cubin plus its metadata).
class Module {
 public:
  Module(Context& ctx, const std::string& image, const std::string& metadata_json) {
    Check(tmc_module_load(ctx.get(), image.c_str(), image.size() + 1, metadata_json.c_str(), &m_), "tmc_module_load");
  }
  ~Module() { tmc_module_unload(m_); }
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// Checks the arguments against the kernel's signature and launches.
  void Launch(const std::string& kernel, const std::vector<tmc_arg>& args, tmc_stream* stream = nullptr) {
    tmc_kernel* k = nullptr;
    Check(tmc_module_get_kernel(m_, kernel.c_str(), &k), "tmc_module_get_kernel");
    Check(tmc_launch(k, args.data(), static_cast<int>(args.size()), stream), "tmc_launch");
  }

  /// Launches graph `graph` (its inputs, then its outputs), in a workspace
  /// the graph allocates and keeps.
  void LaunchGraph(const std::string& graph, const std::vector<tmc_arg>& args, tmc_stream* stream = nullptr) {
    tmc_graph* g = nullptr;
    Check(tmc_module_get_graph(m_, graph.c_str(), &g), "tmc_module_get_graph");
    Check(tmc_graph_launch(g, args.data(), static_cast<int>(args.size()), 0, 0, stream), "tmc_graph_launch");
  }

 private:
  tmc_module* m_ = nullptr;
};

/// Times `reps` launches of `kernel` with device events, after `warmup`
/// untimed ones: the median and the spread (max - min) in milliseconds.
/// Does not throw: callers without exceptions (tmc-replay) use it too.
inline tmc_status TimeLaunches(tmc_context* ctx, tmc_kernel* kernel, const std::vector<tmc_arg>& args, int warmup,
                               int reps, double* median_ms, double* spread_ms) {
  tmc_event *start = nullptr, *end = nullptr;
  tmc_status s = tmc_event_create(ctx, &start);
  if (s == TMC_SUCCESS) s = tmc_event_create(ctx, &end);
  std::vector<float> times;
  int n = static_cast<int>(args.size());
  for (int r = 0; r < warmup && s == TMC_SUCCESS; ++r) s = tmc_launch(kernel, args.data(), n, nullptr);
  for (int r = 0; r < reps && s == TMC_SUCCESS; ++r) {
    float ms = 0;
    s = tmc_event_record(start, nullptr);
    if (s == TMC_SUCCESS) s = tmc_launch(kernel, args.data(), n, nullptr);
    if (s == TMC_SUCCESS) s = tmc_event_record(end, nullptr);
    if (s == TMC_SUCCESS) s = tmc_event_elapsed_ms(start, end, &ms);
    if (s == TMC_SUCCESS) times.push_back(ms);
  }
  tmc_event_destroy(start);
  tmc_event_destroy(end);
  if (s != TMC_SUCCESS || times.empty()) return s != TMC_SUCCESS ? s : TMC_ERROR_INVALID_ARGUMENT;
  std::sort(times.begin(), times.end());
  *median_ms = times[times.size() / 2];
  *spread_ms = times.back() - times.front();
  return TMC_SUCCESS;
}

/// A scalar kernel argument.
inline tmc_arg ScalarArg(tmc_dtype dtype, double value) {
  tmc_arg a{};
  a.dtype = dtype;
  if (dtype == TMC_F32 || dtype == TMC_F64 || dtype == TMC_F16 || dtype == TMC_BF16) a.value.f = value;
  else a.value.i = static_cast<int64_t>(value);
  return a;
}

}  // namespace tmc
