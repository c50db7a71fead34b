/* A library built without --cpu, called on a CPU context. */
#include <stdio.h>

#include "mm.h"

int main(void) {
  tmc_context* ctx = NULL;
  tmc_tensor t = {0, TMC_F32, 2, {4, 4}};
  tmc_status st;
  tmc_init(TMC_DEVICE_CPU, &ctx);
  st = matmul_simt(ctx, NULL, &t, &t, &t);
  printf("matmul_simt: %s: %s\n", tmc_status_name(st), tmc_last_error());
  tmc_shutdown(ctx);
  return 0;
}
