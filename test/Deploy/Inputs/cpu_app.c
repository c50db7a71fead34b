/* tmc lib --cpu: a C program runs the library's kernels on the CPU
 * executor (a CPU context) and checks them: matmul_simt at a shape its
 * tiles do not divide against a host computation, and a kernel that
 * divides by a caller's zero, whose fault is reported with its location. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu.h"

#define M 70
#define N 90
#define K 33

static float a[M * K], b[K * N], c[M * N];
static int32_t x[300], y[300];

int main(void) {
  tmc_context* ctx = NULL;
  tmc_tensor ta = {0, TMC_F32, 2, {M, K}}, tb = {0, TMC_F32, 2, {K, N}}, tc = {0, TMC_F32, 2, {M, N}};
  tmc_tensor tx = {0, TMC_I32, 1, {300}}, ty = {0, TMC_I32, 1, {300}};
  int i, j, k, bad = 0;
  tmc_status st;
  if (tmc_init(TMC_DEVICE_CPU, &ctx) != TMC_SUCCESS) return printf("tmc_init: %s\n", tmc_last_error()), 1;
  printf("cpu context: %d\n", tmc_context_is_cpu(ctx));
  srand(7);
  for (i = 0; i < M * K; ++i) a[i] = (float)(rand() % 2001 - 1000) / 1000.0f;
  for (i = 0; i < K * N; ++i) b[i] = (float)(rand() % 2001 - 1000) / 1000.0f;
  /* Host memory is device memory on a CPU context. */
  ta.data = (uint64_t)(uintptr_t)a, tb.data = (uint64_t)(uintptr_t)b, tc.data = (uint64_t)(uintptr_t)c;
  if ((st = matmul_simt(ctx, NULL, &ta, &tb, &tc)) != TMC_SUCCESS) return printf("matmul_simt: %s\n", tmc_last_error()), 1;
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      double ref = 0;
      for (k = 0; k < K; ++k) ref += (double)a[i * K + k] * b[k * N + j];
      if (fabs(c[i * N + j] - ref) > 1e-4 + 1e-4 * fabs(ref)) ++bad;
    }
  printf("matmul_simt: %s (%d of %d off)\n", bad ? "FAIL" : "PASS", bad, M * N);
  /* A wrong shape is refused. */
  tc.shape[1] = N + 1;
  st = matmul_simt(ctx, NULL, &ta, &tb, &tc);
  printf("wrong shape: %s: %s\n", tmc_status_name(st), tmc_last_error());
  for (i = 0; i < 300; ++i) x[i] = i * 7 - 500;
  tx.data = (uint64_t)(uintptr_t)x, ty.data = (uint64_t)(uintptr_t)y;
  st = divide_by(ctx, NULL, &tx, 3, &ty);
  printf("divide_by 3: %s, y[299] = %d\n", tmc_status_name(st), (int)y[299]);
  st = divide_by(ctx, NULL, &tx, 0, &ty);
  printf("divide_by 0: %s: %s\n", tmc_status_name(st), tmc_last_error());
  cpu_unload(ctx);
  tmc_shutdown(ctx);
  return bad != 0;
}
