// Which rule schedules which op, and the kernels they write (--emit=tm):
// injective ops get 256 * V elements of a row per block and 16-byte
// accesses (ld.global.nc.v4 in the PTX); reductions per row a warp or a
// block per row, chosen by a launch condition on the row length; anything
// else one thread per element, with a warning when that is slow.
// RUN: %tmc %s --op scale --emit=tm | FileCheck %s --check-prefix=INJ
// RUN: %tmc %s --op scale --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=INJ-PTX
// RUN: %tmc %s --op scale -D V=8 -D T=f16 --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=INJ-F16
// RUN: %tmc %s --op norm_rows --emit=tm | FileCheck %s --check-prefix=ROW
// RUN: %tmc %s --op norm_rows --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=ROW-PTX
// RUN: %tmc %s --op mm --emit=tm 2>&1 | FileCheck %s --check-prefix=SERIAL
// RUN: %tmc %s --op col_sum --emit=tm 2>&1 | FileCheck %s --check-prefix=COLS
// RUN: %tmc %s --op soft --emit=tm | FileCheck %s --check-prefix=STAGED
// RUN: %tmc %s --op soft --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=STAGED-PTX
// RUN: %tmc %s --op scale --emit=meta | FileCheck %s --check-prefix=META
// REQUIRES: ptxas
// RUN: %tmc %s --op scale --emit=ptx --arch=sm_90a | %ptxas-verify --no-spills sm_90a
// RUN: %tmc %s --op norm_rows --emit=ptx | %ptxas-verify --no-spills sm_80
// RUN: %tmc %s --op mm -w --emit=ptx --arch=sm_90a | %ptxas-verify --no-spills sm_90a

op scale<T>(X: T[R, C], s: f32) -> T[R, C] { out[i, j] = X[i, j] * s; }

// Math calls: loads, math and stores in loops of their own, so that the
// loads still merge.
op soft(X: f32[R, C], Y: f32[R, C]) -> f32[R, C] { out[i, j] = exp(X[i, j]) * Y[i, j] + X[i, j]; }

op norm_rows(X: f32[R, C]) -> f32[R, C] {
  let ss[r] = sum(c < C) X[r, c] * X[r, c];
  out[r, c] = X[r, c] * rsqrt(ss[r] / f32(C) + 1e-6);
}

op mm(A: f32[M, K], B: f32[K, N]) -> f32[M, N] { out[i, j] = sum(k < K) A[i, k] * B[k, j]; }

op col_sum(X: f32[R, C]) -> f32[C] { out[c] = sum(r < R) X[r, c]; }

// INJ: (rule: injective)
// INJ: kernel scale_auto<T: type in [f32, f16, bf16] = f32, V: int in [1, 2, 4, 8] = 4>(X: T[R, C], s: f32, out: T[R, C])
// INJ-NEXT: implements scale
// INJ-NEXT: grid(cdiv((C), 256 * V) * (R)) block(256)
// INJ: for _t in spatial(256) * repeat(V) on threadIdx.x {
// INJ: out[_i, _j] = T((f32(X[_i, _j]) * s));

// INJ-PTX: .entry scale_auto
// INJ-PTX: ld.global.nc.v4.f32
// INJ-PTX: st.global.v4.f32
// INJ-F16: ld.global.nc.v4.u32
// INJ-F16: st.global.v4.b32

// STAGED: register _x: f32[256 * V] by spatial(256) * repeat(V);
// STAGED-NEXT: register _x1: f32[256 * V] by spatial(256) * repeat(V);
// STAGED-NEXT: register _y: f32[256 * V] by spatial(256) * repeat(V);
// STAGED: _x[_t] = _j < (C) ? X[_i, _j] : 0.0;
// STAGED: _x1[_t] = _j < (C) ? Y[_i, _j] : 0.0;
// STAGED: _y[_t] = ((exp(_x[_t]) * _x1[_t]) + _x[_t]);
// STAGED: if (_j < (C)) { out[_i, _j] = f32(_y[_t]); }
// STAGED-PTX-COUNT-2: ld.global.nc.v4.f32
// STAGED-PTX: st.global.v4.f32

// ROW: (rule: row reduction)
// ROW: kernel norm_rows_auto<TPR: int in [32, 256] = 256>(X: f32[R, C], out: f32[R, C])
// ROW-NEXT: implements norm_rows
// ROW-NEXT: where (TPR == 32 && (C) <= 1024) || (TPR == 256 && (C) > 1024)
// ROW-NEXT: grid(cdiv((R), 256 / TPR)) block(256)
// ROW: shared _red: f32[8];
// ROW: for _c in range(_lane, C, TPR) {
// ROW: shfl_xor(_a, 16 >> _s)
// ROW: if (TPR > 32) {
// ROW: for _c1 in range(_lane, C, TPR) {
// ROW-NEXT: out[_r0, _c1] = f32
// ROW-PTX: shfl.sync.bfly.b32
// ROW-PTX: bar.sync

// SERIAL: auto_schedule_rules.tm:32:4: warning: op 'mm' has no fast automatic schedule (its reduction runs across rows of 'B', not along them): one thread per element of the result, reductions as serial loops; a kernel that implements it will be faster [-Wauto-schedule-slow]
// SERIAL: (rule: serial)
// SERIAL: for _e in range(blockIdx.x * 256 + threadIdx.x, (M) * (N), gridDim.x * 256) {
// SERIAL: for _k in range(K) {

// Reducing over rows, threads along the kept innermost axis: serial, but
// coalesced, so no warning.
// COLS-NOT: warning
// COLS: (rule: serial)
// COLS: for _r in range(R) {

// META: "name": "scale_auto"
// META-NOT: "name": "norm_rows_auto"
