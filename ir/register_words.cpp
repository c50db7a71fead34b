#include "ir/register_words.h"

#include <algorithm>

#include "ir/transforms/flatten_buffers.h"

namespace tmc::ir {

int64_t RegisterWords(const Buffer& b) {
  if (b.scope != MemScope::Register) return 0;
  return (AllocatedElements(b) * std::max<int64_t>(ScalarBytes(b.elem), 1) + 3) / 4;
}

}  // namespace tmc::ir
