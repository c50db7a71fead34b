// The generated C header from C++: scale_rows on a GPU when there is one,
// else on the CPU executor.
#include <cmath>
#include <cstdio>
#include <vector>

#include "kernels.h"

int main() {
  tmc_context* ctx = nullptr;
  tmc_status st = tmc_init_auto(&ctx);
  std::printf("runtime %s\n", tmc_runtime_version());
  const int R = 37, C = 300;
  tmc_tensor x{0, TMC_F32, 2, {R, C}}, y{0, TMC_F32, 2, {R, C}};
  if (st != TMC_SUCCESS) return std::printf("tmc_init_auto: %s\n", tmc_last_error()), 1;
  std::printf("device: %s\n", tmc_context_is_cpu(ctx) ? "CPU executor" : "GPU");
  std::vector<float> host(R * C), out(R * C);
  for (int i = 0; i < R * C; ++i) host[i] = 0.01f * static_cast<float>(i % 101) + 0.0625f;
  uint64_t dx = 0, dy = 0;
  tmc_malloc(ctx, host.size() * 4, &dx);
  tmc_malloc(ctx, host.size() * 4, &dy);
  tmc_copy_to_device(ctx, dx, host.data(), host.size() * 4);
  x.data = dx;
  y.data = dy;
  if ((st = scale_rows(ctx, nullptr, &x, 2.5f, &y)) != TMC_SUCCESS || (st = tmc_synchronize(ctx)) != TMC_SUCCESS)
    return std::printf("scale_rows: %s\n", tmc_last_error()), 1;
  tmc_copy_to_host(ctx, out.data(), dy, out.size() * 4);
  int bad = 0;
  for (int i = 0; i < R * C; ++i) bad += std::fabs(out[i] - 2.5f * host[i]) > 1e-5f;
  std::printf("result: %s\n", bad ? "FAIL" : "PASS");
  kernels_unload(ctx);
  tmc_shutdown(ctx);
  return bad != 0;
}
