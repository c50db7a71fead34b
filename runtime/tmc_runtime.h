/* tmc host runtime: load compiled kernels (PTX or cubin plus their
 * metadata), check arguments against each kernel's signature, launch them.
 * A C API (usable from any language) with no dependency on the compiler or
 * LLVM. The CUDA driver is loaded at run time: on a machine without one,
 * tmc_init reports TMC_ERROR_NO_DRIVER ("no CUDA driver found").
 * docs/runtime.md has an example host program. */
#ifndef TMC_RUNTIME_H
#define TMC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; tmc_runtime_version() gives the library's.
 * The C ABI is stable within a major version (the SONAME's number:
 * libtmc_runtime.so.0); docs/runtime.md. */
#define TMC_RUNTIME_VERSION_MAJOR 0
#define TMC_RUNTIME_VERSION_MINOR 1
#define TMC_RUNTIME_VERSION_PATCH 0
#define TMC_RUNTIME_VERSION_STRING "0.1.0"
const char* tmc_runtime_version(void);

typedef enum {
  TMC_SUCCESS = 0,
  TMC_ERROR_NO_DRIVER,         /* libcuda.so.1 could not be loaded */
  TMC_ERROR_NO_DEVICE,         /* the driver reports no such GPU */
  TMC_ERROR_CUDA,              /* a driver call failed; see tmc_last_error() */
  TMC_ERROR_INVALID_ARGUMENT,  /* null pointers, bad sizes */
  TMC_ERROR_SIGNATURE,         /* arguments do not match the kernel's signature */
  TMC_ERROR_NOT_FOUND,         /* no kernel of that name in the module */
  TMC_ERROR_METADATA,          /* the kernel metadata could not be parsed */
  TMC_ERROR_KERNEL_FAULT       /* a kernel run by the CPU executor faulted (a barrier not reached by
                                  every thread, an integer division by zero); see tmc_last_error() */
} tmc_status;

/* Element types, in the order of the language's scalar types. */
typedef enum {
  TMC_BOOL, TMC_I8, TMC_I16, TMC_I32, TMC_I64, TMC_U8, TMC_U16, TMC_U32, TMC_U64,
  TMC_F16, TMC_BF16, TMC_F32, TMC_F64
} tmc_dtype;

#define TMC_MAX_RANK 8

/* A tensor argument: device memory and its logical shape. */
typedef struct {
  uint64_t data; /* device address (tmc_malloc) */
  tmc_dtype dtype;
  int rank;
  int64_t shape[TMC_MAX_RANK];
} tmc_tensor;

/* One kernel argument, in the order of the kernel's parameters as written
 * (shape symbols are not passed: they are taken from the tensors). */
typedef struct {
  int is_tensor;
  tmc_tensor tensor;   /* if is_tensor */
  tmc_dtype dtype;     /* if a scalar */
  union {
    int64_t i;
    double f;
  } value;
} tmc_arg;

typedef struct tmc_context tmc_context;
typedef struct tmc_module tmc_module;
typedef struct tmc_kernel tmc_kernel;
typedef struct tmc_graph tmc_graph;
typedef struct tmc_stream tmc_stream;
typedef struct tmc_event tmc_event;

/* A readable description of the last failure on this thread. */
const char* tmc_last_error(void);
/* Records `message` as this thread's last error and returns `status`: for
 * code built on the runtime (the functions tmc lib generates). */
tmc_status tmc_set_error(tmc_status status, const char* message);
const char* tmc_status_name(tmc_status status);

/* A context on CUDA device `device` (its primary context, the one the CUDA
 * runtime and PyTorch use), or, with TMC_DEVICE_CPU, on the CPU executor:
 * "device memory" is host memory, kernels run on the host's cores with the
 * GPU's semantics (slow: for tests and machines without a GPU), and every
 * call is synchronous. A CPU context runs host-compiled kernels only
 * (tmc_module_load_host, tmc lib --cpu). */
#define TMC_DEVICE_CPU (-1)
/* tmc_init(TMC_DEVICE_AUTO, &ctx) is tmc_init_auto(&ctx). */
#define TMC_DEVICE_AUTO (-2)
tmc_status tmc_init(int device, tmc_context** ctx);
/* CUDA device 0 when a driver and a device are present, else the CPU
 * executor. The environment variable TMC_DEVICE overrides: `cpu`, or a
 * device number. */
tmc_status tmc_init_auto(tmc_context** ctx);
/* 1 for a context on the CPU executor, 0 for a GPU one. */
int tmc_context_is_cpu(const tmc_context* ctx);
void tmc_shutdown(tmc_context* ctx);
/* The device's name ("NVIDIA H200"), at most size - 1 characters. */
tmc_status tmc_device_name(tmc_context* ctx, char* name, size_t size);
/* The device's compute capability: 9 and 0 for an H100/H200. */
tmc_status tmc_device_compute_capability(tmc_context* ctx, int* major, int* minor);

/* `image`: PTX text (NUL-terminated) or a cubin; `metadata_json`: the
 * output of `tmc --emit=meta` for the same module. */
tmc_status tmc_module_load(tmc_context* ctx, const void* image, size_t image_size,
                           const char* metadata_json, tmc_module** module);
/* Host-compiled kernels for a CPU context (the functions tmc lib --cpu
 * generates): each kernel of the metadata by name, with its entry point,
 * and optionally the source location ("file:line:col") of each site id, for
 * the reports of faults. */
typedef void (*tmc_host_kernel_fn)(void* thread, const uint64_t* args);
typedef struct {
  const char* name;
  tmc_host_kernel_fn entry;
} tmc_host_kernel;
typedef struct {
  const char* metadata_json;
  const tmc_host_kernel* kernels;
  size_t num_kernels;
  const char* const* sites; /* may be null */
  size_t num_sites;
} tmc_host_image;
tmc_status tmc_module_load_host(tmc_context* ctx, const tmc_host_image* image, tmc_module** module);
void tmc_module_unload(tmc_module* module);
tmc_status tmc_module_get_kernel(tmc_module* module, const char* name, tmc_kernel** kernel);

/* Checks the arguments (dtypes, ranks, consistent shape symbols, fixed
 * dimensions), computes the grid from the kernel's launch formulas, sets
 * the dynamic shared-memory attribute when needed, and launches. Nothing
 * is launched when the check fails. */
tmc_status tmc_launch(tmc_kernel* kernel, const tmc_arg* args, int num_args, tmc_stream* stream);

/* Graphs (`tmc FILE --graph NAME --emit=meta` puts a graph's launch plan
 * in the module metadata). `args` are the graph's parameters in order:
 * its inputs, then its outputs (tensors and scalars, as for tmc_launch).
 * Intermediate values live in a workspace whose size depends on the
 * shapes: pass one of at least tmc_graph_workspace_size() bytes (256-byte
 * aligned), or 0 to let the graph allocate one, kept until the module is
 * unloaded (one per graph: calls from several threads or on several
 * streams of a GPU must pass their own). Every kernel's arguments are checked before the first launch;
 * the kernels run in order on `stream`. */
tmc_status tmc_module_get_graph(tmc_module* module, const char* name, tmc_graph** graph);
tmc_status tmc_graph_workspace_size(tmc_graph* graph, const tmc_arg* args, int num_args, size_t* bytes);
tmc_status tmc_graph_launch(tmc_graph* graph, const tmc_arg* args, int num_args, uint64_t workspace,
                            size_t workspace_bytes, tmc_stream* stream);

tmc_status tmc_malloc(tmc_context* ctx, size_t bytes, uint64_t* ptr);
tmc_status tmc_free(tmc_context* ctx, uint64_t ptr);
tmc_status tmc_copy_to_device(tmc_context* ctx, uint64_t dst, const void* src, size_t bytes);
tmc_status tmc_copy_to_host(tmc_context* ctx, void* dst, uint64_t src, size_t bytes);
tmc_status tmc_synchronize(tmc_context* ctx);

tmc_status tmc_stream_create(tmc_context* ctx, tmc_stream** stream);
/* A tmc_stream for an existing CUDA stream (a CUstream or cudaStream_t, 0
 * for the legacy default stream) of the context's device, e.g. PyTorch's
 * current stream; tmc_stream_destroy does not destroy the CUDA stream. On
 * a CPU context the stream is ignored. */
tmc_status tmc_stream_wrap(tmc_context* ctx, void* cuda_stream, tmc_stream** stream);
tmc_status tmc_stream_synchronize(tmc_stream* stream);
void tmc_stream_destroy(tmc_stream* stream);
tmc_status tmc_event_create(tmc_context* ctx, tmc_event** event);
tmc_status tmc_event_record(tmc_event* event, tmc_stream* stream);
tmc_status tmc_event_elapsed_ms(tmc_event* start, tmc_event* end, float* ms);
void tmc_event_destroy(tmc_event* event);

#ifdef __cplusplus
}
#endif

#endif /* TMC_RUNTIME_H */
