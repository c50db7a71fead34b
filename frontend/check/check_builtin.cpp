// Calls: built-in functions (math, mappings, loop ranges, shuffles,
// atomics), device functions, and the dispatch of op calls to graphs.
#include "frontend/check/checker.h"
#include "support/mma_layouts.h"

namespace tmc::sema {
namespace {

enum class Builtin {
  FloatMath, Abs, MinMax, Fma, Pow, Select, Cdiv, Range, Unroll,
  Shuffle, Atomic, AtomicCas, Mapping, Mma, LdMatrix, CpAsync, CpAsyncCommit, CpAsyncWait, None
};

struct BuiltinInfo {
  Builtin kind;
  int min_args;
  int max_args;
  bool device_only;
};

BuiltinInfo LookupBuiltin(const std::string& n) {
  static const char* kFloatMath[] = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh",
                                     "erf", "sin", "cos", "floor", "ceil", "sigmoid"};
  for (const char* m : kFloatMath)
    if (n == m) return {Builtin::FloatMath, 1, 1, false};
  if (n == "abs") return {Builtin::Abs, 1, 1, false};
  if (n == "min" || n == "max") return {Builtin::MinMax, 2, 2, false};
  if (n == "fma") return {Builtin::Fma, 3, 3, false};
  if (n == "pow") return {Builtin::Pow, 2, 2, false};
  if (n == "select") return {Builtin::Select, 3, 3, false};
  if (n == "cdiv") return {Builtin::Cdiv, 2, 2, false};
  if (n == "range") return {Builtin::Range, 1, 3, true};
  if (n == "unroll") return {Builtin::Unroll, 1, 1, true};
  if (n == "shfl_xor" || n == "shfl_down" || n == "shfl_up" || n == "shfl_idx")
    return {Builtin::Shuffle, 2, 2, true};
  if (n == "atomic_add" || n == "atomic_min" || n == "atomic_max" || n == "atomic_exch")
    return {Builtin::Atomic, 2, 2, true};
  if (n == "atomic_cas") return {Builtin::AtomicCas, 3, 3, true};
  if (n == "mma") return {Builtin::Mma, 4, 4, true};
  if (n == "ldmatrix") return {Builtin::LdMatrix, 4, 4, true};
  if (n == "cp_async") return {Builtin::CpAsync, 3, 3, true};
  if (n == "cp_async_commit") return {Builtin::CpAsyncCommit, 0, 0, true};
  if (n == "cp_async_wait") return {Builtin::CpAsyncWait, 1, 1, true};
  if (n == "spatial" || n == "col_spatial" || n == "repeat" || n == "col_repeat")
    return {Builtin::Mapping, 1, 8, false};
  return {Builtin::None, 0, 0, false};
}

}  // namespace

ExprInfo Checker::CheckCall(ast::CallExpr* e) {
  if (Symbol* s = scope_->Lookup(e->callee.name)) {
    s->used = true;
    switch (s->kind) {
      case Symbol::Kind::Op:
        if (body_ == BodyKind::Graph) return CheckOpCall(e, *s);
        diags_.Report(e->callee.range, DiagKind::OpCallOutsideGraph, e->callee.name)
            .Note(s->decl_range, DiagKind::NoteDeclaredHere, e->callee.name);
        return ErrorInfo();
      case Symbol::Kind::Func:
        if (body_ == BodyKind::Kernel || body_ == BodyKind::Func) return CheckFuncCall(e, *s);
        diags_.Report(e->callee.range, DiagKind::FuncCallOutsideDevice, e->callee.name);
        return ErrorInfo();
      default:
        diags_.Report(e->callee.range, DiagKind::NotCallable, e->callee.name)
            .Note(s->decl_range, DiagKind::NoteDeclaredHere, e->callee.name);
        return ErrorInfo();
    }
  }
  if (std::optional<ExprInfo> info = CheckBuiltinCall(e)) return *info;
  ReportUndeclared(e->callee.name, e->callee.range);
  return ErrorInfo();
}

ExprInfo Checker::CheckMappingPrimitive(ast::CallExpr* e, MappingAtom::Kind kind) {
  std::vector<int64_t> dims;
  for (ast::Expr* a : e->args) {
    std::optional<int64_t> v = EvalInt(a, "a task-mapping extent");
    if (!v) return ErrorInfo();
    if (*v <= 0) {
      diags_.Report(a->range, DiagKind::NonPositiveExtent, *v);
      return ErrorInfo();
    }
    dims.push_back(*v);
  }
  std::optional<int64_t> n = CheckedProduct(dims);
  if (!n || *n > (int64_t{1} << 31)) {
    diags_.Report(e->range, DiagKind::MappingTooLarge);
    return ErrorInfo();
  }
  TaskMapping m = TaskMapping::Primitive(kind, dims);
  Type t;
  t.kind = TypeKind::Mapping;
  t.mapping = m;
  return ExprInfo{types_.Make(std::move(t)), ConstValue::Mapping(m), false, nullptr};
}

std::optional<ExprInfo> Checker::CheckBuiltinCall(ast::CallExpr* e) {
  const std::string& name = e->callee.name;
  BuiltinInfo b = LookupBuiltin(name);
  if (b.kind == Builtin::None) return std::nullopt;
  int n = static_cast<int>(e->args.size());
  if (n < b.min_args || n > b.max_args) {
    std::string want = b.min_args == b.max_args ? Plural(b.min_args, "argument")
                                                : fmt::format("{} to {} arguments", b.min_args, b.max_args);
    diags_.Report(e->range, DiagKind::BuiltinArity, name, want, n);
    return ErrorInfo();
  }
  if (b.device_only && body_ != BodyKind::Kernel && body_ != BodyKind::Func) {
    diags_.Report(e->callee.range, DiagKind::BuiltinOutsideKernel, name);
    return ErrorInfo();
  }
  if (b.kind == Builtin::Mapping) {
    MappingAtom::Kind k = name == "spatial"       ? MappingAtom::Kind::Spatial
                          : name == "col_spatial" ? MappingAtom::Kind::ColSpatial
                          : name == "repeat"      ? MappingAtom::Kind::Repeat
                                                  : MappingAtom::Kind::ColRepeat;
    return CheckMappingPrimitive(e, k);
  }
  if (b.kind == Builtin::Mma || b.kind == Builtin::LdMatrix || b.kind == Builtin::CpAsync ||
      b.kind == Builtin::CpAsyncCommit || b.kind == Builtin::CpAsyncWait)
    return CheckTensorCoreCall(e, name);
  if (b.kind == Builtin::Unroll) {
    std::optional<int64_t> v = EvalInt(e->args[0], "the trip count of unroll");
    if (!v) return ErrorInfo();
    if (*v < 0) {
      diags_.Report(e->args[0]->range, DiagKind::NegativeTripCount, *v);
      return ErrorInfo();
    }
    Type t;
    t.kind = TypeKind::Range;
    t.unroll = true;
    return ExprInfo{types_.Make(std::move(t)), std::nullopt, false, nullptr};
  }

  std::vector<ExprInfo> args;
  bool error = false;
  for (ast::Expr* a : e->args) {
    args.push_back(CheckExpr(a));
    error = error || args.back().IsError();
  }
  if (error) return ErrorInfo();
  auto arg_error = [&](int i, std::string_view want) {
    diags_.Report(e->args[i]->range, DiagKind::BuiltinArgType, i + 1, name, want,
                  args[i].type->ToString());
    return ErrorInfo();
  };
  for (int i = 0; i < n; ++i)
    if (!args[i].type->IsScalar() && !(b.kind == Builtin::Atomic || b.kind == Builtin::AtomicCas))
      return arg_error(i, "a scalar");

  // Common type of arguments [first, n), as for arithmetic operands.
  auto common_of = [&](int first) -> std::optional<ExprInfo> {
    ExprInfo acc = args[first];
    for (int i = first + 1; i < n; ++i) {
      std::optional<ScalarKind> c = CommonType(acc, args[i]);
      if (!c || acc.type->IsBool() != args[i].type->IsBool()) {
        diags_.Report(e->range, DiagKind::BuiltinMixedTypes, name, acc.type->ToString(),
                      args[i].type->ToString());
        return std::nullopt;
      }
      if (args[i].untyped_literal && !acc.untyped_literal &&
          !Convertible(args[i], *c, e->args[i]->range, "argument"))
        return std::nullopt;
      if (acc.untyped_literal && !args[i].untyped_literal &&
          !Convertible(acc, *c, e->args[first]->range, "argument"))
        return std::nullopt;
      bool both_untyped = acc.untyped_literal && args[i].untyped_literal;
      acc = ExprInfo{types_.Scalar(*c), std::nullopt, both_untyped, nullptr};
    }
    return acc;
  };

  switch (b.kind) {
    case Builtin::FloatMath:
      if (!args[0].type->IsFloat() && !args[0].untyped_literal) return arg_error(0, "a floating-point value");
      if (args[0].type->IsInteger() && args[0].untyped_literal) return Scalar(ScalarKind::F32);
      return Scalar(args[0].type->scalar);
    case Builtin::Abs:
      if (!args[0].type->IsNumeric()) return arg_error(0, "a number");
      // Not folded (§8): `abs(1.0)` is an f32, `abs(1)` an i32.
      return Scalar(args[0].type->scalar);
    case Builtin::MinMax:
    case Builtin::Fma:
    case Builtin::Pow: {
      for (int i = 0; i < n; ++i)
        if (!args[i].type->IsNumeric()) return arg_error(i, "a number");
      std::optional<ExprInfo> c = common_of(0);
      if (!c) return ErrorInfo();
      if (b.kind != Builtin::MinMax && !c->type->IsFloat()) {
        if (!c->untyped_literal) return arg_error(0, "a floating-point value");
        c->type = types_.Scalar(ScalarKind::F32);
      }
      if (b.kind == Builtin::MinMax && args[0].value && args[1].value) {
        bool is_min = name == "min";
        if (c->type->IsFloat()) {
          auto as_double = [](const ExprInfo& a) {
            return a.value->kind == ConstValue::Kind::Float ? a.value->f
                                                            : static_cast<double>(ExactValue(*a.value, a.type->scalar));
          };
          double x = as_double(args[0]), y = as_double(args[1]);
          c->value = ConstValue::Float(is_min ? std::min(x, y) : std::max(x, y));
        } else {
          ExactInt x = ExactValue(*args[0].value, args[0].type->scalar);
          ExactInt y = ExactValue(*args[1].value, args[1].type->scalar);
          return FoldedInt(e, *c, is_min ? std::min(x, y) : std::max(x, y), c->type->scalar);
        }
      }
      return *c;
    }
    case Builtin::Select: {
      if (!args[0].type->IsBool()) return arg_error(0, "'bool'");
      std::optional<ExprInfo> c = common_of(1);
      if (!c) return ErrorInfo();
      return *c;
    }
    case Builtin::Cdiv: {
      for (int i = 0; i < n; ++i)
        if (!args[i].type->IsInteger()) return arg_error(i, "an integer");
      std::optional<ExprInfo> c = common_of(0);
      if (!c) return ErrorInfo();
      if (args[0].value && args[1].value) {
        ExactInt x = ExactValue(*args[0].value, args[0].type->scalar);
        ExactInt y = ExactValue(*args[1].value, args[1].type->scalar);
        if (y == 0) {
          diags_.Report(e->args[1]->range, DiagKind::DivisionByZero);
          return ErrorInfo();
        }
        return FoldedInt(e, *c, x / y + ((x % y != 0) && ((x < 0) == (y < 0)) ? 1 : 0), c->type->scalar);
      }
      return *c;
    }
    case Builtin::Range: {
      for (int i = 0; i < n; ++i)
        if (!args[i].type->IsInteger()) return arg_error(i, "an integer");
      if (n == 3 && args[2].value && args[2].value->i == 0) {
        diags_.Report(e->args[2]->range, DiagKind::ZeroStep);
        return ErrorInfo();
      }
      std::optional<ExprInfo> c = common_of(0);
      if (!c) return ErrorInfo();
      Type t;
      t.kind = TypeKind::Range;
      // The loop variable takes the arguments' common type (i32 for literals).
      t.scalar = c->untyped_literal ? ScalarKind::I32 : c->type->scalar;
      return ExprInfo{types_.Make(std::move(t)), std::nullopt, false, nullptr};
    }
    case Builtin::Shuffle: {
      const Type* t = args[0].type;
      if (!t->IsNumeric() || (ScalarBits(t->scalar) != 32 && ScalarBits(t->scalar) != 64))
        return arg_error(0, "a 32- or 64-bit number");
      if (!args[1].type->IsInteger()) return arg_error(1, "an integer");
      return Scalar(args[0].untyped_literal ? (t->IsFloat() ? ScalarKind::F32 : ScalarKind::I32) : t->scalar);
    }
    case Builtin::Atomic:
    case Builtin::AtomicCas: {
      Symbol* root = args[0].lvalue_root;
      bool is_element = ast::dyn_cast<ast::IndexExpr>(e->args[0]) != nullptr && root &&
                        root->type->IsTensor() && root->type->scope != MemScope::Register;
      if (!is_element) {
        diags_.Report(e->args[0]->range, DiagKind::AtomicTarget, name);
        return ErrorInfo();
      }
      ScalarKind elem = args[0].type->scalar;
      if (!args[0].type->IsNumeric()) return arg_error(0, "a numeric element");
      for (int i = 1; i < n; ++i)
        if (!Convertible(args[i], elem, e->args[i]->range, "argument")) return ErrorInfo();
      return Scalar(elem);
    }
    case Builtin::Mapping:
    case Builtin::Unroll:
    case Builtin::Mma:
    case Builtin::LdMatrix:
    case Builtin::CpAsync:
    case Builtin::CpAsyncCommit:
    case Builtin::CpAsyncWait:
    case Builtin::None:
      break;
  }
  return ErrorInfo();
}

// Tensor-core and asynchronous-copy built-ins. Fragment operands are whole
// distributed register tensors whose mappings must assign each lane exactly
// the elements the hardware puts in its registers, in register order.
ExprInfo Checker::CheckTensorCoreCall(ast::CallExpr* e, const std::string& name) {
  ExprInfo void_info{types_.Void(), std::nullopt, false, nullptr};
  auto fragment = [&](size_t i, ScalarKind elem, int64_t rows, int64_t cols, const TaskMapping& layout,
                      const char* role) -> bool {
    ast::Expr* arg = e->args[i];
    ExprInfo info = CheckExpr(arg);
    if (info.IsError()) return false;
    const Type* t = info.type;
    bool shape_ok = t->IsTensor() && t->scope == MemScope::Register && t->Rank() == 2 &&
                    t->dims[0] == Dim::Const(rows) && t->dims[1] == Dim::Const(cols) &&
                    t->scalar == elem;
    std::string want = fmt::format("a register {}[{}, {}] {} fragment", ScalarName(elem), rows, cols, role);
    if (!shape_ok || !ast::dyn_cast<ast::NameExpr>(arg)) {
      diags_.Report(arg->range, DiagKind::BuiltinArgType, i + 1, name, want, t->ToString());
      return false;
    }
    if (!t->distributed_by || !SameAssignment(*t->distributed_by, layout)) {
      auto diag = diags_.Report(arg->range, DiagKind::FragmentLayout, i + 1, name, role, layout.ToString());
      if (info.lvalue_root && t->distributed_by)
        diag.Note(info.lvalue_root->decl_range, DiagKind::NoteMappingType, t->distributed_by->TypeString());
      return false;
    }
    return true;
  };
  auto element_of = [&](size_t i, MemScope scope, const char* what) -> std::optional<ExprInfo> {
    ExprInfo info = CheckExpr(e->args[i]);
    if (info.IsError()) return std::nullopt;
    Symbol* root = info.lvalue_root;
    if (!ast::dyn_cast<ast::IndexExpr>(e->args[i]) || !root || !root->type->IsTensor() ||
        root->type->scope != scope) {
      diags_.Report(e->args[i]->range, DiagKind::BuiltinArgType, i + 1, name, what, info.type->ToString());
      return std::nullopt;
    }
    return info;
  };
  // The element type of A (and then B): f16 or bf16, taken from the argument.
  auto input_type = [&](size_t i) {
    const Type* t = e->args.size() > i ? CheckExpr(e->args[i]).type : nullptr;
    return t && t->IsTensor() && t->scalar == ScalarKind::BF16 ? ScalarKind::BF16 : ScalarKind::F16;
  };
  if (name == "mma") {
    // mma(d, a, b, c): d = a * b + c on one m16n8k16 tile (f16 or bf16 in, f32 accumulate).
    ScalarKind in = input_type(1);
    bool ok = fragment(0, ScalarKind::F32, 16, 8, MmaM16N8K16C(), "C/D");
    ok = fragment(1, in, 16, 16, MmaM16N8K16A(), "A") && ok;
    ok = fragment(2, in, 16, 8, MmaM16N8K16B(), "B") && ok;
    ok = fragment(3, ScalarKind::F32, 16, 8, MmaM16N8K16C(), "C/D") && ok;
    return ok ? void_info : ErrorInfo();
  }
  if (name == "ldmatrix") {
    // ldmatrix(a, s, row, col): the A fragment of the 16x16 tile of shared
    // tensor s whose top-left element is s[row, col].
    ScalarKind in = input_type(0);
    bool ok = fragment(0, in, 16, 16, MmaM16N8K16A(), "A");
    ExprInfo s = CheckExpr(e->args[1]);
    if (!s.IsError() && (!s.type->IsTensor() || s.type->scope != MemScope::Shared || s.type->Rank() != 2 ||
                         s.type->scalar != in)) {
      diags_.Report(e->args[1]->range, DiagKind::BuiltinArgType, 2, name,
                    fmt::format("a shared {} matrix", ScalarName(in)), s.type->ToString());
      ok = false;
    }
    ok = !s.IsError() && ok;
    for (size_t i = 2; i < 4; ++i) ok = !CheckConverted(e->args[i], ScalarKind::I32, "argument").IsError() && ok;
    return ok ? void_info : ErrorInfo();
  }
  if (name == "cp_async") {
    // cp_async(s[...], g[...], BYTES): copy BYTES (4, 8 or 16) from global to shared memory.
    auto dst = element_of(0, MemScope::Shared, "an element of a shared tensor");
    auto src = element_of(1, MemScope::Global, "an element of a global tensor");
    std::optional<int64_t> bytes = EvalInt(e->args[2], "the size of cp_async");
    if (!dst || !src || !bytes) return ErrorInfo();
    if (*bytes != 4 && *bytes != 8 && *bytes != 16) {
      diags_.Report(e->args[2]->range, DiagKind::CpAsyncSize, *bytes);
      return ErrorInfo();
    }
    if (dst->type->scalar != src->type->scalar || *bytes % ScalarBytes(dst->type->scalar) != 0) {
      diags_.Report(e->range, DiagKind::BuiltinMixedTypes, name, dst->type->ToString(), src->type->ToString());
      return ErrorInfo();
    }
    return void_info;
  }
  if (name == "cp_async_wait") {
    std::optional<int64_t> n = EvalInt(e->args[0], "the group count of cp_async_wait");
    if (!n) return ErrorInfo();
    if (*n < 0 || *n > 7) {
      diags_.Report(e->args[0]->range, DiagKind::CpAsyncWaitRange, *n);
      return ErrorInfo();
    }
  }
  return void_info;
}

ExprInfo Checker::CheckFuncCall(ast::CallExpr* e, Symbol& func) {
  auto* decl = static_cast<const ast::FuncDecl*>(func.decl);
  if (e->args.size() != decl->params.size()) {
    diags_.Report(e->range, DiagKind::CallArity, e->callee.name, Plural(decl->params.size(), "argument"), e->args.size())
        .Note(func.decl_range, DiagKind::NoteDeclaredHere, e->callee.name);
    return ErrorInfo();
  }
  bool ok = true;
  for (size_t i = 0; i < e->args.size(); ++i) {
    const ast::TypeSpec& want = decl->params[i].type;
    if (!want.is_tensor) {
      ok = !CheckConverted(e->args[i], want.elem, "argument").IsError() && ok;
      continue;
    }
    ExprInfo a = CheckExpr(e->args[i]);
    if (a.IsError()) {
      ok = false;
      continue;
    }
    if (!a.type->IsTensor() || a.type->scalar != want.elem || a.type->Rank() != want.dims.size()) {
      diags_.Report(e->args[i]->range, DiagKind::IncompatibleTypes, "argument", a.type->ToString(),
                    fmt::format("{}[{} dims]", ScalarName(want.elem), want.dims.size()));
      ok = false;
    }
  }
  if (!ok) return ErrorInfo();
  if (!decl->result) return ExprInfo{types_.Void(), std::nullopt, false, nullptr};
  return Scalar(decl->result->elem);
}

}  // namespace tmc::sema
