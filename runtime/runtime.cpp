// The C API over the driver: every failure sets a thread-local message
// (tmc_last_error) and returns a status; nothing aborts.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <vector>

#include "runtime/cpu/cpu_executor.h"
#include "runtime/cuda_driver.h"
#include "runtime/graph_plan.h"
#include "runtime/kernel_signature.h"
#include "runtime/tmc_runtime.h"

namespace {

thread_local std::string g_last_error;

tmc_status Fail(tmc_status s, std::string message) {
  g_last_error = std::move(message);
  return s;
}

constexpr int kMaxDynamicSharedAttribute = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

}  // namespace

struct tmc_context {
  const tmc::runtime::CudaDriver* driver = nullptr;  // null: the CPU executor
  int device = 0;
  void* cu_context = nullptr;
  bool cpu() const { return driver == nullptr; }
};

struct tmc_kernel {
  tmc_module* module = nullptr;
  tmc::runtime::KernelSignature signature;
  void* function = nullptr;
  tmc_cpu_kernel_fn host = nullptr;  // CPU contexts
  bool attribute_set = false;
};

struct tmc_graph {
  tmc_module* module = nullptr;
  tmc::runtime::GraphPlan plan;
  std::vector<std::vector<tmc_kernel*>> kernels;  // of each step: its alternatives
  // The workspace tmc_graph_launch allocates when the caller passes none:
  // kept, and grown when a launch needs more.
  uint64_t workspace = 0;
  size_t workspace_bytes = 0;
  // Held while a launch uses that workspace: on a CPU context (synchronous)
  // concurrent calls then take turns; on a GPU the kernels run after the
  // call returns, so concurrent calls on different streams must pass their
  // own workspaces (tmc_runtime.h).
  std::mutex workspace_lock;
};

struct tmc_module {
  tmc_context* ctx = nullptr;
  void* cu_module = nullptr;
  std::vector<std::string> sites;  // CPU modules: source locations by site id
  std::map<std::string, std::unique_ptr<tmc_kernel>> kernels;
  std::map<std::string, std::unique_ptr<tmc_graph>> graphs;
};

struct tmc_stream {
  tmc_context* ctx = nullptr;
  void* cu_stream = nullptr;
  bool owned = true;  // false: wraps the caller's stream (tmc_stream_wrap)
};

struct tmc_event {
  tmc_context* ctx = nullptr;
  void* cu_event = nullptr;
  std::chrono::steady_clock::time_point recorded;  // CPU contexts
};

// Every driver call runs with the context's own CUDA context pushed and
// popped again: an application (PyTorch) keeps whatever context its thread
// had, and contexts of several devices work from any thread.
struct CurrentContext {
  const tmc::runtime::CudaDriver* driver = nullptr;
  explicit CurrentContext(const tmc_context* ctx);
  ~CurrentContext() {
    void* popped = nullptr;
    if (driver) driver->cuCtxPopCurrent(&popped);
  }
  CurrentContext(const CurrentContext&) = delete;
  CurrentContext& operator=(const CurrentContext&) = delete;
};

#define TMC_CU(ctx, call)                                                                                \
  do {                                                                                                   \
    CurrentContext current_(&*(ctx));                                                                   \
    int rc_ = (ctx)->driver->call;                                                                       \
    if (rc_ != 0) return Fail(TMC_ERROR_CUDA, std::string(#call) + ": " + tmc::runtime::CudaErrorString(*(ctx)->driver, rc_)); \
  } while (0)

namespace {

// The graphs of a module's metadata, over the kernels already loaded.
tmc_status AddGraphs(tmc_module* m, const char* metadata_json) {
  std::vector<tmc::runtime::GraphPlan> plans;
  std::string error;
  if (!tmc::runtime::ParseGraphPlans(metadata_json, &plans, &error))
    return Fail(TMC_ERROR_METADATA, "graph metadata: " + error);
  for (auto& plan : plans) {
    auto g = std::make_unique<tmc_graph>();
    g->module = m;
    for (const tmc::runtime::GraphStep& step : plan.steps) {
      g->kernels.emplace_back();
      for (const std::string& name : step.alternatives) {
        auto k = m->kernels.find(name);
        if (k == m->kernels.end())
          return Fail(TMC_ERROR_METADATA, "graph '" + plan.name + "' launches kernel '" + name + "', which the module lacks");
        g->kernels.back().push_back(k->second.get());
      }
    }
    g->plan = std::move(plan);
    m->graphs[g->plan.name] = std::move(g);
  }
  return TMC_SUCCESS;
}

// Device memory of a context: the driver's, or host memory (256-byte
// aligned, as cuMemAlloc's) on the CPU executor.
tmc_status DeviceAlloc(tmc_context* ctx, size_t bytes, uint64_t* ptr) {
  bytes = bytes == 0 ? 1 : bytes;
  if (ctx->cpu()) {
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!p) return Fail(TMC_ERROR_INVALID_ARGUMENT, "out of host memory (" + std::to_string(bytes) + " bytes)");
    *ptr = reinterpret_cast<uintptr_t>(p);
    return TMC_SUCCESS;
  }
  unsigned long long p = 0;
  TMC_CU(ctx, cuMemAlloc(&p, bytes));
  *ptr = p;
  return TMC_SUCCESS;
}

tmc_status DeviceFree(tmc_context* ctx, uint64_t ptr) {
  if (ctx->cpu()) {
    std::free(reinterpret_cast<void*>(static_cast<uintptr_t>(ptr)));
    return TMC_SUCCESS;
  }
  TMC_CU(ctx, cuMemFree(ptr));
  return TMC_SUCCESS;
}

const char* FindingText(tmc::runtime::CpuFinding::Kind k) {
  using K = tmc::runtime::CpuFinding::Kind;
  switch (k) {
    case K::OutOfBounds: case K::IndexOutOfBounds: return "an access out of bounds";
    case K::Race: case K::BlockRace: return "a data race";
    case K::BarrierDivergence: return "a barrier not reached by every thread of the block";
    case K::WarpDivergence: return "a warp operation not reached by every lane of the warp";
    case K::CpAsyncOutOfBounds: return "a cp_async out of bounds";
    case K::CpAsyncMisaligned: return "a misaligned cp_async";
    case K::LdMatrixMisaligned: return "a misaligned ldmatrix row";
    case K::DivideByZero: return "an integer division by zero";
    case K::DivideOverflow: return "an integer division overflow (MIN / -1)";
    case K::Timeout: return "a thread that never finished";
    case K::MbarrierDeadlock: return "an mbarrier wait that can never complete";
    case K::MbarrierUninitialized: return "an mbarrier used before mbarrier_init";
    case K::WgmmaRegisterInFlight: return "a wgmma register used before its wgmma_wait";
    case K::WgmmaUnfenced: return "a wgmma without a wgmma_fence after its registers were accessed";
    case K::SetmaxnregOverBudget: return "a setmaxnreg_inc beyond the SM's registers";
    case K::TmaStoreUnfinished: return "a tma_store still reading shared memory when its thread ended";
    case K::ClusterRankOutside: return "a block rank outside the cluster";
    case K::ClusterEmptyMask: return "a multicast tma_load to no block";
    case K::ClusterPeerExited: return "an mbarrier arrival or multicast copy into a block of the cluster that exited";
    case K::ClusterExitUnordered: return "an mbarrier arrival or multicast copy not ordered before the exit of the block it reaches";
    case K::ClusterCopyRace: return "a multicast tma_load racing with another block's access";
    case K::ClusterMbarrierUnordered: return "another block's mbarrier used with no cluster_sync after its init";
    case K::WarpgroupDivergence: return "a warpgroup instruction not executed by all four warps of the warpgroup";
    case K::ProxyFenceMissing: return "a wgmma or tma_store reading shared memory written with no fence_proxy_async after the write";
  }
  return "a fault";
}

// The CPU executor runs one launch at a time (its scheduler state is
// per process); launches from several threads take turns.
std::mutex g_cpu_launch;

tmc_status LaunchOnCpu(tmc_kernel* k, const tmc::runtime::CheckedLaunch& checked, const std::vector<uint64_t>& slots) {
  const tmc::runtime::KernelSignature& sig = k->signature;
  tmc::runtime::CpuLaunch l;
  l.kernel = k->host;
  l.name = sig.name.c_str();
  l.args = slots.data();
  std::copy(checked.grid, checked.grid + 3, l.grid);
  std::copy(checked.block, checked.block + 3, l.block);
  std::copy(checked.cluster, checked.cluster + 3, l.cluster);
  l.shared_bytes = sig.shared_bytes;
  std::vector<tmc::runtime::CpuFinding> findings;
  {
    std::lock_guard<std::mutex> lock(g_cpu_launch);
    findings = tmc::runtime::RunOnCpu(l);
  }
  if (findings.empty()) return TMC_SUCCESS;
  const tmc::runtime::CpuFinding& f = findings.front();
  const std::vector<std::string>& sites = k->module->sites;
  std::string where = f.site >= 0 && static_cast<size_t>(f.site) < sites.size() && !sites[static_cast<size_t>(f.site)].empty()
                          ? " at " + sites[static_cast<size_t>(f.site)]
                          : "";
  return Fail(TMC_ERROR_KERNEL_FAULT, "kernel '" + sig.name + "' on the CPU executor: " + FindingText(f.kind) + where +
                                          " (thread " + std::to_string(f.thread) + " of block (" +
                                          std::to_string(f.block[0]) + ", " + std::to_string(f.block[1]) + ", " +
                                          std::to_string(f.block[2]) + "))");
}

}  // namespace

CurrentContext::CurrentContext(const tmc_context* ctx) {
  if (ctx && ctx->driver && ctx->cu_context && ctx->driver->cuCtxPushCurrent(ctx->cu_context) == 0) driver = ctx->driver;
}

extern "C" {

const char* tmc_last_error(void) { return g_last_error.c_str(); }

const char* tmc_status_name(tmc_status s) {
  switch (s) {
    case TMC_SUCCESS: return "success";
    case TMC_ERROR_NO_DRIVER: return "no CUDA driver found";
    case TMC_ERROR_NO_DEVICE: return "no such device";
    case TMC_ERROR_CUDA: return "CUDA error";
    case TMC_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case TMC_ERROR_SIGNATURE: return "arguments do not match the kernel";
    case TMC_ERROR_NOT_FOUND: return "not found";
    case TMC_ERROR_METADATA: return "invalid kernel metadata";
    case TMC_ERROR_KERNEL_FAULT: return "kernel fault on the CPU executor";
  }
  return "unknown status";
}

tmc_status tmc_init(int device, tmc_context** out) {
  if (!out) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_init: null output");
  if (device == TMC_DEVICE_CPU) {
    *out = new tmc_context();
    return TMC_SUCCESS;
  }
  if (device == TMC_DEVICE_AUTO) return tmc_init_auto(out);
  std::string error;
  const tmc::runtime::CudaDriver* d = tmc::runtime::LoadCudaDriver(&error);
  if (!d) return Fail(TMC_ERROR_NO_DRIVER, error);
  int count = 0;
  if (d->cuDeviceGetCount(&count) != 0 || device < 0 || device >= count)
    return Fail(TMC_ERROR_NO_DEVICE, "no CUDA device " + std::to_string(device) + " (" + std::to_string(count) + " found)");
  auto ctx = std::make_unique<tmc_context>();
  ctx->driver = d;
  int dev = 0;
  TMC_CU(ctx, cuDeviceGet(&dev, device));
  ctx->device = dev;
  TMC_CU(ctx, cuDevicePrimaryCtxRetain(&ctx->cu_context, dev));
  *out = ctx.release();
  return TMC_SUCCESS;
}

tmc_status tmc_init_auto(tmc_context** out) {
  if (!out) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_init_auto: null output");
  if (const char* env = std::getenv("TMC_DEVICE"); env && *env) {
    if (std::strcmp(env, "cpu") == 0) return tmc_init(TMC_DEVICE_CPU, out);
    char* end = nullptr;
    long device = std::strtol(env, &end, 10);
    if (*end || device < 0 || device > 1024)
      return Fail(TMC_ERROR_INVALID_ARGUMENT, std::string("TMC_DEVICE='") + env + "': expected 'cpu' or a device number");
    return tmc_init(static_cast<int>(device), out);
  }
  tmc_status s = tmc_init(0, out);
  if (s == TMC_ERROR_NO_DRIVER || s == TMC_ERROR_NO_DEVICE) return tmc_init(TMC_DEVICE_CPU, out);
  return s;
}

int tmc_context_is_cpu(const tmc_context* ctx) { return ctx && ctx->cpu() ? 1 : 0; }

tmc_status tmc_device_name(tmc_context* ctx, char* name, size_t size) {
  if (!ctx || !name || size == 0) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_device_name: null or empty output");
  if (ctx->cpu()) {
    std::snprintf(name, size, "%s", "CPU executor");
    return TMC_SUCCESS;
  }
  TMC_CU(ctx, cuDeviceGetName(name, static_cast<int>(size), ctx->device));
  name[size - 1] = '\0';
  return TMC_SUCCESS;
}

tmc_status tmc_device_compute_capability(tmc_context* ctx, int* major, int* minor) {
  if (!ctx || !major || !minor) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_device_compute_capability: null argument");
  if (ctx->cpu()) {
    *major = *minor = 0;
    return Fail(TMC_ERROR_NO_DEVICE, "a CPU context has no compute capability");
  }
  constexpr int kMajor = 75, kMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR
  TMC_CU(ctx, cuDeviceGetAttribute(major, kMajor, ctx->device));
  TMC_CU(ctx, cuDeviceGetAttribute(minor, kMinor, ctx->device));
  return TMC_SUCCESS;
}

const char* tmc_runtime_version(void) { return TMC_RUNTIME_VERSION_STRING; }

tmc_status tmc_set_error(tmc_status status, const char* message) { return Fail(status, message ? message : ""); }

void tmc_shutdown(tmc_context* ctx) {
  if (!ctx) return;
  if (!ctx->cpu()) ctx->driver->cuDevicePrimaryCtxRelease(ctx->device);
  delete ctx;
}

tmc_status tmc_module_load(tmc_context* ctx, const void* image, size_t image_size, const char* metadata_json,
                           tmc_module** out) {
  if (!ctx || !image || image_size == 0 || !metadata_json || !out)
    return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_module_load: null or empty input");
  if (ctx->cpu())
    return Fail(TMC_ERROR_INVALID_ARGUMENT,
                "tmc_module_load: a CPU context runs host-compiled kernels only (tmc_module_load_host, tmc lib --cpu)");
  std::vector<tmc::runtime::KernelSignature> sigs;
  std::string error;
  if (!tmc::runtime::ParseKernelMetadata(metadata_json, &sigs, &error))
    return Fail(TMC_ERROR_METADATA, "kernel metadata: " + error);
  // PTX must be NUL-terminated for the driver; cubins are used as they are.
  std::string copy(static_cast<const char*>(image), image_size);
  auto m = std::make_unique<tmc_module>();
  m->ctx = ctx;
  TMC_CU(ctx, cuModuleLoadData(&m->cu_module, copy.c_str()));
  for (auto& sig : sigs) {
    auto k = std::make_unique<tmc_kernel>();
    k->module = m.get();
    CurrentContext current(ctx);
    int rc = ctx->driver->cuModuleGetFunction(&k->function, m->cu_module, sig.name.c_str());
    if (rc != 0) {
      ctx->driver->cuModuleUnload(m->cu_module);
      return Fail(TMC_ERROR_CUDA, "cuModuleGetFunction(" + sig.name + "): " + tmc::runtime::CudaErrorString(*ctx->driver, rc));
    }
    k->signature = std::move(sig);
    m->kernels[k->signature.name] = std::move(k);
  }
  if (tmc_status s = AddGraphs(m.get(), metadata_json); s != TMC_SUCCESS) {
    CurrentContext current(ctx);
    ctx->driver->cuModuleUnload(m->cu_module);
    return s;
  }
  *out = m.release();
  return TMC_SUCCESS;
}

tmc_status tmc_module_load_host(tmc_context* ctx, const tmc_host_image* image, tmc_module** out) {
  if (!ctx || !image || !image->metadata_json || (!image->kernels && image->num_kernels) || !out)
    return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_module_load_host: null input");
  if (!ctx->cpu())
    return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_module_load_host: host-compiled kernels run on a CPU context only");
  std::vector<tmc::runtime::KernelSignature> sigs;
  std::string error;
  if (!tmc::runtime::ParseKernelMetadata(image->metadata_json, &sigs, &error))
    return Fail(TMC_ERROR_METADATA, "kernel metadata: " + error);
  auto m = std::make_unique<tmc_module>();
  m->ctx = ctx;
  for (size_t i = 0; image->sites && i < image->num_sites; ++i) m->sites.push_back(image->sites[i] ? image->sites[i] : "");
  for (auto& sig : sigs) {
    auto k = std::make_unique<tmc_kernel>();
    k->module = m.get();
    for (size_t i = 0; i < image->num_kernels; ++i)
      if (image->kernels[i].name && sig.name == image->kernels[i].name)
        k->host = reinterpret_cast<tmc_cpu_kernel_fn>(image->kernels[i].entry);
    if (!k->host) return Fail(TMC_ERROR_NOT_FOUND, "no host code for kernel '" + sig.name + "'");
    k->signature = std::move(sig);
    m->kernels[k->signature.name] = std::move(k);
  }
  if (tmc_status s = AddGraphs(m.get(), image->metadata_json); s != TMC_SUCCESS) return s;
  *out = m.release();
  return TMC_SUCCESS;
}

void tmc_module_unload(tmc_module* m) {
  if (!m) return;
  for (auto& [name, g] : m->graphs)
    if (g->workspace) DeviceFree(m->ctx, g->workspace);
  if (!m->ctx->cpu()) {
    CurrentContext current(m->ctx);
    m->ctx->driver->cuModuleUnload(m->cu_module);
  }
  delete m;
}

tmc_status tmc_module_get_kernel(tmc_module* m, const char* name, tmc_kernel** out) {
  if (!m || !name || !out) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_module_get_kernel: null input");
  auto it = m->kernels.find(name);
  if (it == m->kernels.end()) return Fail(TMC_ERROR_NOT_FOUND, std::string("no kernel '") + name + "' in the module");
  *out = it->second.get();
  return TMC_SUCCESS;
}

tmc_status tmc_module_get_graph(tmc_module* m, const char* name, tmc_graph** out) {
  if (!m || !name || !out) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_module_get_graph: null input");
  auto it = m->graphs.find(name);
  if (it == m->graphs.end()) return Fail(TMC_ERROR_NOT_FOUND, std::string("no graph '") + name + "' in the module");
  *out = it->second.get();
  return TMC_SUCCESS;
}

tmc_status tmc_graph_workspace_size(tmc_graph* g, const tmc_arg* args, int num_args, size_t* bytes) {
  if (!g || !bytes) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_graph_workspace_size: null input");
  tmc::runtime::BoundGraph bound;
  std::string error;
  if (!tmc::runtime::BindGraph(g->plan, args, num_args, &bound, &error)) return Fail(TMC_ERROR_SIGNATURE, error);
  *bytes = bound.workspace_bytes;
  return TMC_SUCCESS;
}

tmc_status tmc_graph_launch(tmc_graph* g, const tmc_arg* args, int num_args, uint64_t workspace, size_t workspace_bytes,
                            tmc_stream* stream) {
  if (!g) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_graph_launch: null graph");
  const tmc::runtime::GraphPlan& plan = g->plan;
  tmc::runtime::BoundGraph bound;
  std::string error;
  if (!tmc::runtime::BindGraph(plan, args, num_args, &bound, &error)) return Fail(TMC_ERROR_SIGNATURE, error);
  if (workspace && workspace_bytes < bound.workspace_bytes)
    return Fail(TMC_ERROR_INVALID_ARGUMENT, "graph '" + plan.name + "' needs a workspace of " +
                                                std::to_string(bound.workspace_bytes) + " bytes for these shapes; " +
                                                std::to_string(workspace_bytes) + " given");
  if (workspace && workspace % 256 != 0)
    return Fail(TMC_ERROR_INVALID_ARGUMENT, "graph '" + plan.name + "': the workspace must be 256-byte aligned");
  tmc_context* ctx = g->module->ctx;
  std::unique_lock<std::mutex> lock(g->workspace_lock, std::defer_lock);
  if (!workspace && bound.workspace_bytes > 0) {
    lock.lock();
    if (g->workspace_bytes < bound.workspace_bytes) {
      if (g->workspace)
        if (tmc_status s = DeviceFree(ctx, g->workspace); s != TMC_SUCCESS) return s;
      g->workspace = 0;
      g->workspace_bytes = 0;
      uint64_t p = 0;
      if (tmc_status s = DeviceAlloc(ctx, bound.workspace_bytes, &p); s != TMC_SUCCESS) return s;
      g->workspace = p;
      g->workspace_bytes = bound.workspace_bytes;
    }
    workspace = g->workspace;
  }
  // Every step's arguments are checked before the first launch: a plan
  // that cannot run launches nothing.
  std::vector<std::vector<tmc_arg>> step_args(plan.steps.size());
  std::vector<tmc_kernel*> chosen(plan.steps.size());
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    tmc::runtime::CheckedLaunch checked;
    std::vector<const tmc::runtime::KernelSignature*> sigs;
    for (tmc_kernel* k : g->kernels[i]) sigs.push_back(&k->signature);
    int pick = -1;
    if (tmc::runtime::StepArguments(plan, bound, i, args, workspace, &step_args[i], &error))
      pick = tmc::runtime::ChooseAlternative(sigs, step_args[i], &checked, &error);
    if (pick < 0)
      return Fail(TMC_ERROR_SIGNATURE, "graph '" + plan.name + "', kernel " + std::to_string(i) + " ('" +
                                           plan.steps[i].kernel + "'): " + error);
    chosen[i] = g->kernels[i][static_cast<size_t>(pick)];
  }
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    tmc_status s = tmc_launch(chosen[i], step_args[i].data(), static_cast<int>(step_args[i].size()), stream);
    if (s != TMC_SUCCESS) return s;
  }
  return TMC_SUCCESS;
}

namespace {

// A CUtensorMap: 128 bytes, 64-byte aligned.
struct alignas(64) TensorMapSlot {
  uint64_t words[16] = {};
};

// CUtensorMapDataType of a tensor's elements (integers by their width).
int TensorMapDtype(tmc_dtype d) {
  switch (d) {
    case TMC_F16: return 6;
    case TMC_F32: return 7;
    case TMC_F64: return 8;
    case TMC_BF16: return 9;
    default: break;
  }
  switch (tmc::runtime::DtypeBytes(d)) {
    case 1: return 0;  // UINT8
    case 2: return 1;  // UINT16
    case 4: return 2;  // UINT32
    default: return 4; // UINT64
  }
}

// cuTensorMapEncodeTiled for a row-major tensor at `address`: dimensions
// and box innermost first, strides in bytes (the checks before the launch
// made them multiples of 16), no interleave, zero fill out of bounds, the
// swizzle of the kernel's tiles.
tmc_status EncodeTensorMap(tmc_context* ctx, const tmc::runtime::KernelSignature& sig,
                           const tmc::runtime::ParamInfo& p, uint64_t address,
                           const tmc::runtime::CheckedLaunch& launch, TensorMapSlot* out) {
  if (p.tma_box.empty()) return TMC_SUCCESS;  // the kernel never copies through the map
  if (!ctx->driver->cuTensorMapEncodeTiled)
    return Fail(TMC_ERROR_CUDA, "kernel '" + sig.name + "' takes '" + p.name +
                                    "' as a TMA tensor map, but this CUDA driver has no cuTensorMapEncodeTiled (CUDA 12 or later)");
  size_t rank = p.shape.size();
  unsigned long long dims[5], strides[4];
  unsigned box[5], element_strides[5];
  std::string error;
  uint64_t elem = tmc::runtime::DtypeBytes(p.dtype), stride = elem;
  for (size_t d = 0; d < rank; ++d) {
    size_t src = rank - 1 - d;  // innermost first
    std::optional<int64_t> extent = tmc::runtime::EvalFormula(p.shape[src], launch.symbols, &error);
    if (!extent) return Fail(TMC_ERROR_SIGNATURE, "kernel '" + sig.name + "': tensor map of '" + p.name + "': " + error);
    dims[d] = static_cast<unsigned long long>(*extent);
    box[d] = static_cast<unsigned>(p.tma_box[src]);
    element_strides[d] = 1;
    if (d > 0) strides[d - 1] = stride;
    stride *= static_cast<uint64_t>(*extent);
  }
  int swizzle = p.tma_swizzle == 128 ? 3 : p.tma_swizzle == 64 ? 2 : p.tma_swizzle == 32 ? 1 : 0;
  int rc = ctx->driver->cuTensorMapEncodeTiled(out, TensorMapDtype(p.dtype), static_cast<unsigned>(rank),
                                               reinterpret_cast<void*>(address), dims, strides, box, element_strides,
                                               /*interleave=*/0, swizzle, /*L2 promotion 128B=*/2, /*zero fill=*/0);
  if (rc != 0)
    return Fail(TMC_ERROR_CUDA, "kernel '" + sig.name + "': cuTensorMapEncodeTiled for '" + p.name +
                                    "': " + tmc::runtime::CudaErrorString(*ctx->driver, rc));
  return TMC_SUCCESS;
}

}  // namespace

tmc_status tmc_launch(tmc_kernel* k, const tmc_arg* args, int num_args, tmc_stream* stream) {
  if (!k) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_launch: null kernel");
  tmc::runtime::CheckedLaunch launch;
  std::string error;
  if (!tmc::runtime::CheckArguments(k->signature, args, num_args, &launch, &error))
    return Fail(TMC_ERROR_SIGNATURE, "kernel '" + k->signature.name + "': " + error);
  // Parameter storage: one 8-byte slot per parameter, in signature order.
  std::vector<uint64_t> storage(k->signature.params.size());
  std::vector<void*> params(k->signature.params.size());
  int written = 0;
  for (size_t i = 0; i < k->signature.params.size(); ++i) {
    const tmc::runtime::ParamInfo& p = k->signature.params[i];
    uint64_t& slot = storage[i];
    if (p.kind == tmc::runtime::ParamInfo::Kind::Shape) {
      int32_t v = static_cast<int32_t>(launch.symbols.at(p.name));
      std::memcpy(&slot, &v, sizeof v);
    } else {
      const tmc_arg& a = args[written++];
      if (p.kind == tmc::runtime::ParamInfo::Kind::Tensor) slot = a.tensor.data;
      else slot = tmc::runtime::PackScalar(p.dtype, a);
    }
    params[i] = &slot;
  }
  tmc_context* ctx = k->module->ctx;
  if (ctx->cpu()) return LaunchOnCpu(k, launch, storage);
  const tmc::runtime::KernelSignature& sig = k->signature;
  if (sig.dynamic_shared && !k->attribute_set) {
    TMC_CU(ctx, cuFuncSetAttribute(k->function, kMaxDynamicSharedAttribute, static_cast<int>(sig.shared_bytes)));
    k->attribute_set = true;
  }
  // Tensor-map parameters (`by tma`) are passed by value: 128 bytes that
  // the driver encodes from the tensor and the box the kernel copies.
  // (Allocated only for a kernel that has them: launches are a hot path.)
  std::vector<TensorMapSlot> maps;
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const tmc::runtime::ParamInfo& p = sig.params[i];
    if (!p.tma) continue;
    if (maps.empty()) maps.resize(sig.params.size());  // once: the pointers below stay valid
    if (tmc_status st = EncodeTensorMap(ctx, sig, p, storage[i], launch, &maps[i]); st != TMC_SUCCESS) return st;
    params[i] = &maps[i];
  }
  unsigned dynamic = sig.dynamic_shared ? static_cast<unsigned>(sig.shared_bytes) : 0;
  TMC_CU(ctx, cuLaunchKernel(k->function, static_cast<unsigned>(launch.grid[0]), static_cast<unsigned>(launch.grid[1]),
                             static_cast<unsigned>(launch.grid[2]), static_cast<unsigned>(launch.block[0]),
                             static_cast<unsigned>(launch.block[1]), static_cast<unsigned>(launch.block[2]), dynamic,
                             stream ? stream->cu_stream : nullptr, params.data(), nullptr));
  return TMC_SUCCESS;
}

tmc_status tmc_malloc(tmc_context* ctx, size_t bytes, uint64_t* ptr) {
  if (!ctx || !ptr) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_malloc: null input");
  return DeviceAlloc(ctx, bytes, ptr);
}

tmc_status tmc_free(tmc_context* ctx, uint64_t ptr) {
  if (!ctx) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_free: null context");
  return DeviceFree(ctx, ptr);
}

tmc_status tmc_copy_to_device(tmc_context* ctx, uint64_t dst, const void* src, size_t bytes) {
  if (!ctx || (!src && bytes)) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_copy_to_device: null input");
  if (ctx->cpu()) {
    if (bytes) std::memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(dst)), src, bytes);
    return TMC_SUCCESS;
  }
  TMC_CU(ctx, cuMemcpyHtoD(dst, src, bytes));
  return TMC_SUCCESS;
}

tmc_status tmc_copy_to_host(tmc_context* ctx, void* dst, uint64_t src, size_t bytes) {
  if (!ctx || (!dst && bytes)) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_copy_to_host: null input");
  if (ctx->cpu()) {
    if (bytes) std::memcpy(dst, reinterpret_cast<const void*>(static_cast<uintptr_t>(src)), bytes);
    return TMC_SUCCESS;
  }
  TMC_CU(ctx, cuMemcpyDtoH(dst, src, bytes));
  return TMC_SUCCESS;
}

tmc_status tmc_synchronize(tmc_context* ctx) {
  if (!ctx) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_synchronize: null context");
  if (ctx->cpu()) return TMC_SUCCESS;
  TMC_CU(ctx, cuCtxSynchronize());
  return TMC_SUCCESS;
}

tmc_status tmc_stream_create(tmc_context* ctx, tmc_stream** out) {
  if (!ctx || !out) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_stream_create: null input");
  auto s = std::make_unique<tmc_stream>();
  s->ctx = ctx;
  if (!ctx->cpu()) TMC_CU(ctx, cuStreamCreate(&s->cu_stream, 0));
  *out = s.release();
  return TMC_SUCCESS;
}

tmc_status tmc_stream_wrap(tmc_context* ctx, void* cuda_stream, tmc_stream** out) {
  if (!ctx || !out) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_stream_wrap: null input");
  auto s = std::make_unique<tmc_stream>();
  s->ctx = ctx;
  s->cu_stream = ctx->cpu() ? nullptr : cuda_stream;
  s->owned = false;
  *out = s.release();
  return TMC_SUCCESS;
}

tmc_status tmc_stream_synchronize(tmc_stream* s) {
  if (!s) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_stream_synchronize: null stream");
  if (s->ctx->cpu()) return TMC_SUCCESS;
  TMC_CU(s->ctx, cuStreamSynchronize(s->cu_stream));
  return TMC_SUCCESS;
}

void tmc_stream_destroy(tmc_stream* s) {
  if (!s) return;
  if (s->owned && !s->ctx->cpu()) {
    CurrentContext current(s->ctx);
    s->ctx->driver->cuStreamDestroy(s->cu_stream);
  }
  delete s;
}

tmc_status tmc_event_create(tmc_context* ctx, tmc_event** out) {
  if (!ctx || !out) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_event_create: null input");
  auto e = std::make_unique<tmc_event>();
  e->ctx = ctx;
  if (!ctx->cpu()) TMC_CU(ctx, cuEventCreate(&e->cu_event, 0));
  *out = e.release();
  return TMC_SUCCESS;
}

tmc_status tmc_event_record(tmc_event* e, tmc_stream* s) {
  if (!e) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_event_record: null event");
  if (e->ctx->cpu()) {
    e->recorded = std::chrono::steady_clock::now();
    return TMC_SUCCESS;
  }
  TMC_CU(e->ctx, cuEventRecord(e->cu_event, s ? s->cu_stream : nullptr));
  return TMC_SUCCESS;
}

tmc_status tmc_event_elapsed_ms(tmc_event* start, tmc_event* end, float* ms) {
  if (!start || !end || !ms) return Fail(TMC_ERROR_INVALID_ARGUMENT, "tmc_event_elapsed_ms: null input");
  if (start->ctx->cpu()) {
    *ms = std::chrono::duration<float, std::milli>(end->recorded - start->recorded).count();
    return TMC_SUCCESS;
  }
  TMC_CU(start->ctx, cuEventSynchronize(end->cu_event));
  TMC_CU(start->ctx, cuEventElapsedTime(ms, start->cu_event, end->cu_event));
  return TMC_SUCCESS;
}

void tmc_event_destroy(tmc_event* e) {
  if (!e) return;
  if (!e->ctx->cpu()) {
    CurrentContext current(e->ctx);
    e->ctx->driver->cuEventDestroy(e->cu_event);
  }
  delete e;
}

}  // extern "C"
