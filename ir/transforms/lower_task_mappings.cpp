// Lowering of task mappings. For a chain a1 * ... * an and worker w:
//
//   part_k   = (w / W_{k+1..n}) % W_k            W: workers of atoms
//   scale_k  = S_{k+1..n}                        S: shapes of atoms (per dim)
//   task     = sum_k coord_k(part_k or loop counters) * scale_k
//
// Before:  for (i, j) in spatial(16, 16) * repeat(4, 4) on threadIdx.x { acc[i, j] = 0.0 }
// After:   let w = threadIdx.x
//          if (w < 256) {
//            for r0 in [0, 4) unroll { for r1 in [0, 4) unroll {
//              let i = ((w / 16) % 16) * 4 + r0
//              let j = (w % 16) * 4 + r1
//              acc[r0 * 4 + r1] = 0.0 } } }
#include "ir/transforms/lower_task_mappings.h"

#include <map>
#include <unordered_set>

#include "ir/mutator.h"

namespace tmc::ir {
namespace {

constexpr int64_t kUnrollLimit = 64;

Expr I32(int64_t v) { return IntImm::Make(ScalarKind::I32, v); }

// Index arithmetic without the trivial operations (x / 1, x * 1, 0 * k,
// x + 0), so that the IR printed right after this pass reads like the
// mapping.
Expr Div(Expr a, int64_t b) { return b == 1 ? a : Binary::Make(BinaryOp::Div, std::move(a), I32(b)); }
Expr Mod(Expr a, int64_t b) { return Binary::Make(BinaryOp::Mod, std::move(a), I32(b)); }
Expr Mul(Expr a, int64_t b) {
  if (b == 1 || AsConstInt(a) == 0) return a;
  return Binary::Make(BinaryOp::Mul, std::move(a), I32(b));
}
Expr Add(Expr a, Expr b) {
  if (AsConstInt(a) == 0) return b;
  if (AsConstInt(b) == 0) return a;
  return Binary::Make(BinaryOp::Add, std::move(a), std::move(b));
}

// The variables a statement reads: every expression of every statement
// (indices, values, call arguments, bounds, conditions). Not the shapes of
// the tensors allocated in it, which are constants (the checker requires
// it of local tensors) and so read no variable.
std::unordered_set<const Var*> VarsRead(const Stmt& s) {
  struct Collect : Visitor {
    std::unordered_set<const Var*> vars;
    void Visit(const VarRef* e) override { vars.insert(e->var.get()); }
  } collect;
  collect.Walk(s);
  return std::move(collect.vars);
}

class Lower : public Mutator {
 public:
  explicit Lower(Function& fn) : fn_(fn) {}

 protected:
  // A distributed tensor becomes the per-thread array of its worker's tasks.
  BufferPtr Flatten(const BufferPtr& b) {
    auto flat = std::make_shared<Buffer>();
    flat->name = b->name;
    flat->elem = b->elem;
    flat->scope = MemScope::Register;
    flat->shape = {I32(b->distributed_by->TaskCount() / b->distributed_by->Workers())};
    flat_[b.get()] = flat;
    return flat;
  }

  Stmt Visit(const Alloc* a, const Stmt& self) override {
    if (!a->buffer->distributed_by) return self;
    return Alloc::Make(Flatten(a->buffer));
  }

 public:
  // Fragment parameters of a device function are flattened like locals.
  void FlattenParams() {
    for (Param& p : fn_.params)
      if (p.buffer && p.buffer->distributed_by) p.buffer = Flatten(p.buffer);
  }

 protected:
  Expr Visit(const Load* l, const Expr& self) override {
    if (auto slot = Slot(*l->buffer)) return Load::Make(flat_.at(l->buffer.get()), {*slot});
    // Outside a loop over its mapping a distributed tensor is only named as
    // a whole (passed to a function): its first register stands for it.
    if (auto it = flat_.find(l->buffer.get()); it != flat_.end()) return Load::Make(it->second, {I32(0)});
    return Mutator::Visit(l, self);
  }

  Stmt Visit(const Store* s, const Stmt& self) override {
    if (auto slot = Slot(*s->buffer)) return Store::Make(flat_.at(s->buffer.get()), {*slot}, Mutate(s->value));
    return Mutator::Visit(s, self);
  }

  // Fragment operands of tensor-core calls are whole distributed buffers.
  Expr Visit(const Call* c, const Expr& self) override {
    bool changed = false;
    auto args = MutateAll(c->args, &changed);
    std::vector<BufferPtr> buffers = c->buffers;
    for (BufferPtr& b : buffers)
      if (auto it = flat_.find(b.get()); it != flat_.end()) {
        b = it->second;
        changed = true;
      }
    return changed ? Call::Make(c->type, c->intrinsic, std::move(args), c->callee, std::move(buffers)) : self;
  }

  Stmt Visit(const ForMapping* f, const Stmt& self) override {
    (void)self;
    const TaskMapping& m = f->mapping;
    const auto& atoms = m.Atoms();
    size_t rank = static_cast<size_t>(m.Rank());
    std::vector<Stmt> out;
    VarPtr w = NewVar(fn_, "w", ScalarKind::I32);
    out.push_back(LetStmt::Make(w, Mutate(f->worker)));

    // coords[d]: the task coordinate being built, as sum of terms.
    std::vector<Expr> coords(rank, I32(0));
    std::vector<std::pair<VarPtr, Expr>> loops;  // counters and trip counts, outer first
    Expr slot = I32(0);
    int64_t rest_workers = m.Workers();
    int64_t workers_before = 1;
    std::vector<int64_t> rest_shape = m.Shape();
    for (const MappingAtom& a : atoms) {
      rest_workers /= a.Workers();
      for (size_t d = 0; d < rank; ++d) rest_shape[d] /= a.dims[d];
      bool col = a.kind == MappingAtom::Kind::ColSpatial || a.kind == MappingAtom::Kind::ColRepeat;
      // Strides of the atom's own enumeration order.
      std::vector<int64_t> stride(rank, 1);
      if (col) {
        for (size_t d = 1; d < rank; ++d) stride[d] = stride[d - 1] * a.dims[d - 1];
      } else {
        for (size_t d = rank - 1; d-- > 0;) stride[d] = stride[d + 1] * a.dims[d + 1];
      }
      std::vector<Expr> c(rank);
      // An atom preceded only by single-worker atoms sees the whole worker.
      bool first = workers_before == 1;
      workers_before *= a.Workers();
      if (a.kind == MappingAtom::Kind::Spatial || a.kind == MappingAtom::Kind::ColSpatial) {
        Expr part = Div(VarRef::Make(w), rest_workers);
        // Under the guard w < m.workers the leading part is in range.
        if (!first) part = Mod(part, a.Workers());
        // The slowest dimension of an in-range part needs no modulo.
        size_t slowest = col ? rank - 1 : 0;
        for (size_t d = 0; d < rank; ++d) {
          Expr q = Div(part, stride[d]);
          c[d] = (first && d == slowest) || a.dims[d] == 1 ? (a.dims[d] == 1 ? I32(0) : q) : Mod(q, a.dims[d]);
        }
      } else {
        // Loops in enumeration order: slowest dimension outermost.
        std::vector<size_t> order(rank);
        for (size_t d = 0; d < rank; ++d) order[d] = col ? rank - 1 - d : d;
        Expr local = I32(0);
        for (size_t d : order) {
          if (a.dims[d] == 1) {
            c[d] = I32(0);
            continue;
          }
          VarPtr r = NewVar(fn_, "r" + std::to_string(loops.size()), ScalarKind::I32);
          loops.emplace_back(r, I32(a.dims[d]));
          c[d] = VarRef::Make(r);
          local = Add(local, Mul(VarRef::Make(r), stride[d]));
        }
        slot = Add(Mul(slot, a.Tasks()), local);
      }
      for (size_t d = 0; d < rank; ++d) coords[d] = Add(coords[d], Mul(c[d], rest_shape[d]));
    }

    slots_.emplace_back(m, slot);
    Stmt body = Mutate(f->body);
    slots_.pop_back();
    // A coordinate the body does not read gets no let: register tensors
    // indexed by the task take its slot instead, and a let nothing reads
    // would be copied for every unrolled task before Simplify removed it.
    std::unordered_set<const Var*> read = VarsRead(body);
    std::vector<Stmt> inner;
    for (size_t d = 0; d < rank; ++d)
      if (read.count(f->vars[d].get())) inner.push_back(LetStmt::Make(f->vars[d], coords[d]));
    inner.push_back(body);
    Stmt nest = Seq::Make(std::move(inner));
    int64_t unroll_tasks = 1;
    for (const MappingAtom& a : atoms)
      if (a.Workers() == 1) unroll_tasks = std::max(unroll_tasks, a.Tasks());
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
      nest = For::Make(it->first, I32(0), it->second, I32(1), unroll_tasks <= kUnrollLimit, nest);
      // The mapping loop's location, for diagnostics about these loops (a
      // fresh node: setting it in place is safe).
      const_cast<StmtNode*>(nest.get())->loc = f->loc;
    }
    // Workers past m.workers get no tasks (simplify drops the guard when the
    // worker is known to be in range).
    out.push_back(IfStmt::Make(Binary::Make(BinaryOp::Lt, VarRef::Make(w), I32(m.Workers())), nest));
    Stmt result = Seq::Make(std::move(out));
    return result;
  }

 private:
  // The slot expression of a distributed buffer inside a loop over its
  // mapping (the checker guarantees the indices are the loop variables).
  std::optional<Expr> Slot(const Buffer& b) {
    if (!b.distributed_by || !flat_.count(&b)) return std::nullopt;
    for (auto it = slots_.rbegin(); it != slots_.rend(); ++it)
      if (it->first == *b.distributed_by) return it->second;
    return std::nullopt;
  }

  Function& fn_;
  std::map<const Buffer*, BufferPtr> flat_;
  std::vector<std::pair<TaskMapping, Expr>> slots_;
};

}  // namespace

void LowerTaskMappings(Function& fn, PassContext&) {
  Lower lower(fn);
  lower.FlattenParams();
  fn.body = lower.Mutate(fn.body);
}

}  // namespace tmc::ir
