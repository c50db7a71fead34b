/* Uses the generated library: runs the graph `block` on random inputs and
 * checks it against a host computation, on the GPU where there is one,
 * else on the CPU executor (the library is built with tmc lib --cpu). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

#define M 100
#define K 64
#define N 96

static float x[M * K], w[K * N], b[N], y[M * N];

static int report(const char* what, tmc_status st) {
  printf("%s: %s (%s)\n", what, tmc_status_name(st), st == TMC_SUCCESS ? "" : tmc_last_error());
  return st == TMC_SUCCESS;
}

int main(void) {
  tmc_context* ctx = NULL;
  tmc_status st = tmc_init_auto(&ctx);
  int i, j, k, bad = 0;
  uint64_t dx, dw, db, dy;
  tmc_tensor tx = {0, TMC_F32, 2, {M, K}}, tw = {0, TMC_F32, 2, {K, N}}, tb = {0, TMC_F32, 1, {N}},
             ty = {0, TMC_F32, 2, {M, N}};
  char device[64];
  printf("runtime %s\n", tmc_runtime_version());
  if (!report("tmc_init_auto", st)) return 1;
  if (block(NULL, NULL, &tx, &tw, &tb, &ty) != TMC_ERROR_INVALID_ARGUMENT) return printf("null context accepted\n"), 1;
  tmc_device_name(ctx, device, sizeof device);
  printf("device: %s\n", device);
  for (i = 0; i < M * K; ++i) x[i] = (float)(rand() % 17 - 8) / 8.0f + 0.0625f;
  for (i = 0; i < K * N; ++i) w[i] = (float)(rand() % 13 - 6) / 16.0f + 0.0625f;
  for (i = 0; i < N; ++i) b[i] = (float)(rand() % 7 - 3) / 4.0f;
  if (!report("malloc", tmc_malloc(ctx, sizeof x, &dx)) || !report("malloc", tmc_malloc(ctx, sizeof w, &dw)) ||
      !report("malloc", tmc_malloc(ctx, sizeof b, &db)) || !report("malloc", tmc_malloc(ctx, sizeof y, &dy)))
    return 1;
  tmc_copy_to_device(ctx, dx, x, sizeof x);
  tmc_copy_to_device(ctx, dw, w, sizeof w);
  tmc_copy_to_device(ctx, db, b, sizeof b);
  tx.data = dx, tw.data = dw, tb.data = db, ty.data = dy;
  /* A wrong shape is refused before any launch. */
  ty.shape[1] = N + 1;
  if (block(ctx, NULL, &tx, &tw, &tb, &ty) != TMC_ERROR_SIGNATURE) return printf("bad shape accepted\n"), 1;
  ty.shape[1] = N;
  if (!report("block", block(ctx, NULL, &tx, &tw, &tb, &ty)) || !report("sync", tmc_synchronize(ctx))) return 1;
  tmc_copy_to_host(ctx, y, dy, sizeof y);
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      double ref = b[j];
      for (k = 0; k < K; ++k) ref += (double)x[i * K + k] * w[k * N + j];
      ref = ref > 0 ? ref : 0;
      if (fabs(y[i * N + j] - ref) > 1e-3 + 1e-3 * fabs(ref)) ++bad;
    }
  printf("result: %s (%d of %d elements off)\n", bad ? "FAIL" : "PASS", bad, M * N);
  kernels_unload(ctx);
  tmc_shutdown(ctx);
  return bad != 0;
}
