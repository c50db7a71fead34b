// What `tmc tune` knows about a candidate without a GPU: its resources
// (from ptxas -v), its instruction mix (from the PTX), the limits of the
// arch, and the static model that ranks candidates when no GPU can time
// them. The model's formula is in docs/tuning.md; it ranks candidates of
// one kernel against each other and is not a time prediction.
#pragma once

#include <cstdint>
#include <string>

namespace tmc::tune {

struct ArchLimits {
  int sms = 0;
  int regs_per_sm = 65536;
  int max_regs_per_thread = 255;
  int smem_per_sm = 0;       // bytes, usable by blocks
  int smem_per_block = 0;    // bytes, opt-in maximum
  int threads_per_sm = 2048;
  int blocks_per_sm = 32;
  double fp32_flops = 0;     // per second, whole device
  double tensor_flops = 0;   // f16/bf16 tensor cores, per second
  double dram_bytes = 0;     // per second
};

/// The limits of the device tmc assumes for an arch (A100 for sm_80, an
/// RTX 30/40 card for sm_86/sm_89, H200 for sm_90/sm_90a).
ArchLimits LimitsOf(const std::string& arch);

/// ptxas -v's report of one kernel.
struct Resources {
  bool found = false;
  int registers = 0;
  int spill_bytes = 0;  // stores + loads
  int stack_bytes = 0;  // local memory: spills, and register arrays that stayed in memory
  int shared_bytes = 0;
};

/// The report's lines for `kernel` ("Used N registers", "N bytes spill
/// stores, M bytes spill loads", "S bytes smem").
Resources ParsePtxasReport(const std::string& report, const std::string& kernel);

/// The static mix of a kernel's PTX, per thread: the floating-point work
/// its instructions do (an fma is 2, an mma.sync m16n8k16 4096 / 32) and
/// the bytes its global loads and cp.async copies move.
struct PtxMix {
  double flops = 0;
  double global_bytes = 0;
  bool tensor_cores = false;  // mma.sync / wgmma
};
PtxMix AnalyzePtx(const std::string& ptx);

/// How many blocks of `threads` threads fit on one SM at once (0: none);
/// `limiter` names what limits it.
int BlocksPerSm(const Resources& r, int threads, const ArchLimits& a, std::string* limiter);

/// Why a candidate with these resources should not be run, or "": it
/// spills; it keeps `stack_bytes` in local memory while `others_without_stack`
/// (other candidates do without); no block of `threads` fits on an SM.
std::string DropReason(const Resources& r, int threads, const ArchLimits& a, bool others_without_stack);

struct ModelInput {
  Resources resources;
  PtxMix mix;
  int threads = 0;          // per block
  int64_t blocks = 0;       // at the tuned shape
  double op_flops = 0;      // of the op at the tuned shape (0: unknown)
  double coalescing = 1;    // global: requested / moved bytes, from the CPU profile (0..1]
  double bank_conflicts = 0;  // shared: extra wavefronts per ideal one
};

/// The model's estimate in microseconds (docs/tuning.md); lower is better.
double ModelMicroseconds(const ModelInput& in, const ArchLimits& a);

}  // namespace tmc::tune
