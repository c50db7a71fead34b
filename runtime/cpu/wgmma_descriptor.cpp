#include "runtime/cpu/wgmma_descriptor.h"

namespace tmc::runtime {

int64_t WgmmaElementAddress(uint64_t desc, bool mn_major, int64_t mn, int64_t k) {
  const int64_t start = static_cast<int64_t>(desc & 0x3FFF) << 4;
  const int64_t lbo = static_cast<int64_t>((desc >> 16) & 0x3FFF) << 4;
  const int64_t sbo = static_cast<int64_t>((desc >> 32) & 0x3FFF) << 4;
  const int mode = static_cast<int>(desc >> 62);
  constexpr int64_t kElem = 2;  // bytes; T = 8 elements make one 16-byte chunk
  if (mode == 0) {
    // Interleaved 8 x 16-byte core matrices.
    if (mn_major) return start + (mn % 8) * kElem + (mn / 8) * sbo + (k % 8) * 16 + (k / 8) * lbo;
    return start + (mn % 8) * 16 + (mn / 8) * sbo + (k % 8) * kElem + (k / 8) * lbo;
  }
  const int bits = mode == 1 ? 3 : mode == 2 ? 2 : 1;  // 128-, 64-, 32-byte swizzle
  const int64_t span = int64_t{16} << bits;           // bytes of one swizzled row
  int64_t addr;
  if (mn_major) {
    // Rows along K of span bytes of MN; span-wide MN groups LBO apart,
    // groups of 8 K rows SBO apart.
    int64_t per_row = span / kElem;
    addr = start + (mn % per_row) * kElem + (mn / per_row) * lbo + (k % 8) * span + (k / 8) * sbo;
  } else {
    // Rows along MN of span bytes of K; groups of 8 rows SBO apart.
    addr = start + (mn % 8) * span + (mn / 8) * sbo + k * kElem;
  }
  return addr ^ (((addr >> 7) & ((int64_t{1} << bits) - 1)) << 4);
}

}  // namespace tmc::runtime
