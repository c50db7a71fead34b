/* Links a tmc lib library and the shared runtime from plain C (no C++
 * library on the link line) and calls it without a GPU: every call says
 * what is wrong and launches nothing. */
#include <stdio.h>
#include <string.h>

#include "mm.h"

int main(void) {
  tmc_context* ctx = NULL;
  tmc_tensor a = {0, TMC_F32, 2, {64, 64}};
  tmc_status st = tmc_init(0, &ctx);
  printf("runtime %s (header %s)\n", tmc_runtime_version(), TMC_RUNTIME_VERSION_STRING);
  printf("tmc_init: %s\n", tmc_status_name(st));
  st = matmul_simt(ctx, NULL, &a, &a, NULL);
  printf("matmul_simt: %s: %s\n", tmc_status_name(st), tmc_last_error());
  st = matmul_simt(ctx, NULL, &a, &a, &a);
  printf("matmul_simt: %s: %s\n", tmc_status_name(st), tmc_last_error());
  st = mm_load(ctx);
  printf("mm_load: %s\n", tmc_status_name(st));
  mm_unload(ctx);
  return strcmp(tmc_runtime_version(), TMC_RUNTIME_VERSION_STRING) != 0;
}
