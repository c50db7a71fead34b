// Memory behaviour of a kernel on the CPU executor (tmc run --profile): the
// cost of one warp access as the hardware counts it (32-byte sectors of
// global memory; wavefronts and bank conflicts of shared memory), and what
// a launch gathers per site of the compiled kernel. The model is described
// in docs/runtime.md ("Profiling").
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tmc::runtime {

/// One warp instruction's memory access: bit l of `mask` set when lane l
/// takes part, `address[l]` its first byte, every lane `bytes` wide (1, 2,
/// 4, 8 or 16). Global addresses are byte offsets in the tensor (tensors
/// are at least 256-byte aligned on the GPU), shared addresses byte
/// offsets in the block's shared memory.
struct WarpAccess {
  uint32_t mask = 0;
  int32_t bytes = 4;
  int64_t address[32] = {};
};

/// A global access: the distinct 32-byte sectors that the lanes' bytes
/// fall in, and the bytes the lanes asked for (lanes * bytes).
struct GlobalCost {
  int32_t lanes = 0;
  int64_t requested_bytes = 0;
  int64_t sectors = 0;
};
GlobalCost GlobalAccessCost(const WarpAccess& a);

/// A shared-memory access: 32 banks of 4-byte words. Accesses of up to 4
/// bytes are served for the whole warp at once, 8-byte ones per half warp
/// (lanes 0-15, 16-31), 16-byte ones per quarter warp; a phase takes as
/// many wavefronts as the largest number of distinct words that its lanes
/// address in one bank (the same word read by several lanes is a
/// broadcast, one word). `ways` is that number, the largest over the
/// phases (1: no conflict); `ideal_wavefronts` counts the phases with an
/// active lane.
struct SharedCost {
  int32_t lanes = 0;
  int64_t requested_bytes = 0;
  int32_t wavefronts = 0;
  int32_t ideal_wavefronts = 0;
  int32_t ways = 0;
};
SharedCost SharedAccessCost(const WarpAccess& a);

/// What a site does: an access (tmc_cpu_access), the two halves of a
/// cp_async (a global read and a shared write), the row of an ldmatrix
/// (16 bytes per lane), or a barrier.
enum class ProfileOp : uint8_t { Read, Write, Atomic, CpAsyncRead, CpAsyncWrite, LdMatrix, Barrier };

/// The totals of one site and operation over a launch.
struct SiteProfile {
  int32_t site = -1;
  ProfileOp op = ProfileOp::Read;
  bool shared = false;  // shared memory, else global (barriers: false)
  int32_t buffer = -1;
  int32_t bytes = 0;    // per lane
  int64_t warp_instructions = 0;
  int64_t lanes = 0;    // active lanes, summed over the warp instructions
  int64_t requested_bytes = 0;
  int64_t sectors = 0;  // global
  int64_t wavefronts = 0, ideal_wavefronts = 0;  // shared
  int32_t max_ways = 0;                          // shared: the worst warp instruction
  int64_t barriers = 0;  // Barrier: how many times blocks passed it
  void Add(const SiteProfile& o);
};

/// A launch's profile: one entry per site and operation, sorted by site.
struct CpuProfile {
  std::vector<SiteProfile> sites;
  int64_t blocks = 0;  // blocks run
};

/// What one executor worker records. Each thread's accesses are logged in
/// order; when the lanes of a warp meet (a barrier of the block, a warp
/// operation, the end of the block), lane l's n-th access at a site and
/// the other lanes' n-th accesses at that site form one warp instruction,
/// which is costed and added to its site.
class ProfileRecorder {
 public:
  /// A new block of `threads` threads.
  void StartBlock(int32_t threads);
  void Access(int32_t thread, int32_t site, ProfileOp op, bool shared, int32_t buffer, int32_t bytes, int64_t address);
  /// The thread's last access, when it is a shared access at `address`,
  /// becomes the row of an ldmatrix (16 bytes), or is dropped when the
  /// instruction does not use the lane's row (x1, x2: lanes past 8, 16).
  void MarkLdMatrix(int32_t thread, int64_t address, bool used = true);
  /// Threads [first, end) of a warp meet at a warp operation.
  void WarpMeets(int32_t first, int32_t end);
  /// All threads passed the barrier at `site`.
  void Barrier(int32_t site);
  void EndBlock();
  /// Adds what this worker recorded to `out` (kept sorted by site).
  void MergeInto(CpuProfile* out) const;

 private:
  struct Entry {
    int64_t address;
    int32_t site;
    int32_t buffer;
    ProfileOp op;
    bool shared;
    uint8_t bytes;
  };
  void FlushAll();
  SiteProfile& Site(int32_t site, ProfileOp op);
  std::vector<std::vector<Entry>> logs_;  // per thread, since the warp last met
  std::unordered_map<uint64_t, SiteProfile> sites_;
  int64_t blocks_ = 0;
};

}  // namespace tmc::runtime
