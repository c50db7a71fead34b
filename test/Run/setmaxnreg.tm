// setmaxnreg for warp specialization: the producer warpgroup gives up
// registers (setmaxnreg_dec), the consumers take them (setmaxnreg_inc), as
// CUTLASS's warp-specialized kernels do with 40 and 232 for blocks of 384
// threads (40 * 128 + 232 * 256 = 168 * 384). Checked on the CPU executor
// (a warpgroup operation: the lanes of each warp meet there) and in
// PTX/CUDA C that ptxas and nvcc accept for sm_90a. The kernel is marked
// one block an SM (.minnctapersm 1, __launch_bounds__(384, 1)): ptxas then
// gives it the block's whole register budget, 168 a thread, and honours
// setmaxnreg (without the mark it may ignore it: %ptxas-verify fails then).
// REQUIRES: ptxas, nvcc
// RUN: %tmc run %s --arch=sm_90a --kernel twice_ws --shape N=1000 --check-races --check-bounds | FileCheck %s --check-prefix=NUMERIC
// RUN: %tmc %s --arch=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %tmc %s --arch=sm_90a --emit=ptx | %ptxas-verify --no-spills sm_90a
// RUN: rm -rf %t && mkdir %t && %tmc %s --arch=sm_90a --emit=cuda -o %t/k.cu && %nvcc -gencode arch=compute_90a,code=sm_90a %t/k.cu -o %t/k.o
// RUN: FileCheck %s --check-prefix=CUDA < %t/k.cu
// setmaxnreg exists on sm_90a only, for whole warpgroups.
// RUN: not %tmc %s --arch=sm_90 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not %tmc %s --arch=sm_90a -D WARPS=3 2>&1 | FileCheck %s --check-prefix=PARTIAL
// Asking for more than the block has (40 * 128 + 256 * 256 > 168 * 384)
// hangs on the GPU: the increase waits for registers nobody frees.
// RUN: not %tmc run %s --arch=sm_90a --kernel twice_ws --shape N=300 -D INC=256 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: setmaxnreg.tm:[[@LINE+26]]:5: error: setmaxnreg_inc(256) in kernel 'twice_ws' by warpgroup 2 of block (0, 0, 0) never completes on the GPU: after every warpgroup's setmaxnreg the block would hold 70656 registers, more than the 64512 it started with
// NUMERIC: unwritten:  0 of
// NUMERIC: result:     PASS
// PTX: .minnctapersm 1
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// CUDA: __launch_bounds__(384, 1)
// CUDA: asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
// ARCH: error: 'setmaxnreg_{{dec|inc}}' needs --arch=sm_90a {{.*}} targets sm_90
// PARTIAL: error: 'setmaxnreg_{{dec|inc}}' is issued by whole warpgroups of 128 threads, but kernel 'twice_ws' has blocks of 96 threads

op twice(X: f32[N]) -> f32[N] { out[i] = X[i] * 2.0; }

kernel twice_ws<WARPS: int in [3, 12] = 12, INC: int = 232>(X: f32[N], Y: f32[N]) implements twice grid(cdiv(N, 256)) block(32 * WARPS) {
  shared buf: f32[256];
  shared full: mbarrier[1];
  if (threadIdx.x == 0) { mbarrier_init(full[0], 128); }
  sync;
  if (threadIdx.x < 128) {
    setmaxnreg_dec(40);   // the producers need few registers
    for r in range(2) {
      let i = blockIdx.x * 256 + r * 128 + threadIdx.x;
      buf[r * 128 + threadIdx.x] = i < N ? X[i] : 0.0;
    }
    mbarrier_arrive(full[0]);
  } else {
    setmaxnreg_inc(INC);  // the consumers take them
    mbarrier_wait(full[0], 0);
    let t = threadIdx.x - 128;
    let i = blockIdx.x * 256 + t;
    if (i < N) { Y[i] = buf[t] * 2.0; }
  }
}
