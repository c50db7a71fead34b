// Node constructors with their invariants, and small helpers.
#include "ir/ir.h"

#include "support/check.h"

namespace tmc::ir {

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt || op == BinaryOp::Ge ||
         op == BinaryOp::Eq || op == BinaryOp::Ne;
}

std::string_view Spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Min: return "min";
    case BinaryOp::Max: return "max";
    case BinaryOp::Shl: return "<<";
    case BinaryOp::Shr: return ">>";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::BitXor: return "^";
    case BinaryOp::And: return "&&";
    case BinaryOp::Or: return "||";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::Eq: return "==";
    case BinaryOp::Ne: return "!=";
  }
  return "?";
}

bool IsHopperIntrinsic(Intrinsic i) {
  return i == Intrinsic::Wgmma || i == Intrinsic::WgmmaFence || i == Intrinsic::WgmmaCommit ||
         i == Intrinsic::WgmmaWait || i == Intrinsic::FenceProxyAsync || i == Intrinsic::MbarrierInit ||
         i == Intrinsic::MbarrierArrive || i == Intrinsic::MbarrierArriveExpectTx || i == Intrinsic::MbarrierWait ||
         i == Intrinsic::TmaLoad || i == Intrinsic::TmaStore || i == Intrinsic::TmaStoreCommit ||
         i == Intrinsic::TmaStoreWait || i == Intrinsic::SetMaxNReg || i == Intrinsic::MbarrierArriveCluster ||
         i == Intrinsic::ClusterSync || i == Intrinsic::TmaLoadMulticast;
}

std::string_view IntrinsicName(Intrinsic i) {
  switch (i) {
    case Intrinsic::ThreadIdxX: return "threadIdx.x";
    case Intrinsic::ThreadIdxY: return "threadIdx.y";
    case Intrinsic::ThreadIdxZ: return "threadIdx.z";
    case Intrinsic::BlockIdxX: return "blockIdx.x";
    case Intrinsic::BlockIdxY: return "blockIdx.y";
    case Intrinsic::BlockIdxZ: return "blockIdx.z";
    case Intrinsic::BlockDimX: return "blockDim.x";
    case Intrinsic::BlockDimY: return "blockDim.y";
    case Intrinsic::BlockDimZ: return "blockDim.z";
    case Intrinsic::GridDimX: return "gridDim.x";
    case Intrinsic::GridDimY: return "gridDim.y";
    case Intrinsic::GridDimZ: return "gridDim.z";
    case Intrinsic::Exp: return "exp";
    case Intrinsic::Exp2: return "exp2";
    case Intrinsic::Log: return "log";
    case Intrinsic::Log2: return "log2";
    case Intrinsic::Sqrt: return "sqrt";
    case Intrinsic::Rsqrt: return "rsqrt";
    case Intrinsic::Tanh: return "tanh";
    case Intrinsic::Erf: return "erf";
    case Intrinsic::Sin: return "sin";
    case Intrinsic::Cos: return "cos";
    case Intrinsic::Floor: return "floor";
    case Intrinsic::Ceil: return "ceil";
    case Intrinsic::Sigmoid: return "sigmoid";
    case Intrinsic::Abs: return "abs";
    case Intrinsic::Fma: return "fma";
    case Intrinsic::Pow: return "pow";
    case Intrinsic::ShflXor: return "shfl_xor";
    case Intrinsic::ShflDown: return "shfl_down";
    case Intrinsic::ShflUp: return "shfl_up";
    case Intrinsic::ShflIdx: return "shfl_idx";
    case Intrinsic::AtomicAdd: return "atomic_add";
    case Intrinsic::AtomicMin: return "atomic_min";
    case Intrinsic::AtomicMax: return "atomic_max";
    case Intrinsic::AtomicExch: return "atomic_exch";
    case Intrinsic::AtomicCas: return "atomic_cas";
    case Intrinsic::CallFunc: return "call";
    case Intrinsic::MmaM16N8K16: return "mma.m16n8k16";
    case Intrinsic::LdMatrix: return "ldmatrix";
    case Intrinsic::CpAsync: return "cp_async";
    case Intrinsic::CpAsyncCommit: return "cp_async_commit";
    case Intrinsic::CpAsyncWait: return "cp_async_wait";
    case Intrinsic::Wgmma: return "wgmma.m64nNk16";
    case Intrinsic::WgmmaFence: return "wgmma_fence";
    case Intrinsic::WgmmaCommit: return "wgmma_commit";
    case Intrinsic::WgmmaWait: return "wgmma_wait";
    case Intrinsic::FenceProxyAsync: return "fence_proxy_async";
    case Intrinsic::SetMaxNReg: return "setmaxnreg";
    case Intrinsic::MbarrierInit: return "mbarrier_init";
    case Intrinsic::MbarrierArrive: return "mbarrier_arrive";
    case Intrinsic::MbarrierArriveExpectTx: return "mbarrier_arrive_expect_tx";
    case Intrinsic::MbarrierWait: return "mbarrier_wait";
    case Intrinsic::TmaLoad: return "tma_load";
    case Intrinsic::TmaLoadMulticast: return "tma_load";  // as written (the mask is its third argument)
    case Intrinsic::MbarrierArriveCluster: return "mbarrier_arrive";  // as written, with the rank
    case Intrinsic::ClusterSync: return "cluster_sync";
    case Intrinsic::TmaStore: return "tma_store";
    case Intrinsic::TmaStoreCommit: return "tma_store_commit";
    case Intrinsic::TmaStoreWait: return "tma_store_wait";
  }
  return "?";
}

Expr IntImm::Make(ScalarKind t, int64_t v) {
  TMC_CHECK(IsInteger(t) || t == ScalarKind::Bool, "IntImm of a non-integer type");
  return std::make_shared<IntImm>(t, v);
}

Expr FloatImm::Make(ScalarKind t, double v) {
  TMC_CHECK(IsFloat(t), "FloatImm of a non-float type");
  return std::make_shared<FloatImm>(t, v);
}

Expr VarRef::Make(VarPtr v) { return std::make_shared<VarRef>(std::move(v)); }

Expr Load::Make(BufferPtr b, std::vector<Expr> indices, SourceAccess source) {
  for (const Expr& i : indices) TMC_CHECK(IsInteger(i->type), "non-integer index of " + b->name);
  TMC_CHECK(!source || source.indices.size() == source.buffer->shape.size(), "source access of wrong rank");
  return std::make_shared<Load>(std::move(b), std::move(indices), std::move(source));
}

Expr Unary::Make(UnaryOp op, Expr a) { return std::make_shared<Unary>(op, std::move(a)); }

Expr Binary::Make(BinaryOp op, Expr a, Expr b) {
  bool shift = op == BinaryOp::Shl || op == BinaryOp::Shr;
  TMC_CHECK(shift || a->type == b->type,
            std::string("operand types differ in '") + std::string(Spelling(op)) + "': " +
                std::string(ScalarName(a->type)) + " and " + std::string(ScalarName(b->type)));
  if (shift && b->type != a->type) b = Cast::Make(a->type, b);
  return std::make_shared<Binary>(op, std::move(a), std::move(b));
}

Expr Select::Make(Expr c, Expr a, Expr b) {
  TMC_CHECK(c->type == ScalarKind::Bool && a->type == b->type, "ill-typed select");
  return std::make_shared<Select>(std::move(c), std::move(a), std::move(b));
}

Expr Cast::Make(ScalarKind t, Expr a) {
  if (a->type == t) return a;
  if (auto* i = a->as<IntImm>()) {
    if (IsInteger(t)) return IntImm::Make(t, i->value);
    if (IsFloat(t)) return FloatImm::Make(t, static_cast<double>(i->value));
  }
  return std::make_shared<Cast>(t, std::move(a));
}

Expr Call::Make(ScalarKind t, Intrinsic i, std::vector<Expr> args, const Function* callee,
                std::vector<BufferPtr> buffers) {
  return std::make_shared<Call>(t, i, std::move(args), callee, std::move(buffers));
}

Stmt Seq::Make(std::vector<Stmt> s) {
  // Nested sequences are flattened so that passes see one statement list.
  std::vector<Stmt> flat;
  for (Stmt& st : s) {
    if (!st) continue;
    if (auto* inner = st->as<Seq>())
      flat.insert(flat.end(), inner->stmts.begin(), inner->stmts.end());
    else
      flat.push_back(std::move(st));
  }
  return std::make_shared<Seq>(std::move(flat));
}

Stmt LetStmt::Make(VarPtr v, Expr e) {
  TMC_CHECK(!e || e->type == v->type, "let of " + v->name + " with a value of another type");
  return std::make_shared<LetStmt>(std::move(v), std::move(e));
}

Stmt Assign::Make(VarPtr v, Expr e) {
  TMC_CHECK(v->is_mutable && e->type == v->type, "ill-typed assignment to " + v->name);
  return std::make_shared<Assign>(std::move(v), std::move(e));
}

Stmt Store::Make(BufferPtr b, std::vector<Expr> indices, Expr v, SourceAccess source) {
  TMC_CHECK(v->type == b->elem, "store of another type into " + b->name);
  TMC_CHECK(!source || source.indices.size() == source.buffer->shape.size(), "source access of wrong rank");
  return std::make_shared<Store>(std::move(b), std::move(indices), std::move(v), std::move(source));
}

Stmt Alloc::Make(BufferPtr b) { return std::make_shared<Alloc>(std::move(b)); }

Stmt IfStmt::Make(Expr c, Stmt t, Stmt e) {
  TMC_CHECK(c->type == ScalarKind::Bool, "if condition is not bool");
  return std::make_shared<IfStmt>(std::move(c), std::move(t), std::move(e));
}

Stmt For::Make(VarPtr v, Expr begin, Expr end, Expr step, bool unroll, Stmt body) {
  TMC_CHECK(begin->type == v->type && end->type == v->type && step->type == v->type,
            "loop bounds of another type than " + v->name);
  return std::make_shared<For>(std::move(v), std::move(begin), std::move(end), std::move(step),
                               unroll, std::move(body));
}

Stmt ForMapping::Make(std::vector<VarPtr> vars, TaskMapping m, Expr worker, Stmt body) {
  TMC_CHECK(static_cast<int>(vars.size()) == m.Rank(), "mapping loop arity");
  return std::make_shared<ForMapping>(std::move(vars), std::move(m), std::move(worker), std::move(body));
}

Stmt While::Make(Expr c, Stmt b) { return std::make_shared<While>(std::move(c), std::move(b)); }
Stmt Jump::Make(bool is_break) { return std::make_shared<Jump>(is_break); }
Stmt Return::Make(Expr v) { return std::make_shared<Return>(std::move(v)); }
Stmt Barrier::Make() { return std::make_shared<Barrier>(); }
Stmt Evaluate::Make(Expr e) { return std::make_shared<Evaluate>(std::move(e)); }

int64_t Function::Threads() const {
  int64_t n = 1;
  for (int64_t b : block) n *= b;
  return n;
}

VarPtr NewVar(Function& fn, std::string name, ScalarKind type, bool is_mutable) {
  auto v = std::make_shared<Var>();
  v->name = std::move(name);
  v->type = type;
  v->is_mutable = is_mutable;
  v->id = fn.next_var_id++;
  return v;
}

std::optional<int64_t> AsConstInt(const Expr& e) {
  if (auto* i = e->as<IntImm>()) return i->value;
  return std::nullopt;
}

}  // namespace tmc::ir
