// The CUDA driver, loaded at run time from libcuda.so.1 (or $TMC_LIBCUDA).
#pragma once

#include <string>

namespace tmc::runtime {

struct CudaDriver {
#define TMC_CUDA_FN(name, symbol, ret, params) ret(*name) params = nullptr;
#include "runtime/cuda_driver_functions.def"
  void* handle = nullptr;
};

/// The process-wide driver, loaded and initialized on first use; null (with
/// `error` set to "no CUDA driver found: ...") when it cannot be.
const CudaDriver* LoadCudaDriver(std::string* error);

/// "CUDA_ERROR_...: description" for a driver result.
std::string CudaErrorString(const CudaDriver& d, int result);

}  // namespace tmc::runtime
