#include "runtime/cpu/grid_shadow.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace tmc::runtime {

GridShadow::GridShadow(const int64_t grid[3], const int64_t cluster[3]) : shards_(new Shard[kShards]) {
  std::copy(grid, grid + 3, grid_);
  std::copy(cluster, cluster + 3, cluster_);
}
GridShadow::~GridShadow() = default;

void GridShadow::Note(const void* addr, int32_t buffer, int64_t offset, int64_t block, int32_t thread, int32_t site,
                      GridAccess kind) {
  auto key = reinterpret_cast<uintptr_t>(addr);
  Shard& shard = shards_[(key >> 2) * 0x9E3779B97F4A7C15ull >> 58];
  std::lock_guard<std::mutex> lock(shard.mu);
  Element& e = shard.elements[key];
  e.buffer = buffer;
  e.offset = offset;
  Who* w = e.who[static_cast<int>(kind)];
  // Keep the two lowest distinct blocks; a block already kept keeps its
  // first access (a block runs deterministically, so that one is fixed).
  if (w[0].block == block || w[1].block == block) return;
  Who me{block, thread, site};
  if (block < w[0].block) {
    w[1] = w[0];
    w[0] = me;
  } else if (block < w[1].block) {
    w[1] = me;
  }
}

std::vector<CpuFinding> GridShadow::Races() const {
  // Per pair of sites: the race with the lowest blocks, and a count.
  std::map<std::pair<int32_t, int32_t>, CpuFinding> found;
  auto report = [&](const Element& e, const Who& here, bool here_write, const Who& other, GridAccess other_kind) {
    CpuFinding f{CpuFinding::Kind::BlockRace};
    f.site = here.site;
    f.other_site = other.site;
    f.buffer = e.buffer;
    f.offset = e.offset;
    f.thread = here.thread;
    f.other_thread = other.thread;
    f.write = here_write;
    f.other_write = other_kind == GridAccess::Write;
    f.other_atomic = other_kind == GridAccess::Atomic;
    int64_t b = here.block, o = other.block;
    f.block[0] = static_cast<int32_t>(b % grid_[0]);
    f.block[1] = static_cast<int32_t>(b / grid_[0] % grid_[1]);
    f.block[2] = static_cast<int32_t>(b / (grid_[0] * grid_[1]));
    f.other_block[0] = static_cast<int32_t>(o % grid_[0]);
    f.other_block[1] = static_cast<int32_t>(o / grid_[0] % grid_[1]);
    f.other_block[2] = static_cast<int32_t>(o / (grid_[0] * grid_[1]));
    f.linear_blocks[0] = b;
    f.linear_blocks[1] = o;
    f.same_cluster = cluster_[0] * cluster_[1] * cluster_[2] > 1;
    for (int d = 0; d < 3; ++d) f.same_cluster = f.same_cluster && f.block[d] / cluster_[d] == f.other_block[d] / cluster_[d];
    auto [it, fresh] = found.emplace(std::make_pair(f.site, f.other_site), f);
    if (fresh) return;
    int64_t count = it->second.count + 1;
    auto rank = [](const CpuFinding& x) { return std::make_tuple(x.linear_blocks[0], x.linear_blocks[1], x.buffer, x.offset); };
    if (rank(f) < rank(it->second)) it->second = f;
    it->second.count = count;
  };
  const int kW = static_cast<int>(GridAccess::Write), kR = static_cast<int>(GridAccess::Read),
            kA = static_cast<int>(GridAccess::Atomic);
  for (size_t s = 0; s < kShards; ++s)
    for (const auto& [addr, e] : shards_[s].elements) {
      const Who* w = e.who[kW];
      if (w[0].block == INT64_MAX) continue;  // never written plainly: reads and atomics do not race
      if (w[1].block != INT64_MAX) {
        report(e, w[1], true, w[0], GridAccess::Write);
        continue;
      }
      // One writing block: any other block that read it or updated it
      // atomically races with it.
      bool raced = false;
      for (int k : {kR, kA})
        for (int i = 0; i < 2 && !raced; ++i)
          if (e.who[k][i].block != INT64_MAX && e.who[k][i].block != w[0].block) {
            report(e, w[0], true, e.who[k][i], static_cast<GridAccess>(k));
            raced = true;
          }
    }
  std::vector<CpuFinding> out;
  for (auto& [key, f] : found) out.push_back(f);
  return out;
}

}  // namespace tmc::runtime
