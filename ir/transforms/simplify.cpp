// Range facts come from: block dimensions (threadIdx.x in [0, block.x)),
// grid indices (>= 0), shape symbols (>= 1), constant-bounded loops, lets
// of values with known ranges, and the conditions of enclosing ifs of the
// form `v < c` (which the mapping guards produce). Equalities between
// values computed apart are decided on their linear forms
// (ir/linear_form.h), with the lets in scope replaced by their values.
#include "ir/transforms/simplify.h"

#include <cmath>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "ir/linear_form.h"
#include "ir/mutator.h"
#include "ir/predicable.h"

namespace tmc::ir {
namespace {

struct Interval {
  int64_t lo, hi;  // inclusive
};

int64_t Wrap(int64_t v, ScalarKind t) {
  int bits = ScalarBits(t);
  if (bits >= 64 || t == ScalarKind::Bool) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (IsSigned(t) && (u >> (bits - 1))) return static_cast<int64_t>(u | ~mask);
  return static_cast<int64_t>(u);
}

std::optional<Expr> FoldInt(BinaryOp op, ScalarKind t, int64_t a, int64_t b) {
  bool u = IsUnsigned(t);
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  int64_t r = 0;
  switch (op) {
    case BinaryOp::Add: r = static_cast<int64_t>(ua + ub); break;
    case BinaryOp::Sub: r = static_cast<int64_t>(ua - ub); break;
    case BinaryOp::Mul: r = static_cast<int64_t>(ua * ub); break;
    case BinaryOp::Div:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      r = u ? static_cast<int64_t>(ua / ub) : a / b;
      break;
    case BinaryOp::Mod:
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      r = u ? static_cast<int64_t>(ua % ub) : a % b;
      break;
    case BinaryOp::Min: r = u ? static_cast<int64_t>(std::min(ua, ub)) : std::min(a, b); break;
    case BinaryOp::Max: r = u ? static_cast<int64_t>(std::max(ua, ub)) : std::max(a, b); break;
    case BinaryOp::Shl: if (b < 0 || b >= ScalarBits(t)) return std::nullopt; r = static_cast<int64_t>(ua << b); break;
    case BinaryOp::Shr:
      if (b < 0 || b >= ScalarBits(t)) return std::nullopt;
      r = u ? static_cast<int64_t>(ua >> b) : a >> b;
      break;
    case BinaryOp::BitAnd: r = a & b; break;
    case BinaryOp::BitOr: r = a | b; break;
    case BinaryOp::BitXor: r = a ^ b; break;
    case BinaryOp::And: r = (a && b); break;
    case BinaryOp::Or: r = (a || b); break;
    case BinaryOp::Lt: return IntImm::Make(ScalarKind::Bool, u ? ua < ub : a < b);
    case BinaryOp::Le: return IntImm::Make(ScalarKind::Bool, u ? ua <= ub : a <= b);
    case BinaryOp::Gt: return IntImm::Make(ScalarKind::Bool, u ? ua > ub : a > b);
    case BinaryOp::Ge: return IntImm::Make(ScalarKind::Bool, u ? ua >= ub : a >= b);
    case BinaryOp::Eq: return IntImm::Make(ScalarKind::Bool, a == b);
    case BinaryOp::Ne: return IntImm::Make(ScalarKind::Bool, a != b);
  }
  return IntImm::Make(t, Wrap(r, t));
}

class Simplifier : public Mutator {
 public:
  explicit Simplifier(const Function* fn) : fn_(fn) {}

  std::optional<Interval> RangeOf(const Expr& e) {
    if (auto c = AsConstInt(e)) return Interval{*c, *c};
    if (!IsInteger(e->type)) return std::nullopt;
    if (auto* v = e->as<VarRef>()) {
      auto it = ranges_.find(v->var.get());
      if (it != ranges_.end()) return it->second;
      return std::nullopt;
    }
    if (auto* c = e->as<Call>()) {
      if (!fn_) return std::nullopt;
      int i = static_cast<int>(c->intrinsic);
      if (c->intrinsic >= Intrinsic::ThreadIdxX && c->intrinsic <= Intrinsic::ThreadIdxZ) {
        // A device function has no block of its own: any of its callers'
        // blocks, up to the hardware's 1024 threads.
        size_t axis = static_cast<size_t>(i - static_cast<int>(Intrinsic::ThreadIdxX));
        if (fn_->block.empty()) return Interval{0, 1023};
        int64_t n = axis < fn_->block.size() ? fn_->block[axis] : 1;
        return Interval{0, n - 1};
      }
      if (c->intrinsic >= Intrinsic::BlockIdxX && c->intrinsic <= Intrinsic::BlockIdxZ)
        return Interval{0, INT32_MAX - 1};
      return std::nullopt;
    }
    if (auto* b = e->as<Binary>()) {
      auto l = RangeOf(b->lhs), r = RangeOf(b->rhs);
      if (!l || !r) {
        if (b->op == BinaryOp::Mod && r && r->lo > 0 && l && l->lo >= 0) return Interval{0, r->hi - 1};
        return std::nullopt;
      }
      auto sat = [](__int128 v) { return static_cast<int64_t>(std::clamp<__int128>(v, INT64_MIN / 4, INT64_MAX / 4)); };
      switch (b->op) {
        case BinaryOp::Add: return Interval{sat(__int128(l->lo) + r->lo), sat(__int128(l->hi) + r->hi)};
        case BinaryOp::Sub: return Interval{sat(__int128(l->lo) - r->hi), sat(__int128(l->hi) - r->lo)};
        case BinaryOp::Mul:
          if (l->lo >= 0 && r->lo >= 0) return Interval{sat(__int128(l->lo) * r->lo), sat(__int128(l->hi) * r->hi)};
          return std::nullopt;
        case BinaryOp::Div:
          if (l->lo >= 0 && r->lo > 0) return Interval{l->lo / r->hi, l->hi / r->lo};
          return std::nullopt;
        case BinaryOp::Mod:
          if (l->lo >= 0 && r->lo > 0) return Interval{0, std::min(l->hi, r->hi - 1)};
          return std::nullopt;
        case BinaryOp::Min: return Interval{std::min(l->lo, r->lo), std::min(l->hi, r->hi)};
        case BinaryOp::Max: return Interval{std::max(l->lo, r->lo), std::max(l->hi, r->hi)};
        default: return std::nullopt;
      }
    }
    return std::nullopt;
  }

 protected:
  Expr Visit(const Binary* e, const Expr& self) override {
    Expr a = Mutate(e->lhs), b = Mutate(e->rhs);
    ScalarKind t = a->type;
    auto ca = AsConstInt(a), cb = AsConstInt(b);
    if (ca && cb && (IsInteger(t) || t == ScalarKind::Bool))
      if (auto f = FoldInt(e->op, t, *ca, *cb)) return *f;
    auto* fa = a->as<FloatImm>();
    auto* fb = b->as<FloatImm>();
    if (fa && fb && (t == ScalarKind::F32 || t == ScalarKind::F64)) {
      double x = fa->value, y = fb->value, r;
      bool fold = true;
      switch (e->op) {
        case BinaryOp::Add: r = x + y; break;
        case BinaryOp::Sub: r = x - y; break;
        case BinaryOp::Mul: r = x * y; break;
        case BinaryOp::Div: r = x / y; break;
        default: fold = false; r = 0; break;
      }
      if (fold) return FloatImm::Make(t, t == ScalarKind::F32 ? static_cast<double>(static_cast<float>(r)) : r);
    }
    if (IsInteger(t)) {
      switch (e->op) {
        case BinaryOp::Add:
          if (ca == 0) return b;
          if (cb == 0) return a;
          break;
        case BinaryOp::Sub:
          if (cb == 0) return a;
          break;
        case BinaryOp::Mul:
          if (ca == 1) return b;
          if (cb == 1) return a;
          if (ca == 0 || cb == 0) return IntImm::Make(t, 0);
          break;
        case BinaryOp::Div:
          if (cb == 1) return a;
          if (cb && *cb > 0) {
            auto r = RangeOf(a);
            if (r && r->lo >= 0 && r->hi < *cb) return IntImm::Make(t, 0);
          }
          break;
        case BinaryOp::Mod:
          if (cb == 1) return IntImm::Make(t, 0);
          if (cb && *cb > 0) {
            auto r = RangeOf(a);
            if (r && r->lo >= 0 && r->hi < *cb) return a;
          }
          break;
        default: break;
      }
    }
    if (IsComparison(e->op) && IsInteger(t)) {
      auto l = RangeOf(a), r = RangeOf(b);
      if (l && r) {
        std::optional<bool> v;
        switch (e->op) {
          case BinaryOp::Lt: if (l->hi < r->lo) v = true; else if (l->lo >= r->hi) v = false; break;
          case BinaryOp::Le: if (l->hi <= r->lo) v = true; else if (l->lo > r->hi) v = false; break;
          case BinaryOp::Gt: if (l->lo > r->hi) v = true; else if (l->hi <= r->lo) v = false; break;
          case BinaryOp::Ge: if (l->lo >= r->hi) v = true; else if (l->hi < r->lo) v = false; break;
          default: break;
        }
        if (v) return IntImm::Make(ScalarKind::Bool, *v);
      }
    }
    if ((e->op == BinaryOp::Eq || e->op == BinaryOp::Ne) && IsInteger(t))
      if (auto d = ConstantDifference(a, b, lets_.values())) return IntImm::Make(ScalarKind::Bool, (*d == 0) == (e->op == BinaryOp::Eq));
    if (e->op == BinaryOp::And) {
      if (ca == 1) return b;
      if (cb == 1) return a;
      if (ca == 0 || cb == 0) return IntImm::Make(ScalarKind::Bool, 0);
    }
    if (e->op == BinaryOp::Or) {
      if (ca == 0) return b;
      if (cb == 0) return a;
      if (ca == 1 || cb == 1) return IntImm::Make(ScalarKind::Bool, 1);
    }
    if (a == e->lhs && b == e->rhs) return self;
    return Binary::Make(e->op, a, b);
  }

  Expr Visit(const Unary* e, const Expr& self) override {
    Expr a = Mutate(e->operand);
    if (auto c = AsConstInt(a)) {
      switch (e->op) {
        case UnaryOp::Neg: return IntImm::Make(a->type, Wrap(-*c, a->type));
        case UnaryOp::Not: return IntImm::Make(ScalarKind::Bool, !*c);
        case UnaryOp::BitNot: return IntImm::Make(a->type, Wrap(~*c, a->type));
      }
    }
    if (auto* f = a->as<FloatImm>(); f && e->op == UnaryOp::Neg) return FloatImm::Make(a->type, -f->value);
    return a == e->operand ? self : Unary::Make(e->op, a);
  }

  Expr Visit(const Cast* e, const Expr& self) override {
    Expr a = Mutate(e->operand);
    if (auto c = AsConstInt(a); c && IsInteger(e->type)) return IntImm::Make(e->type, Wrap(*c, e->type));
    if (auto* f = a->as<FloatImm>(); f && IsFloat(e->type) && e->type != ScalarKind::F16 && e->type != ScalarKind::BF16)
      return FloatImm::Make(e->type, e->type == ScalarKind::F32 ? static_cast<double>(static_cast<float>(f->value)) : f->value);
    return a == e->operand ? self : Cast::Make(e->type, a);
  }

  Expr Visit(const Select* e, const Expr& self) override {
    Expr c = Mutate(e->cond);
    if (auto v = AsConstInt(c)) return Mutate(*v ? e->then_value : e->else_value);
    Expr a = Mutate(e->then_value), b = Mutate(e->else_value);
    return c == e->cond && a == e->then_value && b == e->else_value ? self : Select::Make(c, a, b);
  }

  Stmt Visit(const IfStmt* s, const Stmt& self) override {
    Expr c = Mutate(s->cond);
    if (auto v = AsConstInt(c)) return *v ? Mutate(s->then_body) : Mutate(s->else_body);
    // Inside `if (v < k)`, v is below k.
    std::optional<std::pair<const Var*, Interval>> saved;
    if (auto* b = c->as<Binary>(); b && b->op == BinaryOp::Lt) {
      auto* v = b->lhs->as<VarRef>();
      auto k = AsConstInt(b->rhs);
      if (v && k) {
        const Var* var = v->var.get();
        auto it = ranges_.find(var);
        Interval cur = it != ranges_.end() ? it->second : Interval{INT64_MIN / 4, INT64_MAX / 4};
        if (it != ranges_.end()) saved = std::make_pair(var, it->second);
        ranges_[var] = Interval{cur.lo, std::min(cur.hi, *k - 1)};
        Stmt t = Mutate(s->then_body);
        if (saved) ranges_[var] = saved->second; else ranges_.erase(var);
        Stmt e = Mutate(s->else_body);
        return IfStmt::Make(c, t, e);
      }
    }
    Stmt t = Mutate(s->then_body), e = Mutate(s->else_body);
    if (Stmt select = AssignSelect(c, t, e)) return select;
    return c == s->cond && t == s->then_body && e == s->else_body ? self : IfStmt::Make(c, t, e);
  }

  // `if (c) { v = A } else { v = B }` as `v = c ? A : B` when A and B can
  // both be computed whatever c is. The AST's lowering writes `c ? A : B`
  // so when A or B reads memory, which c may guard; once unrolled, most of
  // those reads are of registers at constant elements (`n0 + j < SK ?
  // s[i, j] * c2 : -inf` in attention), and a select keeps the code one
  // block instead of three.
  static Stmt AssignSelect(const Expr& c, const Stmt& t, const Stmt& e) {
    auto single = [](const Stmt& x) -> const Assign* {
      const Stmt* y = &x;
      while (*y && (*y)->kind == StmtKind::Seq && (*y)->as<Seq>()->stmts.size() == 1) y = &(*y)->as<Seq>()->stmts[0];
      return *y ? (*y)->as<Assign>() : nullptr;
    };
    const Assign* a = single(t);
    const Assign* b = e ? single(e) : nullptr;
    if (!a || !b || a->var != b->var || !Cheap(a->value) || !Cheap(b->value)) return nullptr;
    return Assign::Make(a->var, Select::Make(c, a->value, b->value));
  }

  // Speculatable and worth computing when the branch would have skipped
  // it: a few operations without calls (an exp in one arm is work that a
  // select does in every thread; softmax_online measured 2 registers more).
  static bool Cheap(const Expr& x) {
    if (!Speculatable(x)) return false;
    int nodes = 0;
    bool calls = false;
    std::function<void(const Expr&)> walk = [&](const Expr& e) {
      ++nodes;
      if (auto* u = e->as<Unary>()) walk(u->operand);
      if (auto* b = e->as<Binary>()) walk(b->lhs), walk(b->rhs);
      if (auto* c = e->as<Cast>()) walk(c->operand);
      if (auto* s = e->as<Select>()) walk(s->cond), walk(s->then_value), walk(s->else_value);
      if (auto* l = e->as<Load>())
        for (const Expr& i : l->indices) walk(i);
      if (auto* c = e->as<Call>()) {
        calls = calls || c->intrinsic > Intrinsic::GridDimZ;
        for (const Expr& a : c->args) walk(a);
      }
    };
    walk(x);
    return !calls && nodes <= kCheapNodes;
  }
  static constexpr int kCheapNodes = 8;

  // A Seq's lets go out of scope at its end.
  Stmt Visit(const Seq* s, const Stmt& self) override {
    size_t mark = lets_.Mark();
    Stmt out = Mutator::Visit(s, self);
    lets_.Restore(mark);
    return out;
  }

  Stmt Visit(const LetStmt* s, const Stmt& self) override {
    Stmt out = Mutator::Visit(s, self);
    auto* l = out->as<LetStmt>();
    if (!l->var->is_mutable && l->value) {
      if (auto r = RangeOf(l->value)) ranges_[l->var.get()] = *r;
      if (Substitutable(l->value)) lets_.Add(l->var.get(), l->value);
    }
    return out;
  }

  Stmt Visit(const For* s, const Stmt& self) override {
    Expr b = Mutate(s->begin), e = Mutate(s->end), st = Mutate(s->step);
    auto cb = RangeOf(b), ce = RangeOf(e);
    auto cs = AsConstInt(st);
    if (AsConstInt(b) && AsConstInt(e) && cs && *cs > 0 && *AsConstInt(e) <= *AsConstInt(b))
      return Seq::Make({});  // never runs
    if (cb && ce && cs && *cs > 0) ranges_[s->var.get()] = Interval{cb->lo, ce->hi - 1};
    else if (cb && cs && *cs > 0) ranges_[s->var.get()] = Interval{cb->lo, INT64_MAX / 4};
    Stmt body = Mutate(s->body);
    ranges_.erase(s->var.get());
    if (b == s->begin && e == s->end && st == s->step && body == s->body) return self;
    return For::Make(s->var, b, e, st, s->unroll, body);
  }

 public:
  void SeedParams() {
    if (!fn_) return;
    for (const Param& p : fn_->params)
      if (p.is_shape_symbol) ranges_[p.var.get()] = Interval{1, INT32_MAX};
  }

 private:
  const Function* fn_;
  std::unordered_map<const Var*, Interval> ranges_;
  ScopedLets lets_;                    // immutable lets in scope (Substitutable values)
};

// Dead code: immutable lets that nothing reads (unrolling leaves many, e.g.
// a task coordinate that only indexed a register tensor), when their value
// has no effects. Removing a let can make the lets its value read dead in
// turn: the uses are counted once, and each let found dead takes its
// value's reads off the count.
class CountUses : public Visitor {
 public:
  std::unordered_map<const Var*, int> uses;
  // Each place an immutable let with a value is declared (a statement
  // shared by two places of the tree counts twice, as its reads do).
  std::unordered_map<const Var*, std::vector<const LetStmt*>> lets;

 protected:
  void Visit(const VarRef* e) override { ++uses[e->var.get()]; }
  void Visit(const LetStmt* s) override {
    if (!s->var->is_mutable && s->value) lets[s->var.get()].push_back(s);
    Visitor::Visit(s);
  }
};

bool HasEffects(const Expr& e) {
  struct Find : Visitor {
    bool found = false;
    void Visit(const Call* c) override {
      if (c->HasEffects()) found = true;
      Visitor::Visit(c);
    }
  } f;
  f.Walk(e);
  return f.found;
}

// The lets of `c` that nothing reads once the dead ones are gone.
std::unordered_set<const LetStmt*> DeadLets(CountUses& c) {
  std::unordered_set<const LetStmt*> dead;
  std::vector<const Var*> work;
  for (const auto& [var, decls] : c.lets)
    if (!c.uses.count(var)) work.push_back(var);
  struct Uncount : Visitor {
    CountUses* c;
    std::vector<const Var*>* work;
    void Visit(const VarRef* e) override {
      const Var* v = e->var.get();
      if (--c->uses[v] == 0 && c->lets.count(v)) work->push_back(v);
    }
  } uncount;
  uncount.c = &c;
  uncount.work = &work;
  while (!work.empty()) {
    const Var* var = work.back();
    work.pop_back();
    for (const LetStmt* let : c.lets[var]) {
      if (HasEffects(let->value)) continue;
      dead.insert(let);
      uncount.Walk(let->value);
    }
  }
  return dead;
}

class RemoveDeadLets : public Mutator {
 public:
  explicit RemoveDeadLets(const std::unordered_set<const LetStmt*>& dead) : dead_(dead) {}

 protected:
  Stmt Visit(const LetStmt* s, const Stmt& self) override { return dead_.count(s) ? Seq::Make({}) : self; }

 private:
  const std::unordered_set<const LetStmt*>& dead_;
};

}  // namespace

Expr SimplifyExpr(const Expr& e) { return Simplifier(nullptr).Mutate(e); }

void Simplify(Function& fn, PassContext&) {
  Simplifier s(&fn);
  s.SeedParams();
  fn.body = s.Mutate(fn.body);
  CountUses c;
  c.Walk(fn.body);
  for (const Expr& g : fn.grid) c.Walk(g);
  std::unordered_set<const LetStmt*> dead = DeadLets(c);
  if (!dead.empty()) fn.body = RemoveDeadLets(dead).Mutate(fn.body);
}

}  // namespace tmc::ir
