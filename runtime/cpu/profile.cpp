// The cost of warp accesses (sectors, wavefronts, bank conflicts) and the
// recorder that groups the accesses of a warp's lanes into warp
// instructions. Lanes of a block run one after the other as fibers, so a
// lane's accesses are logged and grouped only when the warp's lanes meet:
// at a barrier, a warp operation or the end of the block. Between two
// meetings, the n-th access of lane l at a site belongs to the same warp
// instruction as the n-th access of every other lane at that site, which
// is what the hardware executes when the warp runs converged; lanes that
// skip a site (a branch) leave it with fewer active lanes.
#include "runtime/cpu/profile.h"

#include <algorithm>
#include <map>
#include <utility>

namespace tmc::runtime {

GlobalCost GlobalAccessCost(const WarpAccess& a) {
  GlobalCost c;
  int64_t sectors[32 * 2];
  int n = 0;
  int64_t bytes = std::max<int64_t>(a.bytes, 1);
  for (int l = 0; l < 32; ++l) {
    if (!(a.mask >> l & 1)) continue;
    ++c.lanes;
    c.requested_bytes += bytes;
    // An aligned access of up to 32 bytes lies in one sector; a misaligned
    // one (the hardware faults on those) may touch two.
    int64_t first = a.address[l] >> 5, last = (a.address[l] + bytes - 1) >> 5;
    for (int64_t s = first; s <= last && n < 64; ++s) sectors[n++] = s;
  }
  std::sort(sectors, sectors + n);
  c.sectors = std::unique(sectors, sectors + n) - sectors;
  return c;
}

SharedCost SharedAccessCost(const WarpAccess& a) {
  SharedCost c;
  int64_t bytes = std::max<int64_t>(a.bytes, 1);
  int phase_lanes = bytes <= 4 ? 32 : bytes <= 8 ? 16 : 8;
  for (int p0 = 0; p0 < 32; p0 += phase_lanes) {
    // (bank, word) of every 4-byte word the phase's lanes touch.
    std::pair<int32_t, int64_t> words[64];
    int n = 0;
    for (int l = p0; l < p0 + phase_lanes; ++l) {
      if (!(a.mask >> l & 1)) continue;
      ++c.lanes;
      c.requested_bytes += bytes;
      for (int64_t w = a.address[l] >> 2; w <= (a.address[l] + bytes - 1) >> 2 && n < 64; ++w)
        words[n++] = {static_cast<int32_t>(w & 31), w};
    }
    if (n == 0) continue;
    std::sort(words, words + n);
    n = static_cast<int>(std::unique(words, words + n) - words);
    // Distinct words per bank: runs of the same bank in the sorted list.
    int32_t ways = 0;
    for (int i = 0; i < n;) {
      int j = i;
      while (j < n && words[j].first == words[i].first) ++j;
      ways = std::max(ways, j - i);
      i = j;
    }
    c.wavefronts += ways;
    c.ideal_wavefronts += 1;
    c.ways = std::max(c.ways, ways);
  }
  return c;
}

void SiteProfile::Add(const SiteProfile& o) {
  warp_instructions += o.warp_instructions;
  lanes += o.lanes;
  requested_bytes += o.requested_bytes;
  sectors += o.sectors;
  wavefronts += o.wavefronts;
  ideal_wavefronts += o.ideal_wavefronts;
  max_ways = std::max(max_ways, o.max_ways);
  barriers += o.barriers;
}

namespace {

uint64_t SiteKey(int32_t site, ProfileOp op) {
  return static_cast<uint64_t>(static_cast<uint32_t>(site)) << 8 | static_cast<uint64_t>(op);
}

// A warp instruction being put together: the n-th instance of a site key.
struct InstanceKey {
  uint64_t site_key;
  uint32_t n;
  bool operator==(const InstanceKey& o) const { return site_key == o.site_key && n == o.n; }
};
struct InstanceHash {
  size_t operator()(const InstanceKey& k) const { return std::hash<uint64_t>()(k.site_key * 0x9E3779B97F4A7C15ull ^ k.n); }
};

}  // namespace

void ProfileRecorder::StartBlock(int32_t threads) {
  logs_.resize(static_cast<size_t>(threads));
  for (auto& log : logs_) log.clear();
}

void ProfileRecorder::Access(int32_t thread, int32_t site, ProfileOp op, bool shared, int32_t buffer, int32_t bytes,
                             int64_t address) {
  logs_[static_cast<size_t>(thread)].push_back(
      Entry{address, site, buffer, op, shared, static_cast<uint8_t>(std::clamp(bytes, 1, 255))});
}

void ProfileRecorder::MarkLdMatrix(int32_t thread, int64_t address, bool used) {
  auto& log = logs_[static_cast<size_t>(thread)];
  if (log.empty() || !log.back().shared || log.back().address != address) return;
  if (!used) {  // x1 and x2 read rows from lanes 0-7 and 0-15 only
    log.pop_back();
    return;
  }
  log.back().op = ProfileOp::LdMatrix;
  log.back().bytes = 16;
}

SiteProfile& ProfileRecorder::Site(int32_t site, ProfileOp op) {
  SiteProfile& s = sites_[SiteKey(site, op)];
  s.site = site;
  s.op = op;
  return s;
}

void ProfileRecorder::WarpMeets(int32_t first, int32_t end) {
  struct Pending {
    Entry entry;
    WarpAccess access;
  };
  // Reused between calls: the flush runs at every warp meeting.
  thread_local std::vector<Pending> pending;
  thread_local std::unordered_map<InstanceKey, size_t, InstanceHash> index;
  thread_local std::unordered_map<uint64_t, uint32_t> count;
  pending.clear();
  index.clear();
  bool any = false;
  for (int32_t t = first; t < end; ++t) any |= !logs_[static_cast<size_t>(t)].empty();
  if (!any) return;
  for (int32_t t = first; t < end; ++t) {
    auto& log = logs_[static_cast<size_t>(t)];
    count.clear();
    int lane = (t - first) & 31;
    for (const Entry& e : log) {
      uint64_t key = SiteKey(e.site, e.op);
      uint32_t n = count[key]++;
      auto [it, fresh] = index.try_emplace(InstanceKey{key, n}, pending.size());
      if (fresh) {
        pending.push_back(Pending{e, WarpAccess{}});
        pending.back().access.bytes = e.bytes;
      }
      WarpAccess& a = pending[it->second].access;
      a.mask |= 1u << lane;
      a.address[lane] = e.address;
    }
    log.clear();
  }
  for (const Pending& p : pending) {
    SiteProfile& s = Site(p.entry.site, p.entry.op);
    s.shared = p.entry.shared;
    s.buffer = p.entry.buffer;
    s.bytes = p.entry.bytes;
    ++s.warp_instructions;
    if (p.entry.shared) {
      SharedCost c = SharedAccessCost(p.access);
      s.lanes += c.lanes;
      s.requested_bytes += c.requested_bytes;
      s.wavefronts += c.wavefronts;
      s.ideal_wavefronts += c.ideal_wavefronts;
      s.max_ways = std::max(s.max_ways, c.ways);
    } else {
      GlobalCost c = GlobalAccessCost(p.access);
      s.lanes += c.lanes;
      s.requested_bytes += c.requested_bytes;
      s.sectors += c.sectors;
    }
  }
}

void ProfileRecorder::FlushAll() {
  auto threads = static_cast<int32_t>(logs_.size());
  for (int32_t w0 = 0; w0 < threads; w0 += 32) WarpMeets(w0, std::min(threads, w0 + 32));
}

void ProfileRecorder::Barrier(int32_t site) {
  FlushAll();
  ++Site(site, ProfileOp::Barrier).barriers;
}

void ProfileRecorder::EndBlock() {
  FlushAll();
  ++blocks_;
}

void ProfileRecorder::MergeInto(CpuProfile* out) const {
  std::map<std::pair<int32_t, int>, SiteProfile> all;
  for (const SiteProfile& s : out->sites) all[{s.site, static_cast<int>(s.op)}] = s;
  for (const auto& [key, s] : sites_) {
    auto [it, fresh] = all.try_emplace({s.site, static_cast<int>(s.op)}, s);
    if (!fresh) it->second.Add(s);
  }
  out->sites.clear();
  for (auto& [key, s] : all) out->sites.push_back(s);
  out->blocks += blocks_;
}

}  // namespace tmc::runtime
