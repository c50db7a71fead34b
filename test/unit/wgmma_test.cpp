// The CPU executor's reading of wgmma matrix descriptors against the PTX
// ISA's own examples ("Canonical Layouts": exact CuTe layouts with their
// LBO and SBO), and against tmc's swizzle(B, 3, 3) tiles.
#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/cpu/wgmma_descriptor.h"

namespace {

using tmc::runtime::WgmmaElementAddress;

uint64_t Desc(int64_t start, int64_t lbo, int64_t sbo, uint64_t mode) {
  return uint64_t(start >> 4) | uint64_t(lbo >> 4) << 16 | uint64_t(sbo >> 4) << 32 | mode << 62;
}

// CuTe's Swizzle<B, 4, 3> on a byte address.
int64_t Swizzle(int64_t addr, int b) { return addr ^ (((addr >> 7) & ((1 << b) - 1)) << 4); }

// PTX ISA example "MN major, 64B swizzling, bf16": Swizzle<2,4,3> o
// ((8,4,2),(8,2)):((1,8,256),(32,512)), LBO 256 and SBO 512 elements.
TEST(WgmmaDescriptor, MnMajor64ByteSwizzleMatchesThePtxExample) {
  uint64_t d = Desc(0, 256 * 2, 512 * 2, 2);
  for (int64_t mn = 0; mn < 64; ++mn)
    for (int64_t k = 0; k < 16; ++k) {
      int64_t elem = (mn % 8) + (mn / 8 % 4) * 8 + (mn / 32) * 256 + (k % 8) * 32 + (k / 8) * 512;
      EXPECT_EQ(WgmmaElementAddress(d, true, mn, k), Swizzle(2 * elem, 2)) << mn << "," << k;
    }
}

// "MN major, 32B swizzling, bf16": Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256)).
TEST(WgmmaDescriptor, MnMajor32ByteSwizzleMatchesThePtxExample) {
  uint64_t d = Desc(0, 128 * 2, 256 * 2, 3);
  for (int64_t mn = 0; mn < 32; ++mn)
    for (int64_t k = 0; k < 16; ++k) {
      int64_t elem = (mn % 8) + (mn / 8 % 2) * 8 + (mn / 16) * 128 + (k % 8) * 16 + (k / 8) * 256;
      EXPECT_EQ(WgmmaElementAddress(d, true, mn, k), Swizzle(2 * elem, 1)) << mn << "," << k;
    }
}

// "MN major, no swizzling, bf16": ((8,1,2),(8,2)):((1,8,64),(8,128)),
// LBO 128 and SBO 64 elements.
TEST(WgmmaDescriptor, MnMajorInterleavedMatchesThePtxExample) {
  uint64_t d = Desc(0, 128 * 2, 64 * 2, 0);
  for (int64_t mn = 0; mn < 16; ++mn)
    for (int64_t k = 0; k < 16; ++k) {
      int64_t elem = (mn % 8) + (mn / 8) * 64 + (k % 8) * 8 + (k / 8) * 128;
      EXPECT_EQ(WgmmaElementAddress(d, true, mn, k), 2 * elem) << mn << "," << k;
    }
}

// K-major, 128-byte swizzle: ((8,m),(T,2k)):((8T,SBO),(1,T)), T = 8.
TEST(WgmmaDescriptor, KMajor128ByteSwizzleIsTheCanonicalLayout) {
  uint64_t d = Desc(0, 16, 1024, 1);
  for (int64_t mn = 0; mn < 64; ++mn)
    for (int64_t k = 0; k < 16; ++k) {
      int64_t elem = (mn % 8) * 64 + (mn / 8) * 512 + k;
      EXPECT_EQ(WgmmaElementAddress(d, false, mn, k), Swizzle(2 * elem, 3)) << mn << "," << k;
    }
}

// tmc's tiles: element (r, c) of `f16[R, 8 << b] swizzle(b, 3, 3)` at
// 1024-byte-aligned offset 4096 is where the descriptors tmc builds find
// it, for every k16 step (A, K-major: the start moves 32 bytes a step) and
// for B (MN-major, [G, K, 8 << b] groups LBO apart, the start 16 rows a step).
TEST(WgmmaDescriptor, TmcSwizzledTilesAreReadWhereTheyAre) {
  for (int b = 1; b <= 3; ++b) {
    int64_t row = int64_t{8} << b, span = 2 * row, base = 4096;
    auto tile = [&](int64_t r, int64_t c) {
      int64_t o = r * row + c;
      return base + 2 * (o ^ (((o >> 6) & ((1 << b) - 1)) << 3));
    };
    uint64_t mode = b == 3 ? 1 : b == 2 ? 2 : 3;
    for (int64_t k0 = 0; k0 < row; k0 += 16) {
      uint64_t a = Desc(base + 2 * k0, 16, 8 * span, mode);
      for (int64_t m = 0; m < 64; ++m)
        for (int64_t k = 0; k < 16; ++k) EXPECT_EQ(WgmmaElementAddress(a, false, m, k), tile(m, k0 + k)) << b;
    }
    const int64_t kRows = 64, kGroups = 2;
    auto btile = [&](int64_t k, int64_t n) { return tile((n / row) * kRows + k, n % row); };
    for (int64_t k0 = 0; k0 < kRows; k0 += 16) {
      uint64_t bd = Desc(base + 2 * k0 * row, kRows * span, 8 * span, mode);
      for (int64_t n = 0; n < kGroups * row; ++n)
        for (int64_t k = 0; k < 16; ++k) EXPECT_EQ(WgmmaElementAddress(bd, true, n, k), btile(k0 + k, n)) << b;
    }
  }
}

}  // namespace
