// Every entry point listed in cuda_driver_functions.def must resolve (but
// the optional ones, checked where used), so a driver too old for one of
// them is reported as such, not used half-way.
#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace tmc::runtime {

const CudaDriver* LoadCudaDriver(std::string* error) {
  static CudaDriver driver;
  static std::string load_error;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("TMC_LIBCUDA");
    const char* path = env ? env : "libcuda.so.1";
    driver.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!driver.handle) {
      const char* why = dlerror();
      load_error = std::string("no CUDA driver found: ") + (why ? why : path);
      return;
    }
#define TMC_CUDA_FN(name, symbol, ret, params)                                  \
  driver.name = reinterpret_cast<ret(*) params>(dlsym(driver.handle, symbol)); \
  if (!driver.name) {                                                          \
    load_error = std::string("the CUDA driver has no ") + symbol;              \
    return;                                                                    \
  }
#define TMC_CUDA_FN_OPTIONAL(name, symbol, ret, params) \
  driver.name = reinterpret_cast<ret(*) params>(dlsym(driver.handle, symbol));
#include "runtime/cuda_driver_functions.def"
    int rc = driver.cuInit(0);
    if (rc != 0) load_error = "cuInit failed: " + CudaErrorString(driver, rc);
  });
  if (!load_error.empty()) {
    *error = load_error;
    return nullptr;
  }
  return &driver;
}

std::string CudaErrorString(const CudaDriver& d, int result) {
  const char* s = nullptr;
  if (d.cuGetErrorString && d.cuGetErrorString(result, &s) == 0 && s)
    return std::string(s) + " (CUDA error " + std::to_string(result) + ")";
  return "CUDA error " + std::to_string(result);
}

}  // namespace tmc::runtime
