// The translation is direct: names become variables, buffers or constants;
// compile-time values recorded by the checker become immediates; untyped
// literals take the type of the other operand; `?:`, `&&` and `||` whose
// later operands read memory are lowered to branches, so that a guard such
// as `(i < M) ? A[i] : 0.0` never loads out of bounds.
#include "ir/from_ast.h"

#include "support/mma_layouts.h"

#include <map>
#include <unordered_map>

#include "support/check.h"

namespace tmc::ir {
namespace {

/// What a name denotes during lowering.
struct Entity {
  VarPtr var;
  BufferPtr buffer;
  std::vector<Expr> prefix;  // a view (`let cur = s[stage];`): its leading indices
  std::optional<sema::ConstValue> value;
};

/// A tensor as an expression denotes it: a buffer, or a view of one (its
/// leading indices fixed, `s[stage]`).
struct TensorRef {
  BufferPtr buffer;
  std::vector<Expr> prefix;
  std::vector<Expr> Full(std::vector<Expr> rest) const {
    std::vector<Expr> out = prefix;
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
};

// True if evaluating `e` may read memory or have effects, so that it must
// not be evaluated speculatively.
bool MayAccessMemory(const ast::Expr* e) {
  if (!e) return false;
  switch (e->kind) {
    case ast::ExprKind::Index:
    case ast::ExprKind::Call:
      return true;
    case ast::ExprKind::Unary: return MayAccessMemory(static_cast<const ast::UnaryExpr*>(e)->operand);
    case ast::ExprKind::Cast: return MayAccessMemory(static_cast<const ast::CastExpr*>(e)->operand);
    case ast::ExprKind::Member: return false;
    case ast::ExprKind::Binary: {
      auto* b = static_cast<const ast::BinaryExpr*>(e);
      return MayAccessMemory(b->lhs) || MayAccessMemory(b->rhs);
    }
    case ast::ExprKind::Ternary: {
      auto* t = static_cast<const ast::TernaryExpr*>(e);
      return MayAccessMemory(t->cond) || MayAccessMemory(t->then_value) || MayAccessMemory(t->else_value);
    }
    default: return false;
  }
}

class Lowering {
 public:
  Lowering(Module& out) : out_(out) {}

  void LowerKernel(const sema::CheckedModule& m, const ast::KernelDecl* k) {
    TMC_CHECK(!k->body_skipped, "kernel '" + k->name.name + "' of module '" + m.name +
                                    "' was parsed without its body (CompileOptions::skip_imported_kernel_bodies or main_kernel_only)");
    module_ = &m;
    auto fn = std::make_unique<Function>();
    fn_ = fn.get();
    fn->kind = Function::Kind::Kernel;
    fn->name = k->name.name;
    fn->loc = k->name.range;
    if (k->implements) fn->implements = k->implements->name;
    const sema::KernelInstance& inst = m.kernels.at(k->name.name);
    fn->ct_values = inst.ct_values;
    fn->outputs = inst.outputs;
    for (const sema::Dim& d : inst.block) fn->block.push_back(d.value);
    if (fn->block.empty()) fn->block = {1};
    fn->cluster = inst.cluster;
    scopes_.clear();
    scopes_.emplace_back();
    type_params_.clear();
    for (auto& [name, value] : inst.ct_values) {
      if (auto k = DecodeTypeValue(value)) {  // an element-type parameter
        type_params_[name] = *k;
        continue;
      }
      Entity e;
      const ast::CtParam* p = nullptr;
      for (const ast::CtParam& cp : k->ct_params)
        if (cp.name.name == name) p = &cp;
      e.value = p && p->type.elem == ScalarKind::Bool ? sema::ConstValue::Bool(value != 0)
                                                       : sema::ConstValue::Int(value);
      scopes_.back()[name] = e;
    }
    DeclareParams(k->params);
    for (const ast::LaunchClause& l : k->launch)
      if (l.name.name == "grid")
        for (ast::Expr* d : l.dims) fn->grid.push_back(Cast::Make(ScalarKind::I32, Value(d)));
    if (fn->grid.empty()) fn->grid.push_back(IntImm::Make(ScalarKind::I32, 1));
    for (const ast::Expr* w : inst.launch_conditions) fn->launch_conditions.push_back(Value(w));
    fn->body = Block(k->body);
    out_.functions.push_back(std::move(fn));
  }

 private:
  // ---------------------------------------------------------------- names
  Entity* Lookup(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  // Module constants and imported ones are found through the checked
  // module's exports.
  std::optional<sema::ConstValue> ModuleConstant(const std::string& name) {
    if (sema::Symbol* s = FindExport(name); s && s->value) return s->value;
    return std::nullopt;
  }

  // A top-level declaration of this module or of one it imports.
  sema::Symbol* FindExport(const std::string& name) {
    if (sema::Symbol* s = module_->exports->LookupLocal(name)) return s;
    for (const sema::CheckedModule* m : module_->imports)
      if (sema::Symbol* s = m->exports->LookupLocal(name)) return s;
    return nullptr;
  }

  void DeclareParams(const std::vector<ast::Param>& params) {
    std::vector<Param> shape_params;
    // Shape symbols first, so that dimension expressions can use them.
    for (const ast::Param& p : params) {
      if (!p.type.is_tensor) continue;
      for (ast::Expr* d : p.type.dims) {
        auto* n = ast::dyn_cast<ast::NameExpr>(d);
        if (!n || Lookup(n->name) || ModuleConstant(n->name)) continue;
        Entity e;
        e.var = NewVar(*fn_, n->name, ScalarKind::I32);
        scopes_.back()[n->name] = e;
        shape_params.push_back(Param{nullptr, e.var, true});
      }
    }
    for (const ast::Param& p : params) {
      Entity e;
      if (p.type.is_tensor && p.by && sema::Checker::IsTmaMarker(p.by) && !p.shared) {
        // A tensor-map parameter (`by tma`): global, its box set by its copies.
        e.buffer = MakeBuffer(p.name.name, p.type, MemScope::Global);
        e.buffer->tma = true;
        fn_->params.push_back(Param{e.buffer, nullptr, false});
      } else if (p.type.is_tensor && p.by) {
        // A fragment parameter: the caller's distributed register tensor.
        e.buffer = MakeBuffer(p.name.name, p.type, MemScope::Register);
        e.buffer->distributed_by = module_->constants.at(p.by).m;
        fn_->params.push_back(Param{e.buffer, nullptr, false});
      } else if (p.type.is_tensor) {
        e.buffer = MakeBuffer(p.name.name, p.type, p.shared ? MemScope::Shared : MemScope::Global);
        fn_->params.push_back(Param{e.buffer, nullptr, false});
      } else {
        e.var = NewVar(*fn_, p.name.name, Elem(p.type));
        fn_->params.push_back(Param{nullptr, e.var, false});
      }
      scopes_.back()[p.name.name] = e;
    }
    for (Param& p : shape_params) fn_->params.push_back(p);
  }

  BufferPtr MakeBuffer(const std::string& name, const ast::TypeSpec& spec, MemScope scope) {
    auto b = std::make_shared<Buffer>();
    b->name = name;
    b->elem = Elem(spec);
    b->scope = scope;
    for (ast::Expr* d : spec.dims) b->shape.push_back(Cast::Make(ScalarKind::I32, Value(d)));
    if (spec.layout) {
      const std::string& l = spec.layout->name.name;
      b->layout = l == "col_major" ? LayoutKind::ColMajor
                  : l == "strided" ? LayoutKind::Strided
                  : l == "swizzle" ? LayoutKind::Swizzle
                                   : LayoutKind::RowMajor;
      for (ast::Expr* a : spec.layout->args) b->layout_args.push_back(Cast::Make(ScalarKind::I32, Value(a)));
    }
    return b;
  }

  // ---------------------------------------------------------------- exprs
  Expr Imm(const sema::ConstValue& v, ScalarKind t) {
    switch (v.kind) {
      case sema::ConstValue::Kind::Int:
        return IsFloat(t) ? FloatImm::Make(t, static_cast<double>(v.i)) : IntImm::Make(t, v.i);
      case sema::ConstValue::Kind::Float:
        return IsFloat(t) ? FloatImm::Make(t, v.f) : IntImm::Make(t, static_cast<int64_t>(v.f));
      case sema::ConstValue::Kind::Bool: return IntImm::Make(ScalarKind::Bool, v.b ? 1 : 0);
      case sema::ConstValue::Kind::Mapping: break;
    }
    TMC_CHECK(false, "a mapping used as a scalar value");
  }

  static ScalarKind SemaScalar(const ast::Expr* e) {
    TMC_CHECK(e->type && e->type->IsScalar(), "expression without a scalar type");
    return e->type->scalar;
  }

  // The common operand type of two lowered operands (the checker has
  // validated that one exists): immediates adapt to the other side.
  static ScalarKind Common(const Expr& a, const Expr& b) {
    if (a->type == b->type) return a->type;
    bool ia = a->as<IntImm>() || a->as<FloatImm>();
    bool ib = b->as<IntImm>() || b->as<FloatImm>();
    if (ia && !ib) return b->type;
    if (ib && !ia) return a->type;
    return IsLosslessConversion(a->type, b->type) ? b->type : a->type;
  }

  /// Lowers a scalar expression; statements it needs go to `*pre_`. Each
  /// new node carries the source range of the expression it comes from, so
  /// that a late report (a faulting load, a division by zero on the CPU
  /// executor) points at the expression, not at its statement.
  Expr Value(const ast::Expr* e) {
    Expr out = ValueOf(e);
    if (out && out.use_count() == 1 && !out->loc.IsValid()) const_cast<ExprNode*>(out.get())->loc = e->range;
    return out;
  }

  Expr ValueOf(const ast::Expr* e) {
    if (auto it = module_->constants.find(e); it != module_->constants.end() &&
                                              it->second.kind != sema::ConstValue::Kind::Mapping)
      return Imm(it->second, SemaScalar(e));
    switch (e->kind) {
      case ast::ExprKind::IntLit:
        return IntImm::Make(SemaScalar(e), static_cast<int64_t>(static_cast<const ast::IntLit*>(e)->value));
      case ast::ExprKind::FloatLit: return FloatImm::Make(SemaScalar(e), static_cast<const ast::FloatLit*>(e)->value);
      case ast::ExprKind::BoolLit: return IntImm::Make(ScalarKind::Bool, static_cast<const ast::BoolLit*>(e)->value);
      case ast::ExprKind::Name: return Name(static_cast<const ast::NameExpr*>(e));
      case ast::ExprKind::Member: return Member(static_cast<const ast::MemberExpr*>(e));
      case ast::ExprKind::Index: {
        return Element(static_cast<const ast::IndexExpr*>(e));
      }
      case ast::ExprKind::Cast:
        return Cast::Make(static_cast<const ast::CastExpr*>(e)->to, Value(static_cast<const ast::CastExpr*>(e)->operand));
      case ast::ExprKind::Unary: {
        auto* u = static_cast<const ast::UnaryExpr*>(e);
        Expr a = Cast::Make(SemaScalar(e), Value(u->operand));
        switch (u->op) {
          case ast::UnaryOp::Neg: return Unary::Make(UnaryOp::Neg, a);
          case ast::UnaryOp::Plus: return a;
          case ast::UnaryOp::Not: return Unary::Make(UnaryOp::Not, a);
          case ast::UnaryOp::BitNot: return Unary::Make(UnaryOp::BitNot, a);
        }
        break;
      }
      case ast::ExprKind::Binary: return BinaryValue(static_cast<const ast::BinaryExpr*>(e));
      case ast::ExprKind::Ternary: {
        auto* t = static_cast<const ast::TernaryExpr*>(e);
        ScalarKind type = SemaScalar(e);
        Expr c = Value(t->cond);
        if (!MayAccessMemory(t->then_value) && !MayAccessMemory(t->else_value))
          return Select::Make(c, Cast::Make(type, Value(t->then_value)), Cast::Make(type, Value(t->else_value)));
        VarPtr tmp = NewVar(*fn_, "sel", type, true);
        pre_->push_back(LetStmt::Make(tmp, nullptr));
        Stmt then_s = Branch([&] { return Assign::Make(tmp, Cast::Make(type, Value(t->then_value))); });
        Stmt else_s = Branch([&] { return Assign::Make(tmp, Cast::Make(type, Value(t->else_value))); });
        pre_->push_back(IfStmt::Make(c, then_s, else_s));
        return VarRef::Make(tmp);
      }
      case ast::ExprKind::Call: return CallValue(static_cast<const ast::CallExpr*>(e));
      case ast::ExprKind::Reduce: break;
    }
    TMC_CHECK(false, "expression kind not lowered");
  }

  // Runs `make` with a fresh statement sink and returns what it produced.
  template <typename Fn>
  Stmt Branch(Fn&& make) {
    std::vector<Stmt> stmts;
    std::vector<Stmt>* saved = pre_;
    pre_ = &stmts;
    Stmt last = make();
    pre_ = saved;
    stmts.push_back(last);
    return Seq::Make(std::move(stmts));
  }

  Expr BinaryValue(const ast::BinaryExpr* b) {
    if (b->op == ast::BinaryOp::And || b->op == ast::BinaryOp::Or) {
      Expr l = Value(b->lhs);
      if (!MayAccessMemory(b->rhs))
        return Binary::Make(b->op == ast::BinaryOp::And ? BinaryOp::And : BinaryOp::Or, l, Value(b->rhs));
      // Short-circuit: the right operand runs only when it decides.
      VarPtr tmp = NewVar(*fn_, "cond", ScalarKind::Bool, true);
      pre_->push_back(LetStmt::Make(tmp, l));
      Stmt rhs = Branch([&] { return Assign::Make(tmp, Value(b->rhs)); });
      Expr test = b->op == ast::BinaryOp::And ? VarRef::Make(tmp) : Unary::Make(UnaryOp::Not, VarRef::Make(tmp));
      pre_->push_back(IfStmt::Make(test, rhs));
      return VarRef::Make(tmp);
    }
    Expr l = Value(b->lhs), r = Value(b->rhs);
    BinaryOp op;
    switch (b->op) {
      case ast::BinaryOp::Mul: op = BinaryOp::Mul; break;
      case ast::BinaryOp::Div: op = BinaryOp::Div; break;
      case ast::BinaryOp::Mod: op = BinaryOp::Mod; break;
      case ast::BinaryOp::Add: op = BinaryOp::Add; break;
      case ast::BinaryOp::Sub: op = BinaryOp::Sub; break;
      case ast::BinaryOp::Shl: op = BinaryOp::Shl; break;
      case ast::BinaryOp::Shr: op = BinaryOp::Shr; break;
      case ast::BinaryOp::Lt: op = BinaryOp::Lt; break;
      case ast::BinaryOp::Le: op = BinaryOp::Le; break;
      case ast::BinaryOp::Gt: op = BinaryOp::Gt; break;
      case ast::BinaryOp::Ge: op = BinaryOp::Ge; break;
      case ast::BinaryOp::Eq: op = BinaryOp::Eq; break;
      case ast::BinaryOp::Ne: op = BinaryOp::Ne; break;
      case ast::BinaryOp::BitAnd: op = BinaryOp::BitAnd; break;
      case ast::BinaryOp::BitXor: op = BinaryOp::BitXor; break;
      case ast::BinaryOp::BitOr: op = BinaryOp::BitOr; break;
      default: op = BinaryOp::Or; break;
    }
    if (op == BinaryOp::Shl || op == BinaryOp::Shr) {
      ScalarKind t = SemaScalar(b);
      return Binary::Make(op, Cast::Make(t, l), Cast::Make(t, r));
    }
    ScalarKind t = IsComparison(op) ? Common(l, r) : SemaScalar(b);
    return Binary::Make(op, Cast::Make(t, l), Cast::Make(t, r));
  }

  Expr Name(const ast::NameExpr* n) {
    if (n->name == "warp_id" || n->name == "lane_id") {
      if (!Lookup(n->name)) {
        Expr tid = Call::Make(ScalarKind::I32, Intrinsic::ThreadIdxX, {});
        return Binary::Make(n->name == "warp_id" ? BinaryOp::Div : BinaryOp::Mod, tid,
                            IntImm::Make(ScalarKind::I32, 32));
      }
    }
    Entity* e = Lookup(n->name);
    if (e && e->var) return VarRef::Make(e->var);
    if (e && e->value) return Imm(*e->value, n->type->scalar);
    if (auto v = ModuleConstant(n->name)) return Imm(*v, n->type->scalar);
    TMC_CHECK(false, "name '" + n->name + "' does not denote a scalar");
  }

  Expr Member(const ast::MemberExpr* m) {
    auto* base = ast::dyn_cast<ast::NameExpr>(m->base);
    TMC_CHECK(base, "member of a non-builtin");
    static const std::map<std::string, Intrinsic> kBase = {
        {"threadIdx", Intrinsic::ThreadIdxX}, {"blockIdx", Intrinsic::BlockIdxX},
        {"blockDim", Intrinsic::BlockDimX}, {"gridDim", Intrinsic::GridDimX}};
    auto it = kBase.find(base->name);
    TMC_CHECK(it != kBase.end(), "unknown builtin " + base->name);
    int axis = m->member.name == "x" ? 0 : m->member.name == "y" ? 1 : 2;
    return Call::Make(ScalarKind::I32, static_cast<Intrinsic>(static_cast<int>(it->second) + axis), {});
  }

  // The tensor an expression denotes: a name, or a view `t[i]` of one.
  TensorRef TensorOf(const ast::Expr* base) {
    if (auto* i = ast::dyn_cast<ast::IndexExpr>(base)) {
      TensorRef t = TensorOf(i->base);
      for (const ast::Expr* x : i->indices) t.prefix.push_back(Value(x));
      return t;
    }
    auto* n = ast::dyn_cast<ast::NameExpr>(base);
    Entity* e = n ? Lookup(n->name) : nullptr;
    TMC_CHECK(e && e->buffer, "indexing something that is not a buffer");
    return TensorRef{e->buffer, e->prefix};
  }

  BufferPtr BufferOf(const ast::Expr* base) { return TensorOf(base).buffer; }

  // base[indices]: an element of a tensor or of a view.
  Expr Element(const ast::IndexExpr* i) {
    TensorRef t = TensorOf(i->base);
    return Load::Make(t.buffer, t.Full(Indices(i->indices)));
  }

  std::vector<Expr> Indices(const std::vector<ast::Expr*>& idx) {
    std::vector<Expr> out;
    for (const ast::Expr* i : idx) out.push_back(Value(i));
    return out;
  }

  // A fragment operand of mma or ldmatrix: the buffer, the register of
  // region (0, 0) plus the region's offset, and the region's pieces
  // (checked by the frontend: sema's CheckFragmentOperand).
  struct Fragments {
    BufferPtr buffer;
    Expr base;  // i32 register offset of the region
    std::vector<FragmentPiece> pieces;  // origins relative to the region
    int64_t rows = 0, cols = 0;
  };
  Fragments FragmentOperand(const ast::Expr* arg, bool ldmatrix, const TaskMapping& layout, int64_t piece_rows,
                            int64_t piece_cols) {
    Fragments f;
    const ast::Expr* tensor = arg;
    auto* tile = ast::dyn_cast<ast::CallExpr>(arg);
    if (tile && tile->callee.name == "tile" && tile->args.size() == 5 && !Lookup("tile")) tensor = tile->args[0];
    else tile = nullptr;
    f.buffer = BufferOf(tensor);
    const sema::Type* t = tensor->type;
    auto pieces = ldmatrix ? SplitIntoLdMatrices(*t->distributed_by) : SplitIntoFragments(*t->distributed_by, layout);
    TMC_CHECK(pieces.has_value(), "fragment operand not checked");
    f.rows = t->dims[0].value;
    f.cols = t->dims[1].value;
    f.base = IntImm::Make(ScalarKind::I32, 0);
    if (!tile) {
      f.pieces = *pieces;
      return f;
    }
    int64_t rows = module_->constants.at(tile->args[1]).i, cols = module_->constants.at(tile->args[2]).i;
    auto regions = UniformRegions(*pieces, piece_rows, piece_cols, f.rows, f.cols, rows, cols);
    TMC_CHECK(regions.has_value(), "tile not checked");
    f.pieces = regions->pieces;
    f.rows = rows;
    f.cols = cols;
    auto term = [&](const ast::Expr* index, int64_t stride) {
      return Binary::Make(BinaryOp::Mul, Cast::Make(ScalarKind::I32, Value(index)), IntImm::Make(ScalarKind::I32, stride));
    };
    f.base = Binary::Make(BinaryOp::Add, term(tile->args[3], regions->row_stride), term(tile->args[4], regions->col_stride));
    return f;
  }

  static Expr RegisterAt(const Fragments& f, int64_t reg) {
    return Binary::Make(BinaryOp::Add, f.base, IntImm::Make(ScalarKind::I32, reg));
  }

  // The instructions a tile-level call became: all but the last go to the
  // statement sink, each at the call's location (for reports and
  // --profile); the last is the call's value.
  Expr EmitAllButLast(const std::vector<Expr>& calls, const SourceRange& at) {
    for (const Expr& e : calls) {
      const_cast<ExprNode*>(e.get())->loc = at;  // fresh nodes: safe
      if (auto* call = e->as<Call>(); call && !call->args.empty() && call->args[0]->as<Load>())
        const_cast<ExprNode*>(call->args[0].get())->loc = at;
    }
    for (size_t i = 0; i + 1 < calls.size(); ++i) {
      Stmt s = Evaluate::Make(calls[i]);
      const_cast<StmtNode*>(s.get())->loc = at;
      pre_->push_back(s);
    }
    return calls.back();
  }

  // mma over fragment tiles: one m16n8k16 per (16 x 8 tile of d, 16-wide
  // k step), k outermost so that neighbouring instructions are independent.
  Expr MmaTiles(const ast::CallExpr* c) {
    const ScalarKind kVoid = ScalarKind::I32;
    Fragments d = FragmentOperand(c->args[0], false, MmaM16N8K16C(), 16, 8);
    Fragments a = FragmentOperand(c->args[1], false, MmaM16N8K16A(), 16, 16);
    Fragments b = FragmentOperand(c->args[2], false, MmaM16N8K16B(), 16, 8);
    Fragments acc = FragmentOperand(c->args[3], false, MmaM16N8K16C(), 16, 8);
    auto at = [](const Fragments& f, int64_t row, int64_t col) {
      for (const FragmentPiece& p : f.pieces)
        if (p.row == row && p.col == col) return p.reg;
      TMC_CHECK(false, "fragment tile without a piece at an origin the checker saw");
    };
    std::vector<Expr> calls;
    for (int64_t k = 0; k < a.cols; k += 16)
      for (const FragmentPiece& dp : d.pieces) {
        bool first = k == 0;
        const Fragments& in = first ? acc : d;
        int64_t in_reg = first ? at(acc, dp.row, dp.col) : dp.reg;
        calls.push_back(Call::Make(kVoid, Intrinsic::MmaM16N8K16,
                                   {RegisterAt(d, dp.reg), RegisterAt(a, at(a, dp.row, k)),
                                    RegisterAt(b, at(b, k, dp.col)), RegisterAt(in, in_reg)},
                                   nullptr, {d.buffer, a.buffer, b.buffer, in.buffer}));
      }
    return EmitAllButLast(calls, c->range);
  }

  // wgmma over an accumulator made of m64nN D fragments: per 16-wide k
  // step, one instruction per fragment (k outermost). A is K-major ([M, K],
  // rows of one swizzle span), B MN-major ([K, N] with rows of one span, or
  // [G, K, N / G]: G such tiles side by side along N). The descriptors'
  // constant parts follow the PTX ISA's canonical layouts ("Matrix
  // Descriptor Format"), in bytes: K-major swizzled, LBO unused (1), SBO =
  // 8 rows; MN-major swizzled, LBO = from one span-wide column group to the
  // next (the [G, ...] stride), SBO = 8 rows. A fragment's first element
  // sits at a row multiple of 8 and a column multiple of 8 of the tile, so
  // its (swizzled) address is the descriptor's start as it is.
  // wgmma_t: B given transposed, bt [N, K] K-major like A (its descriptor
  // built alike, imm-trans-b 0).
  Expr WgmmaTiles(const ast::CallExpr* c, bool transposed) {
    const ScalarKind kVoid = ScalarKind::I32;
    const sema::Type* dt = c->args[0]->type;
    int64_t cols = dt->dims[1].value, n = cols <= 256 ? cols : 256;
    Fragments d = FragmentOperand(c->args[0], false, WgmmaD(n), 64, n);
    const sema::Type *at = c->args[1]->type, *bt = c->args[2]->type;
    // A in registers (wgmma_a fragments), or a shared tile.
    bool a_in_registers = at->scope == sema::MemScope::Register;
    std::optional<Fragments> ar;
    if (a_in_registers) ar = FragmentOperand(c->args[1], false, WgmmaA(), 64, 16);
    TensorRef a = a_in_registers ? TensorRef{} : TensorOf(c->args[1]), b = TensorOf(c->args[2]);
    int64_t elem = ScalarBytes(at->scalar);
    int64_t span_elems = bt->dims.back().value, span = span_elems * elem;
    int64_t k_extent = at->dims[1].value, b_rows = bt->dims[bt->Rank() - 2].value;
    auto mode = [](int64_t span_bytes) -> int64_t { return span_bytes == 128 ? 1 : span_bytes == 64 ? 2 : 3; };
    auto bits = [](int64_t lbo, int64_t sbo, int64_t m) {
      uint64_t v = (uint64_t(lbo >> 4) & 0x3FFF) << 16 | (uint64_t(sbo >> 4) & 0x3FFF) << 32 | uint64_t(m) << 62;
      return static_cast<int64_t>(v);
    };
    int64_t a_span = at->dims[1].value * elem;
    int64_t a_bits = a_in_registers ? 0 : bits(16, 8 * a_span, mode(a_span));
    int64_t b_bits = transposed ? bits(16, 8 * span, mode(span)) : bits(b_rows * span, 8 * span, mode(span));
    Expr accumulate = c->args.size() == 4 ? Value(c->args[3]) : IntImm::Make(ScalarKind::Bool, 1);
    if (!accumulate->as<IntImm>() && !accumulate->as<VarRef>()) {
      VarPtr var = NewVar(*fn_, "wgmma_acc", ScalarKind::Bool);
      pre_->push_back(LetStmt::Make(var, accumulate));
      accumulate = VarRef::Make(var);
    }
    auto i32 = [](int64_t v) { return IntImm::Make(ScalarKind::I32, v); };
    std::vector<Expr> calls;
    for (int64_t k = 0; k < k_extent; k += 16)
      for (const FragmentPiece& p : d.pieces) {
        Expr a_start = a_in_registers ? RegisterAt(*ar, ARegister(*ar, p.row, k))
                                      : Load::Make(a.buffer, a.Full({i32(p.row), i32(k)}));
        Expr b_start = transposed        ? Load::Make(b.buffer, b.Full({i32(p.col), i32(k)}))
                       : bt->Rank() == 3 ? Load::Make(b.buffer, b.Full({i32(p.col / span_elems), i32(k), i32(p.col % span_elems)}))
                                         : Load::Make(b.buffer, b.Full({i32(k), i32(p.col)}));
        calls.push_back(Call::Make(kVoid, Intrinsic::Wgmma,
                                   {RegisterAt(d, p.reg), a_start, b_start, k == 0 ? accumulate : IntImm::Make(ScalarKind::Bool, 1),
                                    i32(n), IntImm::Make(ScalarKind::I64, a_bits), IntImm::Make(ScalarKind::I64, b_bits),
                                    i32(transposed ? 0 : 1)},
                                   nullptr, a_in_registers ? std::vector<BufferPtr>{d.buffer, ar->buffer} : std::vector<BufferPtr>{d.buffer}));
      }
    return EmitAllButLast(calls, c->range);
  }

  // tma_load(tile, A[c...], bar) and tma_store(A[c...], tile): the tile's
  // first element (its shared address), the origin, and the map's box
  // and swizzle, which the tile sets (the checker made all of a map's
  // tiles agree). TMA tiles start at a multiple of 128 bytes.
  Expr TmaCopy(const ast::CallExpr* c, bool load) {
    const ast::Expr* tile_arg = c->args[load ? 0 : 1];
    auto* origin = ast::dyn_cast<ast::IndexExpr>(c->args[load ? 1 : 0]);
    TensorRef tile = TensorOf(tile_arg);
    BufferPtr map = BufferOf(origin->base);
    const sema::Type* tt = tile_arg->type;
    map->tma_box.assign(map->shape.size() - tt->Rank(), 1);
    for (const sema::Dim& d : tt->dims) map->tma_box.push_back(d.value);
    map->tma_swizzle = tt->layout.kind == sema::Layout::Kind::Swizzle ? int64_t{16} << tt->layout.args[0].value : 0;
    tile.buffer->align = std::max<int64_t>(tile.buffer->align, 128);
    std::vector<Expr> zeros(tt->Rank(), IntImm::Make(ScalarKind::I32, 0));
    std::vector<Expr> args{Load::Make(tile.buffer, tile.Full(zeros))};
    if (load) args.push_back(Value(c->args[2]));
    bool multicast = load && c->args.size() == 4;
    if (multicast) args.push_back(Cast::Make(ScalarKind::I32, Value(c->args[3])));
    for (const ast::Expr* x : origin->indices) args.push_back(Cast::Make(ScalarKind::I32, Value(x)));
    Intrinsic which = multicast ? Intrinsic::TmaLoadMulticast : load ? Intrinsic::TmaLoad : Intrinsic::TmaStore;
    return Call::Make(ScalarKind::I32, which, std::move(args), nullptr, {map});
  }

  // A block's rank in its cluster, as %cluster_ctarank counts it: x
  // fastest, from the block index modulo the cluster's extents.
  Expr ClusterRank() {
    Expr rank = IntImm::Make(ScalarKind::I32, 0);
    int64_t stride = 1;
    for (int d = 0; d < 3; ++d) {
      int64_t extent = fn_->cluster[static_cast<size_t>(d)];
      if (extent == 1) continue;
      Expr id = Call::Make(ScalarKind::I32, static_cast<Intrinsic>(static_cast<int>(Intrinsic::BlockIdxX) + d), {});
      Expr in = Binary::Make(BinaryOp::Mod, id, IntImm::Make(ScalarKind::I32, extent));
      rank = Binary::Make(BinaryOp::Add, rank, Binary::Make(BinaryOp::Mul, in, IntImm::Make(ScalarKind::I32, stride)));
      stride *= extent;
    }
    return rank;
  }

  // The register of the A fragment at (row, k) (the checker saw it exists).
  static int64_t ARegister(const Fragments& f, int64_t row, int64_t k) {
    for (const FragmentPiece& p : f.pieces)
      if (p.row == row && p.col == k) return p.reg;
    TMC_CHECK(false, "wgmma A fragment without a piece at an origin the checker saw");
  }

  // ldmatrix over fragment tiles: runs of consecutive 8x8 matrices of one
  // kind (plain or transposed) go in one x4, x2 or x1 instruction. Lane l
  // gives the address of row l % 8 of matrix (l / 8) % count.
  Expr LdMatrixTiles(const ast::CallExpr* c) {
    const ScalarKind kVoid = ScalarKind::I32;
    Fragments x = FragmentOperand(c->args[0], true, LdMatrixLayout(false), 8, 8);
    TensorRef s = TensorOf(c->args[1]);
    // The origin and the lane's row are evaluated once, before the loads.
    auto bind = [&](Expr v, const char* name) {
      if (v->as<IntImm>()) return v;
      VarPtr var = NewVar(*fn_, name, ScalarKind::I32);
      pre_->push_back(LetStmt::Make(var, v));
      return VarRef::Make(var);
    };
    Expr row0 = bind(Cast::Make(ScalarKind::I32, Value(c->args[2])), "ld_row");
    Expr col0 = bind(Cast::Make(ScalarKind::I32, Value(c->args[3])), "ld_col");
    auto i32 = [](int64_t v) { return IntImm::Make(ScalarKind::I32, v); };
    Expr lane = Binary::Make(BinaryOp::Mod, Call::Make(ScalarKind::I32, Intrinsic::ThreadIdxX, {}), i32(32));
    Expr lane_row = Binary::Make(BinaryOp::Mod, lane, i32(8));
    // Of a tile whose columns are contiguous (col-major, strided(1, S)) the
    // instruction reads columns: lane l gives column l % 8, and the
    // matrices it loads are the transposed ones, so .trans flips.
    const Buffer& sb = *s.buffer;
    bool by_columns = sb.layout == LayoutKind::ColMajor ||
                      (sb.layout == LayoutKind::Strided && sb.layout_args.size() == 2 &&
                       AsConstInt(sb.layout_args[0]) == 1 && AsConstInt(sb.layout_args[1]) != 1);
    Expr matrix = Binary::Make(BinaryOp::Div, lane, i32(8));
    std::vector<Expr> calls;
    const auto& p = x.pieces;
    for (size_t i = 0; i < p.size();) {
      size_t n = 1;
      while (i + n < p.size() && n < 4 && p[i + n].trans == p[i].trans && p[i + n].reg == p[i].reg + 2 * int64_t(n)) ++n;
      if (n == 3) n = 2;
      // The lane's matrix m = (l / 8) % n picks one of the n origins.
      Expr m = Binary::Make(BinaryOp::Mod, matrix, i32(int64_t(n)));
      std::vector<int64_t> rows, cols;
      for (size_t k = 0; k < n; ++k) {
        rows.push_back(p[i + k].row);
        cols.push_back(p[i + k].col);
      }
      Expr row = PickByMatrix(m, rows), col = PickByMatrix(m, cols);
      row = Binary::Make(BinaryOp::Add, row0, row);
      col = Binary::Make(BinaryOp::Add, col0, col);
      if (by_columns) col = Binary::Make(BinaryOp::Add, col, lane_row);
      else row = Binary::Make(BinaryOp::Add, row, lane_row);
      calls.push_back(Call::Make(kVoid, Intrinsic::LdMatrix,
                                 {Load::Make(s.buffer, s.Full({row, col})), RegisterAt(x, p[i].reg),
                                  i32(int64_t(n)), i32(p[i].trans != by_columns ? 1 : 0)},
                                 nullptr, {x.buffer}));
      i += n;
    }
    return EmitAllButLast(calls, c->range);
  }

  // values[m] for a lane's matrix index m: arithmetic when the values are
  // an affine function of m (v0 + m*d) or of its bits (v0 + (m%2)*d1 +
  // (m/2)*d2, the 2 x 2 matrices of an x4), else a chain of selects.
  static Expr PickByMatrix(const Expr& m, const std::vector<int64_t>& v) {
    auto i32 = [](int64_t x) { return IntImm::Make(ScalarKind::I32, x); };
    auto mul = [&](Expr a, int64_t k) { return k == 1 ? a : Binary::Make(BinaryOp::Mul, a, i32(k)); };
    auto add = [&](Expr a, Expr b) { return Binary::Make(BinaryOp::Add, a, b); };
    size_t n = v.size();
    if (n == 1) return i32(v[0]);
    bool linear = true;
    for (size_t k = 0; k < n; ++k) linear = linear && v[k] == v[0] + int64_t(k) * (v[1] - v[0]);
    if (linear) return add(i32(v[0]), mul(m, v[1] - v[0]));
    if (n == 4 && v[3] - v[2] == v[1] - v[0]) {
      Expr low = mul(Binary::Make(BinaryOp::Mod, m, i32(2)), v[1] - v[0]);
      Expr high = mul(Binary::Make(BinaryOp::Div, m, i32(2)), v[2] - v[0]);
      return add(i32(v[0]), add(low, high));
    }
    Expr out = i32(v[0]);
    for (size_t k = 1; k < n; ++k) out = Select::Make(Binary::Make(BinaryOp::Eq, m, i32(int64_t(k))), i32(v[k]), out);
    return out;
  }

  // Tensor-core and asynchronous-copy built-ins: statements, typed i32.
  std::optional<Expr> TensorCoreCall(const ast::CallExpr* c) {
    const std::string& n = c->callee.name;
    const ScalarKind kVoid = ScalarKind::I32;
    if (n == "mma") return MmaTiles(c);
    if (n == "ldmatrix") return LdMatrixTiles(c);
    if (n == "cp_async") {
      int64_t bytes = module_->constants.at(c->args[2]).i;
      std::vector<Expr> args{Value(c->args[0]), Value(c->args[1]), IntImm::Make(ScalarKind::I32, bytes)};
      if (c->args.size() == 4) {
        // The bytes read from global memory: all or none for a bool,
        // else the count clamped to [0, BYTES]; the rest is zero-filled.
        Expr src = Value(c->args[3]);
        Expr full = IntImm::Make(ScalarKind::I32, bytes), none = IntImm::Make(ScalarKind::I32, 0);
        if (src->type == ScalarKind::Bool) {
          src = Select::Make(src, full, none);
        } else {
          src = Cast::Make(ScalarKind::I32, Binary::Make(BinaryOp::Max, Binary::Make(BinaryOp::Min, src, IntLike(src, bytes)),
                                                         IntLike(src, 0)));
        }
        args.push_back(src);
      }
      return Call::Make(kVoid, Intrinsic::CpAsync, std::move(args));
    }
    if (n == "wgmma" || n == "wgmma_t") return WgmmaTiles(c, n == "wgmma_t");
    if (n == "mbarrier_init" || n == "mbarrier_arrive" || n == "mbarrier_arrive_expect_tx" || n == "mbarrier_wait") {
      Intrinsic which = n == "mbarrier_init"    ? Intrinsic::MbarrierInit
                        : n == "mbarrier_arrive" ? Intrinsic::MbarrierArrive
                        : n == "mbarrier_wait"   ? Intrinsic::MbarrierWait
                                                 : Intrinsic::MbarrierArriveExpectTx;
      if (which == Intrinsic::MbarrierArrive && c->args.size() == 2) which = Intrinsic::MbarrierArriveCluster;
      std::vector<Expr> args{Value(c->args[0])};
      if (c->args.size() == 2) args.push_back(Cast::Make(ScalarKind::I32, Value(c->args[1])));
      return Call::Make(kVoid, which, std::move(args));
    }
    if (n == "cluster_sync") return Call::Make(kVoid, Intrinsic::ClusterSync, {});
    if (n == "tma_load" || n == "tma_store") return TmaCopy(c, n == "tma_load");
    if (n == "tma_store_commit") return Call::Make(kVoid, Intrinsic::TmaStoreCommit, {});
    if (n == "tma_store_wait")
      return Call::Make(kVoid, Intrinsic::TmaStoreWait, {IntImm::Make(ScalarKind::I32, module_->constants.at(c->args[0]).i)});
    if (n == "setmaxnreg_inc" || n == "setmaxnreg_dec")
      return Call::Make(kVoid, Intrinsic::SetMaxNReg,
                        {IntImm::Make(ScalarKind::I32, module_->constants.at(c->args[0]).i),
                         IntImm::Make(ScalarKind::I32, n == "setmaxnreg_inc" ? 1 : 0)});
    if (n == "wgmma_fence") return Call::Make(kVoid, Intrinsic::WgmmaFence, {});
    if (n == "wgmma_commit") return Call::Make(kVoid, Intrinsic::WgmmaCommit, {});
    if (n == "fence_proxy_async") return Call::Make(kVoid, Intrinsic::FenceProxyAsync, {});
    if (n == "wgmma_wait")
      return Call::Make(kVoid, Intrinsic::WgmmaWait, {IntImm::Make(ScalarKind::I32, module_->constants.at(c->args[0]).i)});
    if (n == "cp_async_commit") return Call::Make(kVoid, Intrinsic::CpAsyncCommit, {});
    if (n == "cp_async_wait")
      return Call::Make(kVoid, Intrinsic::CpAsyncWait, {IntImm::Make(ScalarKind::I32, module_->constants.at(c->args[0]).i)});
    return std::nullopt;
  }

  Expr CallValue(const ast::CallExpr* c) {
    const std::string& n = c->callee.name;
    if (auto tc = TensorCoreCall(c)) return *tc;
    if (c->cast_to) return Cast::Make(*c->cast_to, Value(c->args[0]));  // T(x)
    // A call of a function without a result is a statement (typed i32 here).
    ScalarKind t = c->type && c->type->IsScalar() ? c->type->scalar : ScalarKind::I32;
    auto args = [&](ScalarKind type) {
      std::vector<Expr> out;
      for (const ast::Expr* a : c->args) out.push_back(Cast::Make(type, Value(a)));
      return out;
    };
    static const std::map<std::string, Intrinsic> kMath = {
        {"exp", Intrinsic::Exp}, {"exp2", Intrinsic::Exp2}, {"log", Intrinsic::Log},
        {"log2", Intrinsic::Log2}, {"sqrt", Intrinsic::Sqrt}, {"rsqrt", Intrinsic::Rsqrt},
        {"tanh", Intrinsic::Tanh}, {"erf", Intrinsic::Erf}, {"sin", Intrinsic::Sin},
        {"cos", Intrinsic::Cos}, {"floor", Intrinsic::Floor}, {"ceil", Intrinsic::Ceil},
        {"sigmoid", Intrinsic::Sigmoid}, {"abs", Intrinsic::Abs}, {"fma", Intrinsic::Fma},
        {"pow", Intrinsic::Pow}};
    if (auto it = kMath.find(n); it != kMath.end()) return Call::Make(t, it->second, args(t));
    if (n == "cluster_rank") return ClusterRank();
    if (n == "min" || n == "max") {
      auto a = args(t);
      return Binary::Make(n == "min" ? BinaryOp::Min : BinaryOp::Max, a[0], a[1]);
    }
    if (n == "select") {
      Expr cond = Value(c->args[0]);
      return Select::Make(cond, Cast::Make(t, Value(c->args[1])), Cast::Make(t, Value(c->args[2])));
    }
    if (n == "cdiv") {
      auto a = args(t);
      Expr one = IntImm::Make(t, 1);
      return Binary::Make(BinaryOp::Div, Binary::Make(BinaryOp::Add, a[0], Binary::Make(BinaryOp::Sub, a[1], one)), a[1]);
    }
    static const std::map<std::string, Intrinsic> kShfl = {
        {"shfl_xor", Intrinsic::ShflXor}, {"shfl_down", Intrinsic::ShflDown},
        {"shfl_up", Intrinsic::ShflUp}, {"shfl_idx", Intrinsic::ShflIdx}};
    if (auto it = kShfl.find(n); it != kShfl.end())
      return Call::Make(t, it->second, {Cast::Make(t, Value(c->args[0])), Cast::Make(ScalarKind::I32, Value(c->args[1]))});
    static const std::map<std::string, Intrinsic> kAtomic = {
        {"atomic_add", Intrinsic::AtomicAdd}, {"atomic_min", Intrinsic::AtomicMin},
        {"atomic_max", Intrinsic::AtomicMax}, {"atomic_exch", Intrinsic::AtomicExch},
        {"atomic_cas", Intrinsic::AtomicCas}};
    if (auto it = kAtomic.find(n); it != kAtomic.end()) {
      std::vector<Expr> a{Value(c->args[0])};
      for (size_t i = 1; i < c->args.size(); ++i) a.push_back(Cast::Make(t, Value(c->args[i])));
      return Call::Make(t, it->second, std::move(a));
    }
    // A device function.
    const Function* callee = DeviceFunction(n);
    std::vector<Expr> a;
    for (size_t i = 0; i < c->args.size(); ++i) {
      const Param& p = callee->params[i];
      if (p.buffer) {
        // Tensor arguments pass the buffer (or the view): a load of its
        // first element stands for its address.
        TensorRef t = TensorOf(c->args[i]);
        size_t rest = t.buffer->shape.size() - t.prefix.size();
        a.push_back(Load::Make(t.buffer, t.Full(std::vector<Expr>(rest, IntImm::Make(ScalarKind::I32, 0)))));
      } else {
        a.push_back(Cast::Make(p.var->type, Value(c->args[i])));
      }
    }
    // The callee's shape symbols (its trailing parameters) take the
    // dimensions of the tensors passed for them.
    for (size_t i = c->args.size(); i < callee->params.size(); ++i) {
      const Var* symbol = callee->params[i].var.get();
      Expr value;
      for (size_t j = 0; j < c->args.size() && !value; ++j) {
        const BufferPtr& formal = callee->params[j].buffer;
        if (!formal) continue;
        for (size_t k = 0; k < formal->shape.size() && !value; ++k)
          if (UsesOnly(formal->shape[k], symbol)) {
            TensorRef t = TensorOf(c->args[j]);
            value = t.buffer->shape[t.prefix.size() + k];
          }
      }
      TMC_CHECK(value != nullptr, "shape symbol " + symbol->name + " of " + callee->name + " is not bound");
      a.push_back(Cast::Make(ScalarKind::I32, value));
    }
    return Call::Make(callee->result.value_or(ScalarKind::I32), Intrinsic::CallFunc, std::move(a), callee);
  }

  // Whether a dimension is the bare shape symbol `v` (possibly cast).
  static bool UsesOnly(const Expr& dim, const Var* v) {
    Expr e = dim;
    while (auto* c = e->as<Cast>()) e = c->operand;
    auto* r = e->as<VarRef>();
    return r && r->var.get() == v;
  }

  const Function* DeviceFunction(const std::string& name) {
    if (auto it = funcs_.find(name); it != funcs_.end()) return it->second;
    sema::Symbol* s = FindExport(name);
    const sema::CheckedModule* owner = s ? s->module : nullptr;
    TMC_CHECK(s && s->kind == sema::Symbol::Kind::Func && owner, "unknown device function " + name);
    auto* decl = static_cast<const ast::FuncDecl*>(s->decl);
    // Lower the function with a state of its own.
    Lowering sub(out_);
    sub.funcs_ = funcs_;
    const Function* f = sub.LowerFunc(*owner, decl);
    funcs_[name] = f;
    for (auto& [n, fn] : sub.funcs_) funcs_[n] = fn;
    return f;
  }

 public:
  const Function* LowerFunc(const sema::CheckedModule& m, const ast::FuncDecl* d) {
    module_ = &m;
    auto fn = std::make_unique<Function>();
    fn_ = fn.get();
    fn->kind = Function::Kind::Device;
    fn->name = d->name.name;
    fn->loc = d->name.range;
    if (d->result) fn->result = d->result->elem;
    funcs_[fn->name] = fn.get();
    scopes_.clear();
    scopes_.emplace_back();
    DeclareParams(d->params);
    fn->body = Block(d->body);
    Function* raw = fn.get();
    // Callees come before callers in the module.
    out_.functions.insert(out_.functions.begin(), std::move(fn));
    return raw;
  }

 private:
  // ---------------------------------------------------------------- stmts
  Stmt Block(const ast::BlockStmt* b) {
    scopes_.emplace_back();
    std::vector<Stmt> stmts;
    std::vector<Stmt>* saved = pre_;
    pre_ = &stmts;
    for (const ast::Stmt* s : b->stmts) {
      Stmt st = Statement(s);
      if (st) {
        stmts.push_back(st);
      }
    }
    pre_ = saved;
    scopes_.pop_back();
    return Seq::Make(std::move(stmts));
  }

  // Every statement remembers where it came from, so that late passes can
  // report at the right line. The node is new and not yet shared, so
  // setting its location in place is safe.
  Stmt Statement(const ast::Stmt* s) {
    Stmt out = StatementAt(s);
    if (out && !out->loc.IsValid()) const_cast<StmtNode*>(out.get())->loc = s->range;
    return out;
  }

  Stmt StatementAt(const ast::Stmt* s) {
    switch (s->kind) {
      case ast::StmtKind::Block: return Block(static_cast<const ast::BlockStmt*>(s));
      case ast::StmtKind::Let: {
        auto* l = static_cast<const ast::LetStmt*>(s);
        Entity e;
        if (auto it = module_->constants.find(l->init); it != module_->constants.end()) {
          e.value = it->second;
          if (l->type && it->second.kind == sema::ConstValue::Kind::Int && IsFloat(Elem(*l->type)))
            e.value = sema::ConstValue::Float(static_cast<double>(it->second.i));
          scopes_.back()[l->name.name] = e;
          return nullptr;
        }
        if (l->init->type && l->init->type->IsTensor()) {
          // A view: its name stands for the tensor and the leading indices.
          TensorRef view = TensorOf(l->init);
          e.buffer = view.buffer;
          e.prefix = view.prefix;
          scopes_.back()[l->name.name] = e;
          return nullptr;
        }
        ScalarKind t = l->type ? Elem(*l->type) : SemaScalar(l->init);
        Expr v = Cast::Make(t, Value(l->init));
        e.var = NewVar(*fn_, l->name.name, t);
        scopes_.back()[l->name.name] = e;
        return LetStmt::Make(e.var, v);
      }
      case ast::StmtKind::Var: {
        auto* v = static_cast<const ast::VarStmt*>(s);
        ScalarKind t = v->type ? Elem(*v->type) : SemaScalar(v->init);
        Expr init = v->init ? Cast::Make(t, Value(v->init)) : nullptr;
        Entity e;
        e.var = NewVar(*fn_, v->name.name, t, true);
        scopes_.back()[v->name.name] = e;
        return LetStmt::Make(e.var, init);
      }
      case ast::StmtKind::Shared:
      case ast::StmtKind::Register: {
        bool shared = s->kind == ast::StmtKind::Shared;
        const ast::Ident& name = shared ? static_cast<const ast::SharedStmt*>(s)->name
                                        : static_cast<const ast::RegisterStmt*>(s)->name;
        const ast::TypeSpec& spec = shared ? static_cast<const ast::SharedStmt*>(s)->type
                                           : static_cast<const ast::RegisterStmt*>(s)->type;
        Entity e;
        e.buffer = MakeBuffer(name.name, spec, shared ? MemScope::Shared : MemScope::Register);
        if (!shared) {
          auto* r = static_cast<const ast::RegisterStmt*>(s);
          if (r->by) e.buffer->distributed_by = r->by->type->mapping;
        }
        scopes_.back()[name.name] = e;
        Stmt a = Alloc::Make(e.buffer);
        return a;
      }
      case ast::StmtKind::If: {
        auto* i = static_cast<const ast::IfStmt*>(s);
        Expr c = Value(i->cond);
        Stmt t = Block(i->then_body);
        Stmt e = i->else_body ? Statement(i->else_body) : nullptr;
        return IfStmt::Make(c, t, e);
      }
      case ast::StmtKind::For: return ForLoop(static_cast<const ast::ForStmt*>(s));
      case ast::StmtKind::While: {
        auto* w = static_cast<const ast::WhileStmt*>(s);
        // The condition is re-evaluated each iteration: its statements go
        // inside a `while (true)` with an exit test.
        std::vector<Stmt> cond_stmts;
        std::vector<Stmt>* saved = pre_;
        pre_ = &cond_stmts;
        Expr c = Value(w->cond);
        pre_ = saved;
        Stmt body = Block(w->body);
        if (cond_stmts.empty()) return While::Make(c, body);
        cond_stmts.push_back(IfStmt::Make(Unary::Make(UnaryOp::Not, c), Jump::Make(true)));
        cond_stmts.push_back(body);
        return While::Make(IntImm::Make(ScalarKind::Bool, 1), Seq::Make(std::move(cond_stmts)));
      }
      case ast::StmtKind::Break: return Jump::Make(true);
      case ast::StmtKind::Continue: return Jump::Make(false);
      case ast::StmtKind::Return: {
        auto* r = static_cast<const ast::ReturnStmt*>(s);
        if (!r->value) return Return::Make(nullptr);
        return Return::Make(Cast::Make(*fn_->result, Value(r->value)));
      }
      case ast::StmtKind::Sync: return Barrier::Make();
      case ast::StmtKind::Assign: return AssignStmt(static_cast<const ast::AssignStmt*>(s));
      case ast::StmtKind::ExprStmt: return Evaluate::Make(Value(static_cast<const ast::ExprStmt*>(s)->expr));
    }
    return nullptr;
  }

  Stmt ForLoop(const ast::ForStmt* f) {
    const sema::Type* it = f->iter->type;
    scopes_.emplace_back();
    Stmt out;
    if (it->kind == sema::TypeKind::Mapping) {
      std::vector<VarPtr> vars;
      for (const ast::Ident& v : f->vars) {
        Entity e;
        e.var = NewVar(*fn_, v.name, ScalarKind::I32);
        scopes_.back()[v.name] = e;
        vars.push_back(e.var);
      }
      Expr w = Cast::Make(ScalarKind::I32, Value(f->worker));
      out = ForMapping::Make(std::move(vars), *it->mapping, w, Block(f->body));
    } else {
      auto* call = static_cast<const ast::CallExpr*>(f->iter);
      ScalarKind t = it->scalar;
      Expr begin = IntImm::Make(t, 0), end, step = IntImm::Make(t, 1);
      std::vector<Expr> a;
      for (const ast::Expr* x : call->args) a.push_back(Cast::Make(t, Value(x)));
      if (a.size() == 1) end = a[0];
      else {
        begin = a[0];
        end = a[1];
        if (a.size() == 3) step = a[2];
      }
      Entity e;
      e.var = NewVar(*fn_, f->vars[0].name, t);
      scopes_.back()[f->vars[0].name] = e;
      out = For::Make(e.var, begin, end, step, it->unroll, Block(f->body));
    }
    scopes_.pop_back();
    return out;
  }

  Stmt AssignStmt(const ast::AssignStmt* a) {
    ScalarKind t = SemaScalar(a->target);
    Expr value = Value(a->value);
    Expr current;
    BufferPtr buffer;
    std::vector<Expr> idx;
    VarPtr var;
    if (auto* i = ast::dyn_cast<ast::IndexExpr>(a->target)) {
      TensorRef t = TensorOf(i->base);
      buffer = t.buffer;
      idx = t.Full(Indices(i->indices));
      current = Load::Make(buffer, idx);
    } else {
      Entity* e = Lookup(static_cast<const ast::NameExpr*>(a->target)->name);
      TMC_CHECK(e && e->var, "assignment to a non-variable");
      var = e->var;
      current = VarRef::Make(var);
    }
    if (a->op != ast::AssignOp::Assign) {
      BinaryOp op;
      switch (a->op) {
        case ast::AssignOp::Add: op = BinaryOp::Add; break;
        case ast::AssignOp::Sub: op = BinaryOp::Sub; break;
        case ast::AssignOp::Mul: op = BinaryOp::Mul; break;
        case ast::AssignOp::Div: op = BinaryOp::Div; break;
        case ast::AssignOp::Mod: op = BinaryOp::Mod; break;
        case ast::AssignOp::And: op = BinaryOp::BitAnd; break;
        case ast::AssignOp::Or: op = BinaryOp::BitOr; break;
        case ast::AssignOp::Xor: op = BinaryOp::BitXor; break;
        case ast::AssignOp::Shl: op = BinaryOp::Shl; break;
        default: op = BinaryOp::Shr; break;
      }
      value = Binary::Make(op, current, Cast::Make(t, value));
    }
    value = Cast::Make(t, value);
    return var ? Assign::Make(var, value) : Store::Make(buffer, std::move(idx), value);
  }

  // A type as written: a scalar type, or an element-type parameter of the
  // kernel being lowered (its value for this instance).
  ScalarKind Elem(const ast::TypeSpec& spec) const {
    if (!spec.param) return spec.elem;
    auto it = type_params_.find(spec.param->name);
    if (it == type_params_.end() && spec.param->name == "mbarrier") return ScalarKind::U64;  // shared mbarrier arrays
    TMC_CHECK(it != type_params_.end(), "unbound type parameter " + spec.param->name);
    return it->second;
  }

  Module& out_;
  std::map<std::string, ScalarKind> type_params_;
  const sema::CheckedModule* module_ = nullptr;
  Function* fn_ = nullptr;
  std::vector<std::unordered_map<std::string, Entity>> scopes_;
  std::vector<Stmt>* pre_ = nullptr;
  std::map<std::string, const Function*> funcs_;
};

}  // namespace

std::unique_ptr<Module> LowerFromAst(const sema::CheckedModule& module, const std::vector<std::string>& only_kernels) {
  auto out = std::make_unique<Module>();
  out->name = module.name;
  Lowering lowering(*out);
  auto wanted = [&](const std::string& name) {
    return only_kernels.empty() || std::find(only_kernels.begin(), only_kernels.end(), name) != only_kernels.end();
  };
  for (const ast::Decl* d : module.ast->decls)
    if (auto* k = ast::dyn_cast<ast::KernelDecl>(d); k && wanted(k->name.name)) lowering.LowerKernel(module, k);
  return out;
}

}  // namespace tmc::ir
