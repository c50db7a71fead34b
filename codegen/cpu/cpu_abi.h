/* The ABI between kernels compiled for the CPU executor (codegen/cpu/, which
 * owns it) and
 * the executor (runtime/cpu/). Each simulated GPU thread runs the kernel
 * with a pointer to its tmc_cpu_thread; the kernel reads its indices from
 * it and calls the tmc_cpu_* functions for everything that involves other
 * threads (barriers, shuffles, tensor cores) or the checking modes. */
#ifndef TMC_CPU_ABI_H
#define TMC_CPU_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tmc_cpu_thread {
  int32_t tid[3];
  int32_t bid[3];
  int32_t bdim[3];
  int32_t gdim[3];
  char* shared;       /* this block's shared memory */
  void* block;        /* the executor's block state (opaque) */
  int32_t linear_tid; /* tid.x + bdim.x * (tid.y + bdim.y * tid.z) */
  int32_t poll;       /* loop back-edges left until tmc_cpu_poll */
} tmc_cpu_thread;

/* Byte offsets of the fields, for the code generator. */
enum {
  TMC_CPU_OFF_TID = 0,
  TMC_CPU_OFF_BID = 12,
  TMC_CPU_OFF_BDIM = 24,
  TMC_CPU_OFF_GDIM = 36,
  TMC_CPU_OFF_SHARED = 48,
  TMC_CPU_OFF_BLOCK = 56,
  TMC_CPU_OFF_POLL = 68,
};

/* A compiled kernel: `args` holds one 8-byte slot per parameter, in the
 * order of the kernel metadata (tensor data pointers, scalars in the low
 * bytes, shape symbols as i32). */
typedef void (*tmc_cpu_kernel_fn)(tmc_cpu_thread* thread, const uint64_t* args);

/* Called by a loop when `poll` runs out (the loop at `site`, a `while`
 * loop or not): checks the block's deadline (tmc run --timeout); past it,
 * reports the hang and abandons the block. Resets `poll`. */
void tmc_cpu_poll(tmc_cpu_thread* t, int32_t site, int32_t is_while);
/* Barrier of the block (`sync`); `site` identifies the source location. */
void tmc_cpu_sync(tmc_cpu_thread* t, int32_t site);
/* Warp shuffles of 32-bit values: kind 0 xor, 1 down, 2 up, 3 idx. */
uint32_t tmc_cpu_shfl32(tmc_cpu_thread* t, int32_t kind, uint32_t value, int32_t lane, int32_t site);
/* Tensor cores: mma.m16n8k16 (f16 or, with `bf16` set, bf16 A and B; f32
 * C and D) on this lane's fragment registers, and ldmatrix of `count`
 * (1, 2, 4) 8x8 matrices, transposed with `trans`, from this lane's row
 * address into 2 * count registers. */
void tmc_cpu_mma_m16n8k16(tmc_cpu_thread* t, float* d, const uint16_t* a, const uint16_t* b, const float* c,
                          int32_t bf16, int32_t site);
void tmc_cpu_ldmatrix(tmc_cpu_thread* t, uint16_t* regs, const uint16_t* row, int32_t count, int32_t trans,
                      int32_t site);
/* wgmma.mma_async m64nNk16 (f32 accumulate) for this thread's share of D
 * (its n / 2 registers): A and B are read from shared memory through the
 * matrix descriptors exactly as the GPU gets them (A K-major; B MN-major
 * with trans_b); scale_d 0 ignores D's old values. With `a_regs` (A in
 * registers, this thread's wgmma_a fragment of 8 halves), the warp's
 * fragments give A and `a_desc` is unused. The buffers and byte offsets of
 * A and B in shared memory name them in race reports. */
void tmc_cpu_wgmma(tmc_cpu_thread* t, float* d, const uint16_t* a_regs, uint64_t a_desc, uint64_t b_desc, int32_t n, int32_t trans_b,
                   int32_t scale_d, int32_t bf16, int32_t a_buffer, int64_t a_base, int32_t b_buffer, int64_t b_base,
                   int32_t site);
/* wgmma_fence / wgmma_commit / wgmma_wait(pending): the warp's lanes meet
 * (.sync.aligned); a wait completes the groups but the `pending` most
 * recent, whose shared-memory reads are race-checked then.
 * setmaxnreg_dec / _inc(pending): likewise a warpgroup instruction; the
 * warpgroup's register count becomes `pending`. */
enum {
  TMC_CPU_WGMMA_FENCE = 0,
  TMC_CPU_WGMMA_COMMIT = 1,
  TMC_CPU_WGMMA_WAIT = 2,
  TMC_CPU_SETMAXNREG_DEC = 3,
  TMC_CPU_SETMAXNREG_INC = 4,
};
void tmc_cpu_wgmma_sync(tmc_cpu_thread* t, int32_t op, int32_t pending, int32_t site);
/* fence_proxy_async: the thread's earlier shared-memory writes become
 * visible to wgmma and tma_store (counted, for --check-races). */
void tmc_cpu_fence_proxy_async(tmc_cpu_thread* t);
/* mbarriers: `op` one of the TMC_CPU_MBARRIER_* below on the mbarrier at
 * `bar` in shared memory (element `index` of buffer `buffer`): init with
 * `value` arrivals a phase, arrive, arrive after adding `value` expected
 * transaction bytes, or wait until the phase of parity `value` has
 * completed (the thread parks; a wait that can never complete is reported
 * as a deadlock). An index outside the array's `extent` elements is
 * reported and ends the block. */
enum {
  TMC_CPU_MBARRIER_INIT = 0,
  TMC_CPU_MBARRIER_ARRIVE = 1,
  TMC_CPU_MBARRIER_ARRIVE_EXPECT_TX = 2,
  TMC_CPU_MBARRIER_WAIT = 3,
  TMC_CPU_MBARRIER_ARRIVE_CLUSTER = 4,  // on the barrier at `bar`'s offset in the block of cluster rank `value`
};
void tmc_cpu_mbarrier(tmc_cpu_thread* t, int32_t op, void* bar, int32_t value, int32_t buffer, int64_t index,
                      int64_t extent, int32_t site);
/* TMA copies (sm_90) of one box between the global tensor `tensor` (row-
 * major, its data) and the shared tile at `tile`, laid out as TMA does
 * (row-major, with the `swizzle`-byte swizzle on shared byte addresses when
 * not 0). `geometry` holds the tensor's `rank` extents, then the box's,
 * then the box origin (all outermost first). TMC_CPU_TMA_LOAD zero-fills
 * what lies outside the tensor, completes the box's bytes on the mbarrier
 * at `bar` and lands when its phase completes; TMC_CPU_TMA_STORE writes
 * the part inside the tensor, reading the tile until tma_store_wait. The
 * buffers (and the tile buffer's shared byte offset) name them in
 * reports. A multicast load (`multicast` a mask, not -1) lands in (and
 * completes on the barrier of) each block of the cluster whose rank bit
 * is set. */
enum { TMC_CPU_TMA_LOAD = 0, TMC_CPU_TMA_STORE = 1 };
void tmc_cpu_tma(tmc_cpu_thread* t, int32_t op, void* tile, const void* tensor, int32_t rank, const int64_t* geometry,
                 int32_t elem_bytes, int32_t swizzle, void* bar, int32_t tile_buffer, int64_t tile_base,
                 int32_t tensor_buffer, int32_t bar_buffer, int64_t bar_index, int64_t bar_extent, int32_t multicast,
                 int32_t site);
/* cluster_sync: the barrier of all threads of the blocks of a cluster. */
void tmc_cpu_cluster_sync(tmc_cpu_thread* t, int32_t site);
/* tma_store_commit (op 0) and tma_store_wait(pending) (op 1): the stores'
 * reads of shared memory end at the wait that completes their group. */
enum { TMC_CPU_TMA_STORE_COMMIT = 0, TMC_CPU_TMA_STORE_WAIT = 1 };
void tmc_cpu_tma_store_sync(tmc_cpu_thread* t, int32_t op, int32_t pending);
/* cp_async of `bytes` (4, 8 or 16) from global `src` (element src_offset
 * of buffer src_buffer) to shared `dst`, issued by this thread, reading
 * only the first `src_bytes` (0..bytes) and zero-filling the rest: checked
 * for alignment, bounds (every element read or written; an extent of -1:
 * unchecked) and, with --check-races, races; it lands when a cp_async_wait
 * completes its group. */
void tmc_cpu_cp_async(tmc_cpu_thread* t, void* dst, int64_t dst_offset, int64_t dst_extent, int32_t dst_buffer,
                      const void* src, int64_t src_offset, int64_t src_extent, int32_t src_buffer, int32_t elem_bytes,
                      int32_t bytes, int32_t src_bytes, int32_t site);
/* Closes this thread's current group of copies (cp_async_commit). */
void tmc_cpu_cp_async_commit(tmc_cpu_thread* t);
/* Completes all but the `pending` most recent committed groups. */
void tmc_cpu_cp_async_wait(tmc_cpu_thread* t, int32_t pending);
/* An integer division or modulo by zero, or MIN / -1 (`kind` bit 0:
 * modulo; bit 1: MIN / -1), of `bits`-bit integers: recorded; the kernel
 * goes on with a divisor of 1. */
void tmc_cpu_int_fault(tmc_cpu_thread* t, int32_t kind, int32_t bits, int32_t site);
/* Checked access (--check-bounds, --check-races): returns `addr` when the
 * access is valid, or a harmless scratch address after recording the fault.
 * `access` is a TMC_CPU_READ/WRITE/ATOMIC, `scope` the buffer's memory. */
enum { TMC_CPU_READ = 0, TMC_CPU_WRITE = 1, TMC_CPU_ATOMIC = 2 };
/* Or'ed into `access` for the bounds check of an instruction's fragment
 * operand (mma, wgmma): the instruction's own use, not a thread's access. */
enum { TMC_CPU_OPERAND = 4 };
enum { TMC_CPU_GLOBAL = 0, TMC_CPU_SHARED = 1, TMC_CPU_REGISTER = 2 };
/* A per-dimension bounds check failed (--check-bounds): `index` and
 * `extent` hold the access's `rank` indices and dimensions; the site of
 * dimension k is `first_site + k`. Records the fault and returns a harmless
 * scratch address for the access. */
void* tmc_cpu_index_fault(tmc_cpu_thread* t, int32_t buffer, int32_t rank, const int64_t* index, const int64_t* extent,
                          int32_t is_write, int32_t first_site);
void* tmc_cpu_access(tmc_cpu_thread* t, void* addr, int64_t offset, int64_t extent, int32_t bytes, int32_t buffer,
                     int32_t access, int32_t scope, int32_t site);

#ifdef __cplusplus
}
#endif

#endif /* TMC_CPU_ABI_H */
