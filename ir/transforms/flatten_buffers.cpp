// Layouts, for a buffer of shape (d0, ..., dn-1):
//   row_major   ((i0 * d1 + i1) * d2 + i2) ...
//   col_major   i0 + d0 * (i1 + d1 * (i2 ...))
//   strided     sum(ik * sk)
//   swizzle(B, M, S)   o = row-major offset; o ^ ((o & (((1 << B) - 1) << (M + S))) >> S)
//               (CUTLASS's Swizzle<B, M, S>: XOR of S-bit-shifted row bits
//               into the column bits, which spreads a column over banks)
#include "ir/transforms/flatten_buffers.h"

#include "ir/mutator.h"
#include "support/check.h"
#include "support/layout_span.h"

namespace tmc::ir {
namespace {

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::Add, std::move(a), std::move(b)); }
Expr Mul(Expr a, Expr b) { return Binary::Make(BinaryOp::Mul, std::move(a), std::move(b)); }

class Flatten : public Mutator {
 public:
  Flatten(bool keep_source, int index_bits) : keep_source_(keep_source), index_bits_(index_bits) {}

 protected:
  Expr Visit(const Load* l, const Expr& self) override {
    bool changed = false;
    auto idx = MutateAll(l->indices, &changed);
    (void)self;
    return Load::Make(l->buffer, {FlatOffset(*l->buffer, idx, index_bits_)}, Source(l->buffer, idx, l->source));
  }
  Stmt Visit(const Store* s, const Stmt&) override {
    bool changed = false;
    auto idx = MutateAll(s->indices, &changed);
    return Store::Make(s->buffer, {FlatOffset(*s->buffer, idx, index_bits_)}, Mutate(s->value), Source(s->buffer, idx, s->source));
  }

 private:
  // The access as written, for per-dimension bounds checks: one kept by an
  // earlier pass (a distributed tensor's logical indices) wins.
  SourceAccess Source(const BufferPtr& b, const std::vector<Expr>& idx, const SourceAccess& earlier) {
    if (!keep_source_) return {};
    if (earlier) {
      bool changed = false;
      return MutateSource(earlier, &changed);
    }
    return SourceAccess{b, idx};
  }
  bool keep_source_;
  int index_bits_;
};

}  // namespace

Expr FlatOffset(const Buffer& b, const std::vector<Expr>& indices, int global_index_bits) {
  bool dense = b.layout == LayoutKind::RowMajor || b.layout == LayoutKind::ColMajor;
  bool wide = b.scope == MemScope::Global && (global_index_bits == 64 || !dense);
  ScalarKind t = wide ? ScalarKind::I64 : ScalarKind::I32;
  auto cv = [&](const Expr& e) { return Cast::Make(t, e); };
  size_t n = indices.size();
  Expr off;
  switch (b.layout) {
    case LayoutKind::RowMajor:
    case LayoutKind::Swizzle:
      off = cv(indices[0]);
      for (size_t k = 1; k < n; ++k) off = Add(Mul(off, cv(b.shape[k])), cv(indices[k]));
      break;
    case LayoutKind::ColMajor:
      off = cv(indices[n - 1]);
      for (size_t k = n - 1; k-- > 0;) off = Add(Mul(off, cv(b.shape[k])), cv(indices[k]));
      break;
    case LayoutKind::Strided:
      off = IntImm::Make(t, 0);
      for (size_t k = 0; k < n; ++k) off = Add(off, Mul(cv(indices[k]), cv(b.layout_args[k])));
      break;
  }
  if (b.layout == LayoutKind::Swizzle) {
    int64_t bits = *AsConstInt(b.layout_args[0]), base = *AsConstInt(b.layout_args[1]),
            shift = *AsConstInt(b.layout_args[2]);
    Expr mask = IntImm::Make(t, ((int64_t{1} << bits) - 1) << (base + shift));
    Expr moved = Binary::Make(BinaryOp::Shr, Binary::Make(BinaryOp::BitAnd, off, mask), IntImm::Make(t, shift));
    off = Binary::Make(BinaryOp::BitXor, off, moved);
  }
  return off;
}

int64_t AllocatedElements(const Buffer& b) {
  std::vector<int64_t> dims, args;
  for (const Expr& d : b.shape) dims.push_back(AsConstInt(d).value_or(1));
  for (const Expr& a : b.layout_args) args.push_back(AsConstInt(a).value_or(1));
  SpanLayout layout = b.layout == LayoutKind::Strided   ? SpanLayout::Strided
                      : b.layout == LayoutKind::Swizzle ? SpanLayout::Swizzle
                                                        : SpanLayout::Dense;
  std::optional<int64_t> span = LayoutSpan(layout, dims, args);
  TMC_CHECK(span.has_value(), "the checker let an allocation of more than 2^63 elements through: " + b.name);
  return *span;
}

void FlattenBuffers(Function& fn, PassContext& ctx) {
  fn.global_index_bits = ctx.global_index_bits;
  fn.body = Flatten(ctx.keep_source_indices, ctx.global_index_bits).Mutate(fn.body);
}

}  // namespace tmc::ir
