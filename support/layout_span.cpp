// Allocation sizes of laid-out tensors, shared by the checker (which limits
// shared and register tensors) and the IR (which allocates them), with
// overflow checks: a declared shape may be absurdly large.
#include "support/layout_span.h"

#include <algorithm>

namespace tmc {

int64_t SwizzleOffset(int64_t o, int64_t b, int64_t m, int64_t s) {
  int64_t mask = ((int64_t{1} << b) - 1) << (m + s);
  return o ^ ((o & mask) >> s);
}

std::optional<int64_t> LayoutSpan(SpanLayout layout, const std::vector<int64_t>& dims, const std::vector<int64_t>& args) {
  int64_t span = 1;
  if (layout == SpanLayout::Strided) {
    for (size_t k = 0; k < dims.size(); ++k) {
      int64_t term;
      if (__builtin_mul_overflow(dims[k] - 1, args[k], &term) || __builtin_add_overflow(span, term, &span))
        return std::nullopt;
    }
    return span;
  }
  for (int64_t d : dims)
    if (__builtin_mul_overflow(span, d, &span)) return std::nullopt;
  if (layout == SpanLayout::Dense) return span;
  // A swizzle maps each aligned block of 2^(M + B) offsets onto itself, so
  // only a partial last block can reach past the product. Its largest
  // image is found by enumeration, up to 2^22 offsets; a longer partial
  // block is rounded up to the whole block.
  int64_t block = int64_t{1} << (args[0] + args[1]);
  int64_t base = span / block * block;
  if (base == span) return span;
  if (span - base > (int64_t{1} << 22)) return base + block;
  int64_t largest = 0;
  for (int64_t o = base; o < span; ++o) largest = std::max(largest, SwizzleOffset(o, args[0], args[1], args[2]));
  return std::max(span, largest + 1);
}

}  // namespace tmc
