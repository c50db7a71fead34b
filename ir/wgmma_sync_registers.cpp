// See wgmma_sync_registers.h.
#include "ir/wgmma_sync_registers.h"

#include <algorithm>
#include <set>

#include "ir/mutator.h"

namespace tmc::ir {
namespace {

// The calls in a straight-line statement or an expression, arguments
// before the call that takes them (the order of evaluation).
template <typename Node>
std::vector<const Call*> CallsIn(const Node& n) {
  struct Calls : Visitor {
    std::vector<const Call*> found;
    void Visit(const Call* c) override {
      Visitor::Visit(c);
      found.push_back(c);
    }
  } calls;
  calls.Walk(n);
  return calls.found;
}

// What may hold at a point of the body, over all paths to it.
struct State {
  std::set<const Call*> open_fences;    // fences with no fence after them yet
  std::set<const Buffer*> in_flight;    // registers of wgmma calls since a wait(0)
  bool operator==(const State&) const = default;
  void Join(const State& o) {
    open_fences.insert(o.open_fences.begin(), o.open_fences.end());
    in_flight.insert(o.in_flight.begin(), o.in_flight.end());
  }
};

class Analysis {
 public:
  std::unordered_map<const Call*, std::set<const Buffer*>> regs;

  void Run(const Stmt& s, State& st) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Seq:
        for (const Stmt& c : s->as<Seq>()->stmts) Run(c, st);
        return;
      case StmtKind::IfStmt: {
        auto* i = s->as<IfStmt>();
        Events(i->cond, st);
        State other = st;
        Run(i->then_body, st);
        Run(i->else_body, other);
        st.Join(other);
        return;
      }
      case StmtKind::For: {
        auto* f = s->as<For>();
        Events(f->begin, st);
        Events(f->end, st);
        Events(f->step, st);
        Loop(f->body, nullptr, st);
        return;
      }
      case StmtKind::While: {
        auto* w = s->as<While>();
        Loop(w->body, &w->cond, st);
        return;
      }
      case StmtKind::ForMapping:  // lowered before code generation; a loop
        Loop(s->as<ForMapping>()->body, nullptr, st);
        return;
      case StmtKind::Jump:
        if (!loops_.empty()) (s->as<Jump>()->is_break ? loops_.back().breaks : loops_.back().continues).Join(st);
        st = State{};  // nothing follows on this path
        return;
      case StmtKind::Return:
        Events(s->as<Return>()->value, st);
        st = State{};
        return;
      default:  // straight-line statements: the calls in their expressions
        for (const Call* c : CallsIn(s)) Event(c, st);
        return;
    }
  }

 private:
  struct LoopExits {
    State breaks, continues;
  };

  void Events(const Expr& e, State& st) {
    if (!e) return;
    for (const Call* c : CallsIn(e)) Event(c, st);
  }

  void Event(const Call* c, State& st) {
    switch (c->intrinsic) {
      case Intrinsic::Wgmma:
        for (const BufferPtr& b : c->buffers) {  // the accumulator, and A when in registers
          for (const Call* f : st.open_fences) regs[f].insert(b.get());
          st.in_flight.insert(b.get());
        }
        return;
      case Intrinsic::WgmmaFence:
        regs[c];  // listed even if no wgmma follows
        st.open_fences = {c};
        return;
      case Intrinsic::WgmmaWait: {
        regs[c].insert(st.in_flight.begin(), st.in_flight.end());
        auto pending = c->args.empty() ? nullptr : c->args[0]->as<IntImm>();
        if (pending && pending->value == 0) st.in_flight.clear();
        return;
      }
      default: return;
    }
  }

  // A loop whose body runs zero or more times: its head joins the state
  // before it with the end of each iteration (and each continue) until
  // nothing grows; it is left from the head (the condition false) or by a
  // break.
  void Loop(const Stmt& body, const Expr* cond, State& st) {
    State head = st;
    for (;;) {
      State in = head;
      if (cond) Events(*cond, in);
      loops_.emplace_back();
      State out = in;
      Run(body, out);
      LoopExits exits = std::move(loops_.back());
      loops_.pop_back();
      out.Join(exits.continues);
      State next = st;
      next.Join(out);
      next.Join(head);
      if (next == head) {
        in.Join(exits.breaks);
        st = std::move(in);
        return;
      }
      head = std::move(next);
    }
  }

  std::vector<LoopExits> loops_;
};

}  // namespace

std::unordered_map<const Call*, std::vector<const Buffer*>> WgmmaSyncRegisters(const Function& fn) {
  Analysis a;
  State st;
  a.Run(fn.body, st);
  std::vector<const Buffer*> order = WgmmaRegisters(fn);
  std::unordered_map<const Call*, std::vector<const Buffer*>> out;
  for (const auto& [call, set] : a.regs) {
    std::vector<const Buffer*>& list = out[call];
    for (const Buffer* b : order)
      if (set.count(b)) list.push_back(b);
  }
  return out;
}

}  // namespace tmc::ir
