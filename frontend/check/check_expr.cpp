// Expressions: typing, implicit conversions (lossless only), and folding of
// compile-time values. Unsuffixed literals are "untyped": they take the type
// their context asks for when their value fits it exactly.
#include <cmath>

#include "frontend/check/checker.h"
#include "support/float_rounding.h"

namespace tmc::sema {
namespace {

constexpr const char* kThreadBuiltins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};

bool IsDim3Builtin(const std::string& name) {
  for (const char* b : kThreadBuiltins)
    if (name == b) return true;
  return false;
}

// Identifiers longer than this get no "did you mean" suggestion.
constexpr size_t kMaxSuggestedLength = 64;

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

double FloatMax(ScalarKind k) {
  switch (k) {
    case ScalarKind::F16: return 65504.0;
    case ScalarKind::BF16: return 3.3895313892515355e38;
    case ScalarKind::F32: return 3.4028234663852886e38;
    default: return HUGE_VAL;
  }
}

int Mantissa(ScalarKind k) {
  switch (k) {
    case ScalarKind::F16: return 11;
    case ScalarKind::BF16: return 8;
    case ScalarKind::F32: return 24;
    default: return 53;
  }
}

// With no context an integer constant is the first of i32, i64, u64 that
// holds it, not narrower than `at_least` when it fits that.
std::optional<ScalarKind> UntypedIntKind(ExactInt v, ScalarKind at_least = ScalarKind::I32) {
  static constexpr ScalarKind kOrder[] = {ScalarKind::I32, ScalarKind::I64, ScalarKind::U64};
  size_t first = at_least == ScalarKind::U64 ? 2 : at_least == ScalarKind::I64 ? 1 : 0;
  for (size_t k = first; k < 3; ++k)
    if (ExactFits(v, kOrder[k])) return kOrder[k];
  for (ScalarKind k : kOrder)
    if (ExactFits(v, k)) return k;
  return std::nullopt;
}

// Reduces `v` to the width of integer type `k`, as the hardware does.
ExactInt WrapTo(ExactInt v, ScalarKind k) {
  int bits = ScalarBits(k);
  unsigned __int128 mask = (static_cast<unsigned __int128>(1) << bits) - 1;
  ExactInt w = static_cast<ExactInt>(static_cast<unsigned __int128>(v) & mask);
  if (IsSigned(k) && w > static_cast<ExactInt>(IntegerMax(k))) w -= static_cast<ExactInt>(mask) + 1;
  return w;
}

ExactInt ExactOf(const ExprInfo& info) { return ExactValue(*info.value, info.type->scalar); }

// A constant as the user wrote it (u64 values above 2^63 included).
std::string ValueString(const ExprInfo& info) {
  if (info.value->kind == ConstValue::Kind::Int) return ExactString(ExactOf(info));
  return info.value->ToString();
}

}  // namespace

ExprInfo Checker::CheckExpr(ast::Expr* e) {
  ExprInfo info;
  switch (e->kind) {
    case ast::ExprKind::IntLit:
    case ast::ExprKind::FloatLit:
    case ast::ExprKind::BoolLit: info = CheckLiteral(e); break;
    case ast::ExprKind::Name: info = CheckName(static_cast<ast::NameExpr*>(e)); break;
    case ast::ExprKind::Call: info = CheckCall(static_cast<ast::CallExpr*>(e)); break;
    case ast::ExprKind::Cast: info = CheckCast(static_cast<ast::CastExpr*>(e)); break;
    case ast::ExprKind::Index:
      info = body_ == BodyKind::Op ? CheckOpExpr(e) : CheckIndex(static_cast<ast::IndexExpr*>(e));
      break;
    case ast::ExprKind::Member: info = CheckMember(static_cast<ast::MemberExpr*>(e)); break;
    case ast::ExprKind::Unary: info = CheckUnary(static_cast<ast::UnaryExpr*>(e)); break;
    case ast::ExprKind::Binary:
      info = body_ == BodyKind::Graph ? CheckGraphExpr(e) : CheckBinary(static_cast<ast::BinaryExpr*>(e));
      break;
    case ast::ExprKind::Ternary: info = CheckTernary(static_cast<ast::TernaryExpr*>(e)); break;
    case ast::ExprKind::Reduce:
      if (body_ == BodyKind::Op) {
        info = CheckOpExpr(e);
      } else {
        diags_.Report(e->range, DiagKind::ReductionOutsideOp);
        info = ErrorInfo();
      }
      break;
  }
  if (!info.type) info.type = types_.Error();
  // Only compile-time values adapt to their context (§5): an expression of
  // literals that is not folded (`abs(1.0)`, `c ? 1 : 2` with a run-time
  // `c`) has the default type it was given (f32, i32, ...).
  if (info.untyped_literal && !info.value) info.untyped_literal = false;
  e->type = info.type;
  if (info.value && !info.type->IsError()) module_.constants[e] = *info.value;
  return info;
}

ExprInfo Checker::CheckLiteral(ast::Expr* e) {
  if (auto* b = ast::dyn_cast<ast::BoolLit>(e))
    return ExprInfo{types_.Scalar(ScalarKind::Bool), ConstValue::Bool(b->value), false, nullptr};
  if (auto* f = ast::dyn_cast<ast::FloatLit>(e)) {
    ExprInfo info{types_.Scalar(f->suffix.value_or(ScalarKind::F32)),
                  ConstValue::Float(f->suffix ? RoundedToFloatType(*f->suffix, f->value) : f->value), !f->suffix, nullptr};
    if (f->suffix && std::abs(f->value) > FloatMax(*f->suffix)) {
      diags_.Report(e->range, DiagKind::FloatLiteralOutOfRange, ScalarName(*f->suffix));
      return ErrorInfo();
    }
    return info;
  }
  auto* i = static_cast<ast::IntLit*>(e);
  ExactInt v = i->value;
  if (i->suffix) {
    if (!ExactFits(v, *i->suffix)) {
      diags_.Report(e->range, DiagKind::IntegerLiteralTooLargeForType, i->value, ScalarName(*i->suffix));
      return ErrorInfo();
    }
    return ExprInfo{types_.Scalar(*i->suffix), ExactConst(v), false, nullptr};
  }
  // The lexer keeps literals below 2^64, which u64 holds.
  return ExprInfo{types_.Scalar(*UntypedIntKind(v)), ExactConst(v), true, nullptr};
}

bool Checker::Convertible(const ExprInfo& info, ScalarKind to, SourceRange range,
                          std::string_view what) {
  if (info.IsError()) return false;
  if (!info.type->IsScalar()) {
    diags_.Report(range, DiagKind::IncompatibleTypes, what, info.type->ToString(), ScalarName(to));
    return false;
  }
  ScalarKind from = info.type->scalar;
  if (from == to) return true;
  if (info.untyped_literal && info.value) {
    const ConstValue& v = *info.value;
    if (v.kind == ConstValue::Kind::Int) {
      ExactInt x = ExactOf(info);
      if (IsInteger(to)) {
        if (ExactFits(x, to)) return true;
        diags_.Report(range, DiagKind::LiteralNotRepresentable, ValueString(info), ScalarName(to));
        return false;
      }
      if (IsFloat(to)) {
        ExactInt limit = static_cast<ExactInt>(1) << Mantissa(to);
        if (x <= limit && x >= -limit) return true;
        diags_.Report(range, DiagKind::LiteralNotRepresentable, ValueString(info), ScalarName(to));
        return false;
      }
    } else if (v.kind == ConstValue::Kind::Float && IsFloat(to)) {
      // Infinity (`inf`) exists in every float type; a finite literal must
      // not overflow the type.
      if (std::isinf(v.f) || std::abs(v.f) <= FloatMax(to)) return true;
      diags_.Report(range, DiagKind::LiteralNotRepresentable, v.ToString(), ScalarName(to));
      return false;
    }
  }
  if (IsLosslessConversion(from, to)) return true;
  if (from == ScalarKind::Bool || to == ScalarKind::Bool) {
    diags_.Report(range, DiagKind::IncompatibleTypes, what, ScalarName(from), ScalarName(to));
    return false;
  }
  // In a graph a scalar is a literal or a parameter, so `f32(t)` is no way
  // out there: the parameter's own type is.
  if (body_ == BodyKind::Graph && info.type->IsScalar()) {
    diags_.Report(range, DiagKind::NarrowingConversionInGraph, ScalarName(from), ScalarName(to), ScalarName(to));
    return false;
  }
  diags_.Report(range, DiagKind::NarrowingConversion, ScalarName(from), ScalarName(to),
                ScalarName(to));
  return false;
}

ExprInfo Checker::CheckConverted(ast::Expr* e, ScalarKind to, std::string_view what) {
  ExprInfo info = CheckExpr(e);
  if (info.IsError()) return info;
  if (!Convertible(info, to, e->range, what)) return ErrorInfo();
  ExprInfo out = info;
  out.type = types_.Scalar(to);
  out.untyped_literal = false;
  // A converted constant takes the target's representation.
  if (out.value && IsFloat(to) && out.value->kind == ConstValue::Kind::Int)
    out.value = ConstValue::Float(IntegerToFloatType(to, ExactOf(info)));
  else if (out.value && IsFloat(to) && out.value->kind == ConstValue::Kind::Float)
    out.value = ConstValue::Float(RoundedToFloatType(to, out.value->f));
  return out;
}

std::optional<int64_t> Checker::EvalInt(ast::Expr* e, std::string_view what) {
  ExprInfo info = CheckExpr(e);
  if (info.IsError()) return std::nullopt;
  if (!info.type->IsInteger() || !info.value || info.value->kind != ConstValue::Kind::Int) {
    diags_.Report(e->range, DiagKind::NotCompileTime, what);
    return std::nullopt;
  }
  if (!ExactFits(ExactOf(info), ScalarKind::I64)) {
    diags_.Report(e->range, DiagKind::ConstOverflow, "i64");
    return std::nullopt;
  }
  return info.value->i;
}

void Checker::ReportUndeclared(const std::string& name, SourceRange range) {
  // Like clang: suggest only close matches, and nothing for very short
  // names, where every other short name is "close".
  // Nor for very long ones: the distance costs their lengths' product.
  std::string best;
  size_t best_distance = name.size() < 3 || name.size() > kMaxSuggestedLength ? 0 : std::max<size_t>(1, name.size() / 3) + 1;
  auto consider = [&](const std::string& candidate) {
    // The lengths' difference is a lower bound of the distance.
    size_t gap = name.size() > candidate.size() ? name.size() - candidate.size() : candidate.size() - name.size();
    if (gap >= best_distance) return;
    size_t d = EditDistance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  };
  for (Scope* s = scope_; s; s = s->parent()) s->ForEach([&](Symbol& sym) { consider(sym.name); });
  if (body_ == BodyKind::Kernel || body_ == BodyKind::Func) {
    for (const char* b : kThreadBuiltins) consider(b);
    consider("warp_id");
    consider("lane_id");
  }
  // A name declared in a module that is not imported: say which, and the
  // line to add, rather than suggest a near miss.
  std::vector<ImportHint> hints;
  if (options_.find_import) hints = options_.find_import(name);
  if (!hints.empty()) {
    auto diag = diags_.Report(range, DiagKind::UndeclaredIdentifier, name);
    for (const ImportHint& h : hints) diag.Note(h.range, DiagKind::NoteDeclaredInModule, h.what, name, h.module, h.module);
    return;
  }
  if (!best.empty())
    diags_.Report(range, DiagKind::UndeclaredIdentifierSuggest, name, best);
  else if (in_param_dims_)
    diags_.Report(range, DiagKind::UnboundShapeSymbol, name, name);
  else
    diags_.Report(range, DiagKind::UndeclaredIdentifier, name);
}

ExprInfo Checker::CheckName(ast::NameExpr* e) {
  Symbol* s = scope_->Lookup(e->name);
  if (!s) {
    bool in_device_code = body_ == BodyKind::Kernel || body_ == BodyKind::Func;
    if (IsDim3Builtin(e->name) || e->name == "warp_id" || e->name == "lane_id") {
      if (!in_device_code) {
        diags_.Report(e->range, DiagKind::BuiltinOutsideKernel, e->name);
        return ErrorInfo();
      }
      if (IsDim3Builtin(e->name)) return ExprInfo{types_.Dim3(), {}, false, nullptr};
      return Scalar(ScalarKind::I32);
    }
    // `inf` is positive infinity, a float literal (`-inf` negates it).
    if (e->name == "inf") {
      ExprInfo info{types_.Scalar(ScalarKind::F32), ConstValue::Float(INFINITY), true, nullptr};
      return info;
    }
    ReportUndeclared(e->name, e->range);
    return ErrorInfo();
  }
  s->used = true;
  switch (s->kind) {
    case Symbol::Kind::Value:
    case Symbol::Kind::Tensor:
      return ExprInfo{s->type, s->value, false, s};
    case Symbol::Kind::ShapeSymbol:
      return Scalar(ScalarKind::I32);
    case Symbol::Kind::CtParam:
    case Symbol::Kind::Const:
      if (s->pending) {
        diags_.Report(e->range, DiagKind::ConstUsedBeforeDefinition, e->name)
            .Note(s->decl_range, DiagKind::NoteDeclaredHere, e->name);
        return ErrorInfo();
      }
      if (!s->value) return ErrorInfo();  // its own definition failed
      return ExprInfo{s->type, s->value, false, nullptr};
    case Symbol::Kind::Op:
    case Symbol::Kind::Kernel:
    case Symbol::Kind::Func:
    case Symbol::Kind::Graph: {
      const char* what = s->kind == Symbol::Kind::Op       ? "an op"
                         : s->kind == Symbol::Kind::Kernel ? "a kernel"
                         : s->kind == Symbol::Kind::Func   ? "a function"
                                                           : "a graph";
      diags_.Report(e->range, DiagKind::NotAValue, e->name, what)
          .Note(s->decl_range, DiagKind::NoteDeclaredHere, e->name);
      return ErrorInfo();
    }
  }
  return ErrorInfo();
}

std::optional<Checker::IndexOperands> Checker::CheckIndexOperands(ast::IndexExpr* e) {
  IndexOperands out;
  out.base = CheckExpr(e->base);
  for (ast::Expr* i : e->indices) out.indices.push_back(CheckExpr(i));
  if (out.base.IsError()) return std::nullopt;
  if (!out.base.type->IsTensor()) {
    diags_.Report(e->base->range, DiagKind::NotIndexable, out.base.type->ToString());
    return std::nullopt;
  }
  out.name = out.base.lvalue_root ? out.base.lvalue_root->name : "tensor";
  const Type* bt = out.base.type;
  // Fewer indices than dimensions select a view of a row-major tensor in
  // memory: `s[stage]` of `shared s: f16[3, 128, 32]` is a shared
  // f16[128, 32] (docs/language.md, "Views").
  out.is_view = body_ != BodyKind::Op && !out.indices.empty() && out.indices.size() < bt->Rank() &&
                bt->scope != MemScope::Register;
  // A view of a swizzled tensor is one when it spans whole swizzle
  // periods (2^(B + M + S) elements): its elements then swizzle as the
  // view's own offsets do (`sa[stage]` of `T[STAGES, 128, 32] swizzle(...)`).
  bool whole_periods = false;
  if (out.is_view && bt->layout.kind == Layout::Kind::Swizzle && bt->layout.args.size() == 3) {
    int64_t span = 1;
    bool known = true;
    for (size_t d = out.indices.size(); d < bt->Rank(); ++d) {
      known = known && bt->dims[d].is_const;
      span *= bt->dims[d].is_const ? bt->dims[d].value : 1;
    }
    int64_t bits = 0;
    for (const Dim& a : bt->layout.args) bits += a.is_const ? a.value : 64;
    whole_periods = known && bits < 62 && span % (int64_t{1} << bits) == 0;
    if (known && bits < 62 && !whole_periods) {
      diags_.Report(e->range, DiagKind::ViewOfSwizzlePart, out.name, span, int64_t{1} << bits);
      return std::nullopt;
    }
  }
  if (out.is_view && bt->layout.kind != Layout::Kind::RowMajor && !whole_periods) {
    const char* layout = bt->layout.kind == Layout::Kind::ColMajor ? "col_major"
                         : bt->layout.kind == Layout::Kind::Strided ? "strided"
                                                                    : "swizzled";
    diags_.Report(e->range, DiagKind::ViewOfNonRowMajor, out.name, layout);
    return std::nullopt;
  }
  if (!out.is_view && out.indices.size() != bt->Rank()) {
    diags_.Report(e->range, DiagKind::IndexCountMismatch, out.name, out.base.type->Rank(),
                  Plural(out.indices.size(), "index", "indices"));
    return std::nullopt;
  }
  bool ok = true;
  for (size_t k = 0; k < out.indices.size(); ++k) {
    const ExprInfo& idx = out.indices[k];
    if (idx.IsError()) {
      ok = false;
    } else if (!idx.type->IsInteger()) {
      diags_.Report(e->indices[k]->range, DiagKind::IndexNotInteger, idx.type->ToString());
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

ExprInfo Checker::CheckIndex(ast::IndexExpr* e) {
  std::optional<IndexOperands> operands = CheckIndexOperands(e);
  if (!operands) return ErrorInfo();
  const ExprInfo& base = operands->base;
  const Type* t = base.type;
  const std::string& name = operands->name;
  bool ok = true;
  for (size_t k = 0; k < operands->indices.size(); ++k) {
    const ExprInfo& idx = operands->indices[k];
    // (A TMA origin may lie outside: the copy zero-fills or clips.)
    if (idx.value && t->dims[k].is_const && e != tma_operand_ &&
        (ExactOf(idx) < 0 || ExactOf(idx) >= t->dims[k].value)) {
      diags_.Report(e->indices[k]->range, DiagKind::IndexOutOfBounds, ExactString(ExactOf(idx)), k,
                    t->dims[k].value);
      ok = false;
    }
  }
  if (!ok) return ErrorInfo();
  if (t->mbarrier && e != mbarrier_operand_) {
    diags_.Report(e->range, DiagKind::MbarrierElementUse, name);
    return ErrorInfo();
  }
  if (t->tma && e != tma_operand_) {
    diags_.Report(e->range, DiagKind::TmaParamUse, name);
    return ErrorInfo();
  }
  if (operands->is_view) {
    Type view = *t;
    view.dims.erase(view.dims.begin(), view.dims.begin() + static_cast<long>(operands->indices.size()));
    return ExprInfo{types_.Make(std::move(view)), {}, false, base.lvalue_root};
  }
  if (t->distributed_by) {
    // A distributed tensor is indexed by the variables of a loop over its
    // mapping: each worker then touches exactly its own registers.
    bool found = false;
    for (auto it = loops_.rbegin(); it != loops_.rend() && !found; ++it) {
      if (!it->mapping || !(*it->mapping == *t->distributed_by)) continue;
      if (it->vars.size() != e->indices.size()) continue;
      bool match = true;
      for (size_t k = 0; k < e->indices.size() && match; ++k) {
        auto* n = ast::dyn_cast<ast::NameExpr>(e->indices[k]);
        match = n && scope_->Lookup(n->name) == it->vars[k];
      }
      found = match;
    }
    if (!found) {
      auto diag = diags_.Report(e->range, DiagKind::DistributedIndexOutsideLoop, name,
                                t->distributed_by->ToString());
      if (base.lvalue_root)
        diag.Note(base.lvalue_root->decl_range, DiagKind::NoteDistributedHere, name);
      return ErrorInfo();
    }
  }
  return ExprInfo{types_.Scalar(t->scalar), {}, false, base.lvalue_root};
}

ExprInfo Checker::CheckMember(ast::MemberExpr* e) {
  ExprInfo base = CheckExpr(e->base);
  if (base.IsError()) return ErrorInfo();
  const std::string& m = e->member.name;
  if (base.type->kind == TypeKind::Dim3) {
    if (m == "x" || m == "y" || m == "z") return Scalar(ScalarKind::I32);
  } else if (base.type->kind == TypeKind::Mapping && base.value && base.value->m) {
    const TaskMapping& map = *base.value->m;
    if (m == "workers") return ExprInfo{types_.Scalar(ScalarKind::I32), ConstValue::Int(map.Workers()), false, nullptr};
    if (m == "rank") return ExprInfo{types_.Scalar(ScalarKind::I32), ConstValue::Int(map.Rank()), false, nullptr};
    if (m == "tasks") return ExprInfo{types_.Scalar(ScalarKind::I32), ConstValue::Int(map.TaskCount()), false, nullptr};
  }
  diags_.Report(e->member.range, DiagKind::NoMember, m, base.type->ToString());
  return ErrorInfo();
}

ExprInfo Checker::CheckUnary(ast::UnaryExpr* e) {
  ExprInfo v = CheckExpr(e->operand);
  if (v.IsError()) return v;
  const Type* t = v.type;
  bool ok = (e->op == ast::UnaryOp::Not) ? t->IsBool()
            : (e->op == ast::UnaryOp::BitNot) ? t->IsInteger()
                                              : t->IsNumeric();
  if (!ok) {
    diags_.Report(e->range, DiagKind::InvalidUnaryOperand, ast::Spelling(e->op), t->ToString());
    return ErrorInfo();
  }
  ExprInfo out{t, std::nullopt, v.untyped_literal, nullptr};
  if (!v.value) return out;
  const ConstValue& c = *v.value;
  if (c.kind == ConstValue::Kind::Bool) {
    out.value = ConstValue::Bool(!c.b);
    return out;
  }
  if (c.kind == ConstValue::Kind::Float) {
    out.value = ConstValue::Float(e->op == ast::UnaryOp::Neg ? -c.f : c.f);
    return out;
  }
  ExactInt x = ExactOf(v), z = x;
  switch (e->op) {
    case ast::UnaryOp::Neg: z = -x; break;
    case ast::UnaryOp::Plus: break;
    case ast::UnaryOp::Not: break;
    case ast::UnaryOp::BitNot:
      // An unsigned complement stays within the type's width.
      z = IsUnsigned(t->scalar) && !v.untyped_literal ? static_cast<ExactInt>(IntegerMax(t->scalar)) - x : -x - 1;
      break;
  }
  return FoldedInt(e, out, z, t->scalar);
}

// Gives `out` the folded integer `z`: typed results must fit their type;
// untyped ones take the first of i32, i64, u64 that holds them.
ExprInfo Checker::FoldedInt(ast::Expr* e, ExprInfo out, ExactInt z, ScalarKind type) {
  if (out.untyped_literal) {
    std::optional<ScalarKind> k = UntypedIntKind(z, type);
    if (!k) {
      diags_.Report(e->range, DiagKind::ConstOverflow, z < 0 ? "i64" : "u64");
      return ErrorInfo();
    }
    out.type = types_.Scalar(*k);
  } else if (!ExactFits(z, type)) {
    diags_.Report(e->range, DiagKind::ConstOverflow, ScalarName(type));
    return ErrorInfo();
  }
  out.value = ExactConst(z);
  return out;
}

std::optional<ScalarKind> Checker::CommonType(const ExprInfo& l, const ExprInfo& r) {
  ScalarKind a = l.type->scalar, b = r.type->scalar;
  if (l.untyped_literal && r.untyped_literal) {
    if (IsFloat(a) || IsFloat(b)) return ScalarKind::F32;
    return ScalarBits(a) >= ScalarBits(b) ? a : b;
  }
  if (l.untyped_literal) return b;
  if (r.untyped_literal) return a;
  if (a == b) return a;
  if (IsLosslessConversion(a, b)) return b;
  if (IsLosslessConversion(b, a)) return a;
  return std::nullopt;
}

ExprInfo Checker::CheckBinary(ast::BinaryExpr* e) {
  ExprInfo l = CheckExpr(e->lhs);
  ExprInfo r = CheckExpr(e->rhs);
  if (l.IsError() || r.IsError()) return ErrorInfo();
  // Composition of task mappings.
  if (l.type->kind == TypeKind::Mapping || r.type->kind == TypeKind::Mapping) {
    if (e->op != ast::BinaryOp::Mul || l.type->kind != r.type->kind) {
      diags_.Report(e->op_range, DiagKind::InvalidBinaryOperands, ast::Spelling(e->op),
                    l.type->ToString(), r.type->ToString());
      return ErrorInfo();
    }
    const TaskMapping& a = *l.value->m;
    const TaskMapping& b = *r.value->m;
    if (a.Rank() != b.Rank()) {
      diags_.Report(e->op_range, DiagKind::MappingRankMismatch, a.Rank(), b.Rank())
          .Note(e->lhs->range, DiagKind::NoteMappingType, a.TypeString())
          .Note(e->rhs->range, DiagKind::NoteMappingType, b.TypeString());
      return ErrorInfo();
    }
    if (a.Workers() > (int64_t{1} << 31) / b.Workers() ||
        !CheckedProduct({a.TaskCount(), b.TaskCount()}) ||
        a.TaskCount() * b.TaskCount() > (int64_t{1} << 40)) {
      diags_.Report(e->range, DiagKind::MappingTooLarge);
      return ErrorInfo();
    }
    TaskMapping m = a.Compose(b);
    Type t;
    t.kind = TypeKind::Mapping;
    t.mapping = m;
    return ExprInfo{types_.Make(std::move(t)), ConstValue::Mapping(m), false, nullptr};
  }
  if (!l.type->IsScalar() || !r.type->IsScalar()) {
    diags_.Report(e->op_range, DiagKind::InvalidBinaryOperands, ast::Spelling(e->op),
                  l.type->ToString(), r.type->ToString());
    return ErrorInfo();
  }
  return Arith(e, l, r);
}

ExprInfo Checker::Arith(ast::BinaryExpr* e, const ExprInfo& l, const ExprInfo& r) {
  using Op = ast::BinaryOp;
  Op op = e->op;
  auto invalid = [&]() {
    diags_.Report(e->op_range, DiagKind::InvalidBinaryOperands, ast::Spelling(op),
                  l.type->ToString(), r.type->ToString());
    return ErrorInfo();
  };
  if (op == Op::And || op == Op::Or) {
    if (!l.type->IsBool() || !r.type->IsBool()) return invalid();
    ExprInfo out = Scalar(ScalarKind::Bool);
    if (l.value && r.value)
      out.value = ConstValue::Bool(op == Op::And ? l.value->b && r.value->b : l.value->b || r.value->b);
    return out;
  }
  if (op == Op::Shl || op == Op::Shr) {
    if (!l.type->IsInteger() || !r.type->IsInteger()) return invalid();
    ExprInfo out{l.type, std::nullopt, l.untyped_literal, nullptr};
    if (!l.value || !r.value) return out;
    // Typed shifts drop the bits shifted out, as the hardware does; an
    // untyped constant is shifted exactly and then typed like any other.
    ExactInt s = ExactOf(r), x = ExactOf(l);
    int width = l.untyped_literal ? 64 : ScalarBits(l.type->scalar);
    if (s < 0 || s >= width) {
      std::string type = !l.untyped_literal ? l.type->ToString() : l.type->scalar == ScalarKind::U64 ? "u64" : "i64";
      diags_.Report(e->rhs->range, DiagKind::ShiftOutOfRange, ExactString(s), type);
      return ErrorInfo();
    }
    ExactInt z = op == Op::Shr ? x >> static_cast<int>(s) : x * (static_cast<ExactInt>(1) << static_cast<int>(s));
    if (!l.untyped_literal) z = WrapTo(z, l.type->scalar);
    return FoldedInt(e, out, z, l.type->scalar);
  }
  bool compare = op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge || op == Op::Eq ||
                 op == Op::Ne;
  bool bool_ok = op == Op::Eq || op == Op::Ne;
  if ((l.type->IsBool() || r.type->IsBool()) && !(bool_ok && l.type->IsBool() && r.type->IsBool()))
    return invalid();
  std::optional<ScalarKind> common = CommonType(l, r);
  if (!common) {
    diags_.Report(e->op_range, DiagKind::MixedOperandTypes, ast::Spelling(op), l.type->ToString(),
                  r.type->ToString());
    return ErrorInfo();
  }
  // The literal side must fit the other side's type.
  if (!l.untyped_literal || !r.untyped_literal) {
    if (l.untyped_literal && !Convertible(l, *common, e->lhs->range, "operand")) return ErrorInfo();
    if (r.untyped_literal && !Convertible(r, *common, e->rhs->range, "operand")) return ErrorInfo();
  }
  bool integer_only = op == Op::Mod || op == Op::BitAnd || op == Op::BitOr || op == Op::BitXor;
  if (integer_only && !IsInteger(*common)) return invalid();
  ExprInfo out{types_.Scalar(compare ? ScalarKind::Bool : *common), std::nullopt,
               !compare && l.untyped_literal && r.untyped_literal, nullptr};
  if (!l.value || !r.value) return out;
  // Fold.
  const ConstValue &a = *l.value, &b = *r.value;
  if (a.kind == ConstValue::Kind::Bool) {
    out.value = ConstValue::Bool(op == Op::Eq ? a.b == b.b : a.b != b.b);
    return out;
  }
  if (IsFloat(*common)) {
    double x = a.kind == ConstValue::Kind::Float ? a.f : static_cast<double>(ExactOf(l));
    double y = b.kind == ConstValue::Kind::Float ? b.f : static_cast<double>(ExactOf(r));
    // Typed operands compute in their type: the operands (an untyped
    // literal among them converted) and each result rounded to it.
    bool exact = l.untyped_literal && r.untyped_literal;
    if (!exact) x = RoundedToFloatType(*common, x), y = RoundedToFloatType(*common, y);
    auto typed = [&](double v) { return ConstValue::Float(exact ? v : RoundedToFloatType(*common, v)); };
    switch (op) {
      case Op::Add: out.value = typed(x + y); break;
      case Op::Sub: out.value = typed(x - y); break;
      case Op::Mul: out.value = typed(x * y); break;
      case Op::Div: out.value = typed(x / y); break;
      case Op::Lt: out.value = ConstValue::Bool(x < y); break;
      case Op::Le: out.value = ConstValue::Bool(x <= y); break;
      case Op::Gt: out.value = ConstValue::Bool(x > y); break;
      case Op::Ge: out.value = ConstValue::Bool(x >= y); break;
      case Op::Eq: out.value = ConstValue::Bool(x == y); break;
      case Op::Ne: out.value = ConstValue::Bool(x != y); break;
      default: break;
    }
    return out;
  }
  ExactInt x = ExactOf(l), y = ExactOf(r), z = 0;
  bool overflow = false;
  switch (op) {
    case Op::Add: overflow = __builtin_add_overflow(x, y, &z); break;
    case Op::Sub: overflow = __builtin_sub_overflow(x, y, &z); break;
    case Op::Mul: overflow = __builtin_mul_overflow(x, y, &z); break;
    case Op::Div:
    case Op::Mod:
      if (y == 0) {
        diags_.Report(e->rhs->range, DiagKind::DivisionByZero);
        return ErrorInfo();
      }
      z = op == Op::Div ? x / y : x % y;
      break;
    case Op::BitAnd: z = x & y; break;
    case Op::BitOr: z = x | y; break;
    case Op::BitXor: z = x ^ y; break;
    case Op::Lt: out.value = ConstValue::Bool(x < y); return out;
    case Op::Le: out.value = ConstValue::Bool(x <= y); return out;
    case Op::Gt: out.value = ConstValue::Bool(x > y); return out;
    case Op::Ge: out.value = ConstValue::Bool(x >= y); return out;
    case Op::Eq: out.value = ConstValue::Bool(x == y); return out;
    case Op::Ne: out.value = ConstValue::Bool(x != y); return out;
    default: break;
  }
  if (overflow) {
    diags_.Report(e->range, DiagKind::ConstOverflow, ScalarName(*common));
    return ErrorInfo();
  }
  return FoldedInt(e, out, z, *common);
}

ExprInfo Checker::CheckTernary(ast::TernaryExpr* e) {
  ExprInfo c = CheckExpr(e->cond);
  ExprInfo a = CheckExpr(e->then_value);
  ExprInfo b = CheckExpr(e->else_value);
  if (c.IsError() || a.IsError() || b.IsError()) return ErrorInfo();
  if (!c.type->IsBool()) {
    diags_.Report(e->cond->range, DiagKind::ConditionNotBool, c.type->ToString());
    return ErrorInfo();
  }
  if (!a.type->IsScalar() || !b.type->IsScalar()) {
    diags_.Report(e->range, DiagKind::TernaryMismatch, a.type->ToString(), b.type->ToString());
    return ErrorInfo();
  }
  std::optional<ScalarKind> common =
      a.type->IsBool() && b.type->IsBool() ? std::optional(ScalarKind::Bool) : CommonType(a, b);
  if (!common || (a.type->IsBool() != b.type->IsBool())) {
    diags_.Report(e->range, DiagKind::TernaryMismatch, a.type->ToString(), b.type->ToString());
    return ErrorInfo();
  }
  if (a.untyped_literal && !b.untyped_literal && !Convertible(a, *common, e->then_value->range, "operand"))
    return ErrorInfo();
  if (b.untyped_literal && !a.untyped_literal && !Convertible(b, *common, e->else_value->range, "operand"))
    return ErrorInfo();
  ExprInfo out{types_.Scalar(*common), std::nullopt, a.untyped_literal && b.untyped_literal, nullptr};
  if (c.value && a.value && b.value) {
    out.value = c.value->b ? a.value : b.value;
    // An untyped literal chosen beside a typed float takes that type's value.
    if (!out.untyped_literal && IsFloat(*common) && out.value->kind == ConstValue::Kind::Float)
      out.value = ConstValue::Float(RoundedToFloatType(*common, out.value->f));
  }
  return out;
}

ExprInfo Checker::CheckCast(ast::CastExpr* e) {
  ExprInfo v = CheckExpr(e->operand);
  if (v.IsError()) return v;
  if (!v.type->IsScalar()) {
    diags_.Report(e->range, DiagKind::InvalidCast, v.type->ToString(), ScalarName(e->to));
    return ErrorInfo();
  }
  ExprInfo out = Scalar(e->to);
  if (!v.value) return out;
  const ConstValue& c = *v.value;
  if (c.kind == ConstValue::Kind::Float) {
    if (e->to == ScalarKind::Bool) {
      out.value = ConstValue::Bool(c.f != 0.0);
    } else if (IsFloat(e->to)) {
      out.value = ConstValue::Float(RoundedToFloatType(e->to, c.f));
    } else {
      // Float to integer truncates toward zero; the result must fit, as
      // for integer constants (`i8(300.0)` is an error like `i8(300)`).
      double t = std::trunc(c.f);
      if (!(std::abs(t) < 0x1p64) || !ExactFits(static_cast<ExactInt>(t), e->to)) {
        diags_.Report(e->range, DiagKind::ConstOverflow, ScalarName(e->to));
        return ErrorInfo();
      }
      out.value = ExactConst(static_cast<ExactInt>(t));
    }
    return out;
  }
  ExactInt x = ExactOf(v);  // integers and bools
  if (e->to == ScalarKind::Bool) {
    out.value = ConstValue::Bool(x != 0);
  } else if (IsFloat(e->to)) {
    out.value = ConstValue::Float(IntegerToFloatType(e->to, x));
  } else if (!ExactFits(x, e->to)) {
    diags_.Report(e->range, DiagKind::ConstOverflow, ScalarName(e->to));
    return ErrorInfo();
  } else {
    out.value = ExactConst(x);
  }
  return out;
}

}  // namespace tmc::sema
