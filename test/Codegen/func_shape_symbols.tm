// A device function over a tensor with a symbolic shape receives the shape
// symbol from the tensor passed for it (it was left out of the call, which
// broke the LLVM module). The function uses N in its body.
// REQUIRES: ptxas, nvcc
// RUN: %tmc %s --emit=ptx | %ptxas-verify sm_80 sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --emit=cuda -o %t/c.cu && %nvcc -arch=sm_80 %t/c.cu -o %t/c.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/c.cu
// RUN: %tmc run %s --shape R=5,C=37 --check-bounds | FileCheck %s --check-prefix=NUM
// RUN: %tmc run %s --shape R=1,C=1 --check-bounds | FileCheck %s --check-prefix=NUM

op row_sum_next(X: f32[R, C]) -> f32[R, C] { out[r, c] = X[r, c] + ((c + 1 < C) ? X[r, c + 1] : 0.0); }

func next_or_zero(X: f32[R, C], r: i32, c: i32) -> f32 {
  if (c + 1 < C) {
    return X[r, c + 1];
  }
  return 0.0;
}

kernel with_func(X: f32[R, C], Y: f32[R, C]) implements row_sum_next grid(cdiv(C, 32), R) block(32) {
  let c = blockIdx.x * 32 + threadIdx.x;
  if (c < C) {
    Y[blockIdx.y, c] = X[blockIdx.y, c] + next_or_zero(X, blockIdx.y, c);
  }
}
// CUDA: next_or_zero(X, {{.*}}, c_{{[0-9]+}}, R_{{[0-9]+}}, C_{{[0-9]+}})
// NUM-LABEL: kernel:
// NUM: result: {{ *}}PASS
