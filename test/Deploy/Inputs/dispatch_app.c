/* A library with tuned variants (tmc lib with a tuning database and no
 * --shape): each call runs the variant tuned nearest to its shapes, which
 * the kernels write into their output (V); a variant whose conditions
 * refuse the shape falls back to the default build (V = 1). On the CPU
 * executor, through the typed functions and through fl_call_kernel. */
#include <stdio.h>
#include <stdlib.h>

#include "fl.h"

static int32_t x[20000], y[20000];

static void run(tmc_context* ctx, const char* kernel, int64_t n) {
  tmc_tensor tx = {0, TMC_I32, 1, {0}}, ty = {0, TMC_I32, 1, {0}};
  tmc_status st;
  tx.data = (uint64_t)(uintptr_t)x, ty.data = (uint64_t)(uintptr_t)y;
  tx.shape[0] = ty.shape[0] = n;
  y[0] = y[n - 1] = -1;
  st = kernel[4] == '_' ? fill_div(ctx, NULL, &tx, &ty) : fill(ctx, NULL, &tx, &ty);
  printf("%s N=%lld: %s, V=%d", kernel, (long long)n, tmc_status_name(st), (int)y[n - 1]);
  {
    tmc_arg args[2] = {{0}};
    args[0].is_tensor = args[1].is_tensor = 1;
    args[0].tensor = tx, args[1].tensor = ty;
    y[n - 1] = -1;
    st = fl_call_kernel(ctx, NULL, kernel, args, 2);
    printf(" (fl_call_kernel: V=%d)\n", (int)y[n - 1]);
  }
}

int main(void) {
  tmc_context* ctx = NULL;
  if (tmc_init(TMC_DEVICE_CPU, &ctx) != TMC_SUCCESS) return 1;
  run(ctx, "fill", 50);
  run(ctx, "fill", 64);
  run(ctx, "fill", 400); /* as many buckets from 64 as from 4096: the smaller ratio (6.25 < 10.24) */
  run(ctx, "fill", 700);
  run(ctx, "fill", 5000);
  run(ctx, "fill_div", 4096);
  run(ctx, "fill_div", 4098);
  run(ctx, "fill_div", 60);
  printf("unknown: %s\n", tmc_status_name(fl_call_kernel(ctx, NULL, "nope", NULL, 0)));
  tmc_shutdown(ctx);
  return 0;
}
