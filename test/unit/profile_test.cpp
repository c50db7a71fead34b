// The cost model of tmc run --profile (runtime/cpu/profile.h): sectors of
// global warp accesses, wavefronts and n-way bank conflicts of shared ones,
// and the grouping of lanes' accesses into warp instructions.
#include <gtest/gtest.h>

#include "runtime/cpu/profile.h"

namespace tmc::runtime {
namespace {

// Lane l at base + l * stride_bytes, every lane active unless `mask` says.
WarpAccess Strided(int64_t base, int64_t stride_bytes, int32_t bytes, uint32_t mask = 0xFFFFFFFFu) {
  WarpAccess a;
  a.mask = mask;
  a.bytes = bytes;
  for (int l = 0; l < 32; ++l) a.address[l] = base + l * stride_bytes;
  return a;
}

TEST(ProfileGlobal, CoalescedFloatsTouchFourSectors) {
  GlobalCost c = GlobalAccessCost(Strided(0, 4, 4));
  EXPECT_EQ(c.lanes, 32);
  EXPECT_EQ(c.requested_bytes, 128);
  EXPECT_EQ(c.sectors, 4);
}

TEST(ProfileGlobal, MisalignedWarpTouchesOneMoreSector) {
  EXPECT_EQ(GlobalAccessCost(Strided(4, 4, 4)).sectors, 5);
}

TEST(ProfileGlobal, StridedAccessesTouchASectorPerLane) {
  EXPECT_EQ(GlobalAccessCost(Strided(0, 8, 4)).sectors, 8);    // 2 floats per sector: 50%
  EXPECT_EQ(GlobalAccessCost(Strided(0, 32, 4)).sectors, 32);  // 12.5%
  EXPECT_EQ(GlobalAccessCost(Strided(0, 4096, 4)).sectors, 32);
}

TEST(ProfileGlobal, BroadcastIsOneSector) {
  GlobalCost c = GlobalAccessCost(Strided(64, 0, 4));
  EXPECT_EQ(c.sectors, 1);
  EXPECT_EQ(c.requested_bytes, 128);
}

TEST(ProfileGlobal, WideAndNarrowElements) {
  EXPECT_EQ(GlobalAccessCost(Strided(0, 16, 16)).sectors, 16);  // 512 bytes
  EXPECT_EQ(GlobalAccessCost(Strided(0, 2, 2)).sectors, 2);     // 32 halves: 64 bytes
  EXPECT_EQ(GlobalAccessCost(Strided(0, 8, 8)).requested_bytes, 256);
}

TEST(ProfileGlobal, OnlyActiveLanesCount) {
  GlobalCost c = GlobalAccessCost(Strided(0, 32, 4, 0x0000000Fu));
  EXPECT_EQ(c.lanes, 4);
  EXPECT_EQ(c.sectors, 4);
  EXPECT_EQ(c.requested_bytes, 16);
  EXPECT_EQ(GlobalAccessCost(WarpAccess{}).sectors, 0);
}

TEST(ProfileShared, ConsecutiveWordsHaveNoConflict) {
  SharedCost c = SharedAccessCost(Strided(0, 4, 4));
  EXPECT_EQ(c.ways, 1);
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.ideal_wavefronts, 1);
}

TEST(ProfileShared, ColumnOfA32WideTileIs32Way) {
  // tile[l][c] of f32[32, 32]: every lane in bank c.
  SharedCost c = SharedAccessCost(Strided(4 * 5, 32 * 4, 4));
  EXPECT_EQ(c.ways, 32);
  EXPECT_EQ(c.wavefronts, 32);
  EXPECT_EQ(c.ideal_wavefronts, 1);
}

TEST(ProfileShared, PaddedColumnHasNoConflict) {
  SharedCost c = SharedAccessCost(Strided(4 * 5, 33 * 4, 4));
  EXPECT_EQ(c.ways, 1);
  EXPECT_EQ(c.wavefronts, 1);
}

TEST(ProfileShared, StrideTwoIsTwoWay) {
  EXPECT_EQ(SharedAccessCost(Strided(0, 8, 4)).ways, 2);
  EXPECT_EQ(SharedAccessCost(Strided(0, 16, 4)).ways, 4);
}

TEST(ProfileShared, SameWordIsABroadcast) {
  EXPECT_EQ(SharedAccessCost(Strided(128, 0, 4)).ways, 1);
  // Halves: two lanes per word, 16 words.
  EXPECT_EQ(SharedAccessCost(Strided(0, 2, 2)).ways, 1);
  // Lanes 0-15 read word 0, lanes 16-31 word 32 (same bank): 2-way.
  WarpAccess a = Strided(0, 0, 4);
  for (int l = 16; l < 32; ++l) a.address[l] = 128;
  EXPECT_EQ(SharedAccessCost(a).ways, 2);
}

TEST(ProfileShared, EightByteAccessesGoByHalfWarp) {
  // Consecutive doubles: each half warp covers the 32 banks once.
  SharedCost c = SharedAccessCost(Strided(0, 8, 8));
  EXPECT_EQ(c.ways, 1);
  EXPECT_EQ(c.wavefronts, 2);
  EXPECT_EQ(c.ideal_wavefronts, 2);
  // Stride of two doubles: banks repeat within a half warp.
  c = SharedAccessCost(Strided(0, 16, 8));
  EXPECT_EQ(c.ways, 2);
  EXPECT_EQ(c.wavefronts, 4);
  // Only the first half warp active: one phase.
  c = SharedAccessCost(Strided(0, 8, 8, 0x0000FFFFu));
  EXPECT_EQ(c.wavefronts, 1);
  EXPECT_EQ(c.ideal_wavefronts, 1);
}

TEST(ProfileShared, SixteenByteAccessesGoByQuarterWarp) {
  SharedCost c = SharedAccessCost(Strided(0, 16, 16));
  EXPECT_EQ(c.ways, 1);
  EXPECT_EQ(c.wavefronts, 4);
  // ldmatrix rows of a 64-half-wide tile (128 bytes apart): the 8 rows of
  // a phase all start in bank 0.
  c = SharedAccessCost(Strided(0, 128, 16));
  EXPECT_EQ(c.ways, 8);
  EXPECT_EQ(c.wavefronts, 32);
  EXPECT_EQ(c.ideal_wavefronts, 4);
}

TEST(ProfileRecorder, GroupsTheNthAccessOfEachLane) {
  ProfileRecorder r;
  r.StartBlock(64);
  // Site 0: every thread reads twice, coalesced; site 1: even lanes only.
  for (int t = 0; t < 64; ++t) {
    for (int n = 0; n < 2; ++n) r.Access(t, 0, ProfileOp::Read, false, 0, 4, (n * 64 + t) * 4);
    if (t % 2 == 0) r.Access(t, 1, ProfileOp::Write, true, 1, 4, t * 4 * 32);
  }
  r.Barrier(7);
  r.EndBlock();
  CpuProfile p;
  r.MergeInto(&p);
  r.MergeInto(&p);  // a second worker with the same counts
  ASSERT_EQ(p.sites.size(), 3u);
  EXPECT_EQ(p.blocks, 2);
  const SiteProfile& read = p.sites[0];
  EXPECT_EQ(read.site, 0);
  EXPECT_EQ(read.warp_instructions, 8);  // 2 warps, 2 instances, 2 workers
  EXPECT_EQ(read.lanes, 8 * 32);
  EXPECT_EQ(read.sectors, 8 * 4);
  const SiteProfile& write = p.sites[1];
  EXPECT_TRUE(write.shared);
  EXPECT_EQ(write.warp_instructions, 4);
  EXPECT_EQ(write.lanes, 4 * 16);
  EXPECT_EQ(write.max_ways, 16);  // 16 lanes, every one in bank 0
  EXPECT_EQ(write.wavefronts, 4 * 16);
  EXPECT_EQ(p.sites[2].op, ProfileOp::Barrier);
  EXPECT_EQ(p.sites[2].barriers, 2);
}

TEST(ProfileRecorder, LdMatrixRowsAreSixteenBytes) {
  ProfileRecorder r;
  r.StartBlock(32);
  for (int t = 0; t < 32; ++t) {
    r.Access(t, 3, ProfileOp::Read, true, 0, 2, t * 16);
    r.MarkLdMatrix(t, t * 16);
  }
  r.WarpMeets(0, 32);
  CpuProfile p;
  r.MergeInto(&p);
  ASSERT_EQ(p.sites.size(), 1u);
  EXPECT_EQ(p.sites[0].op, ProfileOp::LdMatrix);
  EXPECT_EQ(p.sites[0].bytes, 16);
  EXPECT_EQ(p.sites[0].wavefronts, 4);
  EXPECT_EQ(p.sites[0].requested_bytes, 512);
}

}  // namespace
}  // namespace tmc::runtime
