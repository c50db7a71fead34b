// --kernel NAME on a plain compile: that kernel of the module alone, in
// every output of the lowering; -D applies to it only (T=256 is a value of
// scale's, not shift's); a name the file lacks is an error that lists the
// kernels it has; outputs that do not compile (ast, graph) refuse it.
// RUN: %tmc %s --kernel scale --emit=ptx --arch=sm_90a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %tmc %s --kernel shift --emit=cuda --arch=sm_90a | FileCheck %s --check-prefix=CUDA
// RUN: %tmc %s --kernel scale -D T=256 --emit=meta | FileCheck %s --check-prefix=META
// RUN: not %tmc %s -D T=256 --emit=meta 2>&1 | FileCheck %s --check-prefix=BOTHD
// RUN: %tmc %s --emit=ptx | FileCheck %s --check-prefix=BOTH
// RUN: %expect-exit 1 %tmc %s --kernel nope --emit=ptx
// RUN: not %tmc %s --kernel nope --emit=ptx 2>&1 | FileCheck %s --check-prefix=NOKERNEL
// RUN: not %tmc %s --kernel nope 2>&1 | FileCheck %s --check-prefix=NOKERNEL
// RUN: not %tmc %s --kernel scale --emit=ast 2>&1 | FileCheck %s --check-prefix=AST
// RUN: not %tmc %s --kernel scale --kernel shift --emit=ptx 2>&1 | FileCheck %s --check-prefix=TWICE

// PTX: .entry scale(
// PTX-NOT: .entry shift(
// CUDA: __global__ void __launch_bounds__(128) shift(
// CUDA-NOT: scale(
// META: "name": "scale",
// META: "block": [256],
// META-NOT: "name": "shift"
// BOTHD: error: value 256 of 'T' is not among its candidates [64, 128]
// BOTH-DAG: .entry scale(
// BOTH-DAG: .entry shift(
// NOKERNEL: error: --kernel nope: no kernel named 'nope' in '{{.*}}compile_one_kernel.tm' (it has scale, shift)
// AST: error: '--kernel' keeps one kernel in the compiled output: not with --emit=ast
// TWICE: error: a compile takes one '--kernel' (or none: every kernel)

kernel scale<T: int in [64, 128, 256] = 128>(X: f32[N], Y: f32[N]) grid(cdiv(N, T)) block(T) {
  for i in spatial(T) on threadIdx.x {
    let g = blockIdx.x * T + i;
    if (g < N) { Y[g] = X[g] * 2.0; }
  }
}

kernel shift<T: int in [64, 128] = 128>(X: f32[N], Y: f32[N]) grid(cdiv(N, T)) block(T) {
  for i in spatial(T) on threadIdx.x {
    let g = blockIdx.x * T + i;
    if (g < N) { Y[g] = X[g] + 1.0; }
  }
}
