/* The installed runtime from plain C: `cc version.c -ltmc_runtime`. */
#include <stdio.h>

#include "tmc_runtime.h"

int main(void) {
  tmc_context* ctx = NULL;
  printf("tmc runtime %s\n", tmc_runtime_version());
  return tmc_init(0, &ctx) == TMC_SUCCESS || ctx == NULL ? 0 : 1;
}
