// How many elements a tensor of constant shape occupies under its layout.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tmc {

enum class SpanLayout {
  Dense,    // row_major or col_major: the product of the dimensions
  Strided,  // args: one stride per dimension
  Swizzle,  // args: B, M, S (row-major offsets, XOR-swizzled)
};

/// The largest offset of any element, plus one: what an allocation needs.
/// For strided, sum((d_k - 1) * s_k) + 1 (strides larger than the row make
/// gaps; `strided(65, 1)` on [4, 4] spans 3 * 65 + 3 + 1 elements). For a
/// swizzle, which only permutes offsets within aligned blocks of 2^(M + B),
/// the product of the dimensions, or more when the last block is partial.
/// nullopt when the span does not fit in int64_t. Dimensions are >= 1;
/// strides >= 1; swizzle parameters valid (0 <= B <= S, 0 <= M, B + M + S <= 31).
std::optional<int64_t> LayoutSpan(SpanLayout layout, const std::vector<int64_t>& dims, const std::vector<int64_t>& args);

/// The offset of row-major offset `o` under swizzle(B, M, S).
int64_t SwizzleOffset(int64_t o, int64_t b, int64_t m, int64_t s);

}  // namespace tmc
