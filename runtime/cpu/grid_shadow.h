// Races between blocks (--check-races): nothing orders the blocks of a
// grid, so two blocks that touch the same global element, one of them with
// a plain write (or a write against another block's atomic update), race
// whatever the timing. The grid shadow records, per global element, the
// two lowest blocks (in grid order) that wrote it, read it and updated it
// atomically; blocks run on several workers at once, so it is sharded
// under locks, and because it keeps the lowest blocks, what it reports
// does not depend on which worker ran which block when.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "runtime/cpu/cpu_executor.h"

namespace tmc::runtime {

enum class GridAccess { Read, Write, Atomic };

class GridShadow {
 public:
  /// `cluster`: blocks per thread-block cluster (races between two blocks
  /// of one cluster are marked: their cluster_syncs are not modeled).
  GridShadow(const int64_t grid[3], const int64_t cluster[3]);
  ~GridShadow();
  /// The first access of its kind by block `block` (linear, grid order)
  /// to the element at `addr` (element `offset` of buffer `buffer`).
  void Note(const void* addr, int32_t buffer, int64_t offset, int64_t block, int32_t thread, int32_t site,
            GridAccess kind);
  /// One BlockRace finding per pair of sites, from the lowest racing
  /// blocks, with how many elements raced there.
  std::vector<CpuFinding> Races() const;

 private:
  struct Who {
    int64_t block = INT64_MAX;
    int32_t thread = -1, site = -1;
  };
  struct Element {
    int32_t buffer = -1;
    int64_t offset = 0;
    Who who[3][2];  // by GridAccess: the two lowest distinct blocks
  };
  struct Shard {
    std::mutex mu;
    std::unordered_map<uintptr_t, Element> elements;
  };
  static constexpr size_t kShards = 64;
  std::unique_ptr<Shard[]> shards_;
  int64_t grid_[3], cluster_[3];
};

}  // namespace tmc::runtime
