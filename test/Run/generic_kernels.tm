// Element-type-generic kernels: `T: type in [...]` is a compile-time
// parameter whose values are scalar types, chosen like the others (-D,
// default, first candidate) and enumerated by --all-candidates.
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --kernel vadd --shape N=1000 | FileCheck %s
// RUN: %tmc run %s --kernel vadd --shape N=999 -D T=bf16 -D V=4 --seed 3 | FileCheck %s
// RUN: %tmc run %s --kernel vadd --shape N=77 -D T=f32 --check-bounds --check-races | FileCheck %s
// RUN: %tmc run %s --kernel scale_rows --shape R=5,C=60 -D T=bf16 | FileCheck %s
// RUN: %tmc run %s --kernel scale_rows --shape R=3,C=64 | FileCheck %s
// RUN: %tmc run %s --kernel staged_copy --shape N=300 -D T=f32 --check-bounds --check-races | FileCheck %s
// RUN: %tmc run %s --kernel staged_copy --shape N=300 -D T=bf16 --check-bounds --check-races | FileCheck %s
// RUN: %tmc %s -D T=bf16 --emit=meta | FileCheck %s --check-prefix=META
// RUN: %tmc %s -D T=f32 --emit=ptx | %ptxas-verify sm_80
// RUN: %tmc %s -D T=f32 --emit=ptx --arch=sm_90a | %ptxas-verify sm_90a
// RUN: %tmc %s -D T=bf16 --emit=ptx | %ptxas-verify sm_80
// RUN: rm -rf %t && mkdir %t && %tmc %s -D T=bf16 --emit=cuda -o %t/k.cu && %nvcc -arch=sm_80 %t/k.cu -o %t/k.o
// RUN: %tmc %s --all-candidates -o %t/all --kernel vadd 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: ls %t/all | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=INDEX < %t/all/index.json
// RUN: %tmc run %s --kernel add_typed --shape N=300 | FileCheck %s
// RUN: %tmc run %s --kernel add_typed --shape N=129 -D T=bf16 | FileCheck %s
// RUN: %tmc %s --kernel add_typed -D T=bf16 --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=LETT
// RUN: not %tmc %s -D T=64 2>&1 | FileCheck %s --check-prefix=BADT
// RUN: not %tmc %s -D V=f16 2>&1 | FileCheck %s --check-prefix=BADV
// CHECK: unwritten:  0 of
// CHECK: result:     PASS
// META: "dtype": "bf16"
// META: "compile_time": {"T": "bf16", "V": 2}
// ALL: 9 candidates: 9 compiled
// FILES: vadd.Tbf16.V1.ptx
// FILES: vadd.Tf32.V4.ptx
// INDEX: "params": {"T": "f16", "V": 1}
// BADT: error: 'T' is an element type, so its value must be a scalar type such as f16, not '64'
// BADV: error: 'V' is an integer parameter, not an element type: 'f16' is not a value for it

op add<T>(X: T[N], Y: T[N]) -> T[N] { out[i] = X[i] + Y[i]; }
op scale<T>(X: T[R, C]) -> T[R, C] { out[r, c] = X[r, c] * 2.0; }

kernel vadd<T: type in [f16, bf16, f32], V: int in [1, 2, 4] = 2>(X: T[N], Y: T[N], Z: T[N])
    implements add grid(cdiv(N, 128 * V)) block(128)
{
  for i in repeat(V) * spatial(128) on threadIdx.x {
    let g = blockIdx.x * 128 * V + i;
    if (g < N) {
      let x: T = X[g];
      Z[g] = T(f32(x) + f32(Y[g]));
    }
  }
}

// `let x: T` and `var x: T` are of the instance's element type (they were
// f32 once, which made `X[g] + b` an error and computed in f32 elsewhere).
op add_one<T>(X: T[N]) -> T[N] { out[i] = X[i] + 1.0; }
kernel add_typed<T: type in [f16, bf16, f32] = f16>(X: T[N], Y: T[N]) implements add_one
    grid(cdiv(N, 128)) block(128)
{
  let g = blockIdx.x * 128 + threadIdx.x;
  let half: T = 0.5;
  var acc: T = 0.25;
  if (g < N) {
    acc = acc + X[g];
    Y[g] = acc + half + T(0.25);
  }
}
// LETT-LABEL: .entry add_typed(
// LETT-NOT: cvt.f32
// LETT: add.{{(rn.)?}}bf16
// LETT-NOT: cvt.f32
// LETT: ret;

// 16-byte zero-filling copies of any element type: sizeof(T) gives the
// elements per copy and the bytes left in the row.
op copy_vec<T>(X: T[N]) -> T[N] { out[i] = X[i]; }
kernel staged_copy<T: type in [f32, f16, bf16] = f16>(X: T[N], Y: T[N]) implements copy_vec
    grid(cdiv(N, 256)) block(32)
{
  shared s: T[256];
  let per = 16 / sizeof(T);
  for c in repeat(8 / per) * spatial(32) on lane_id {
    let e = c * per;
    let g = blockIdx.x * 256 + e;
    cp_async(s[e], X[g], 16, (N - g) * sizeof(T));
  }
  cp_async_commit();
  cp_async_wait(0);
  sync;
  for c in repeat(8) * spatial(32) on lane_id {
    let g = blockIdx.x * 256 + c;
    if (g < N) { Y[g] = s[c]; }
  }
}

// A row staged in shared memory of the element type, through a view.
kernel scale_rows<T: type = f16>(X: T[R, C], Y: T[R, C]) implements scale grid(R) block(32) {
  shared row: T[2, 64];
  for c in range(lane_id, C, 32) {
    row[1][c % 64] = X[blockIdx.x, c];
    Y[blockIdx.x, c] = row[1][c % 64] * T(2.0);
  }
}
