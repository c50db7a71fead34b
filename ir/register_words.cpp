#include "ir/register_words.h"

#include <algorithm>

#include "ir/mutator.h"
#include "ir/transforms/flatten_buffers.h"

namespace tmc::ir {

int64_t RegisterWords(const Stmt& s) {
  struct Count : Visitor {
    int64_t words = 0;
    void Visit(const Alloc* a) override {
      const Buffer& b = *a->buffer;
      if (b.scope == MemScope::Register)
        words += (AllocatedElements(b) * std::max<int64_t>(ScalarBytes(b.elem), 1) + 3) / 4;
      Visitor::Visit(a);
    }
  } count;
  static_cast<Visitor&>(count).Walk(s);
  return count.words;
}

}  // namespace tmc::ir
