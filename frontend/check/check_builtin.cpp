// Calls: built-in functions (math, mappings, loop ranges, shuffles,
// atomics), device functions, and the dispatch of op calls to graphs.
#include "frontend/ast/ast_printer.h"
#include "frontend/check/checker.h"
#include "support/float_rounding.h"
#include "support/mma_layouts.h"

namespace tmc::sema {
namespace {

enum class Builtin {
  FloatMath, Abs, MinMax, Fma, Pow, Select, Cdiv, Range, Unroll,
  Shuffle, Atomic, AtomicCas, Mapping, Mma, LdMatrix, CpAsync, Tile, Sizeof, CpAsyncCommit, CpAsyncWait, Wgmma, Mbarrier, Tma, Cluster, None
};

struct BuiltinInfo {
  Builtin kind;
  int min_args;
  int max_args;
  bool device_only;
  // Why it is only available in kernels, not device functions
  // (docs/language.md, §15), or null. The checks and the code for these
  // see the kernel's body as a whole (the warpgroup that issues a wgmma or
  // a setmaxnreg, the registers fenced before a wgmma, the launch bounds
  // setmaxnreg needs, the mbarriers and tensor maps). cluster_rank has its
  // own error, ClusterRankInKernel.
  const char* kernel_only = nullptr;
};

constexpr const char* kWarpgroupBody = "wgmma's warpgroup, fences and groups are checked over the kernel's body";
constexpr const char* kLaunchBoundsBody = "the kernel's launch bounds and warpgroups are checked over its body";
constexpr const char* kTmaStoresBody = "the kernel's tma_stores are checked over its body";
constexpr const char* kKernelBarriers = "its mbarriers and tensor maps are the kernel's";

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
  if (n == "sizeof") return {Builtin::Sizeof, 1, 1, false};
  if (n == "range") return {Builtin::Range, 1, 3, true};
  if (n == "unroll") return {Builtin::Unroll, 1, 1, true};
  if (n == "shfl_xor" || n == "shfl_down" || n == "shfl_up" || n == "shfl_idx")
    return {Builtin::Shuffle, 2, 2, true};
  if (n == "atomic_add" || n == "atomic_min" || n == "atomic_max" || n == "atomic_exch")
    return {Builtin::Atomic, 2, 2, true};
  if (n == "atomic_cas") return {Builtin::AtomicCas, 3, 3, true};
  if (n == "mma") return {Builtin::Mma, 4, 4, true};
  if (n == "ldmatrix") return {Builtin::LdMatrix, 4, 4, true};
  if (n == "cp_async") return {Builtin::CpAsync, 3, 4, true};
  if (n == "tile") return {Builtin::Tile, 5, 5, true};
  if (n == "cp_async_commit") return {Builtin::CpAsyncCommit, 0, 0, true};
  if (n == "cp_async_wait") return {Builtin::CpAsyncWait, 1, 1, true};
  if (n == "wgmma" || n == "wgmma_t") return {Builtin::Wgmma, 3, 4, true, kWarpgroupBody};
  if (n == "mbarrier_arrive") return {Builtin::Mbarrier, 1, 2, true, kKernelBarriers};
  if (n == "mbarrier_init" || n == "mbarrier_arrive_expect_tx" || n == "mbarrier_wait")
    return {Builtin::Mbarrier, 2, 2, true, kKernelBarriers};
  if (n == "tma_load") return {Builtin::Tma, 3, 4, true, kKernelBarriers};
  if (n == "cluster_rank" || n == "cluster_sync") return {Builtin::Cluster, 0, 0, true};
  if (n == "tma_store") return {Builtin::Tma, 2, 2, true, kKernelBarriers};
  if (n == "tma_store_commit") return {Builtin::Tma, 0, 0, true, kTmaStoresBody};
  if (n == "tma_store_wait") return {Builtin::Tma, 1, 1, true, kTmaStoresBody};
  if (n == "wgmma_wait") return {Builtin::Wgmma, 1, 1, true, kWarpgroupBody};
  if (n == "setmaxnreg_inc" || n == "setmaxnreg_dec") return {Builtin::Wgmma, 1, 1, true, kLaunchBoundsBody};
  if (n == "wgmma_fence" || n == "wgmma_commit") return {Builtin::Wgmma, 0, 0, true, kWarpgroupBody};
  if (n == "fence_proxy_async") return {Builtin::Wgmma, 0, 0, true};
  if (n == "spatial" || n == "col_spatial" || n == "repeat" || n == "col_repeat")
    return {Builtin::Mapping, 1, 8, false};
  return {Builtin::None, 0, 0, false};
}

}  // namespace

ExprInfo Checker::CheckCall(ast::CallExpr* e) {
  // `T(x)` with T an element-type parameter of the kernel: a conversion.
  if (auto t = type_bindings_.find(e->callee.name);
      t != type_bindings_.end() && body_ == BodyKind::Kernel && !scope_->Lookup(e->callee.name)) {
    if (e->args.size() != 1) {
      diags_.Report(e->range, DiagKind::BuiltinArity, e->callee.name, Plural(1, "argument"), e->args.size());
      return ErrorInfo();
    }
    ast::CastExpr cast;
    cast.range = e->range;
    cast.to = t->second;
    cast.operand = e->args[0];
    ExprInfo info = CheckCast(&cast);
    if (!info.IsError()) e->cast_to = t->second;
    return info;
  }
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
        if (body_ == BodyKind::Op) return CheckOpFuncCall(e, *s);
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
  if (body_ == BodyKind::Func && b.kernel_only) {
    diags_.Report(e->callee.range, DiagKind::BuiltinOnlyInKernels, name, b.kernel_only);
    return ErrorInfo();
  }
  if (b.kind == Builtin::Mapping) {
    MappingAtom::Kind k = name == "spatial"       ? MappingAtom::Kind::Spatial
                          : name == "col_spatial" ? MappingAtom::Kind::ColSpatial
                          : name == "repeat"      ? MappingAtom::Kind::Repeat
                                                  : MappingAtom::Kind::ColRepeat;
    return CheckMappingPrimitive(e, k);
  }
  if (b.kind == Builtin::Mma || b.kind == Builtin::LdMatrix || b.kind == Builtin::CpAsync || b.kind == Builtin::Tile ||
      b.kind == Builtin::CpAsyncCommit || b.kind == Builtin::CpAsyncWait)
    return CheckTensorCoreCall(e, name);
  if (b.kind == Builtin::Wgmma) return CheckWgmmaCall(e, name);
  if (b.kind == Builtin::Mbarrier) return CheckMbarrierCall(e, name);
  if (b.kind == Builtin::Tma) return CheckTmaCall(e, name);
  if (b.kind == Builtin::Cluster) return CheckClusterCall(e, name);
  if (b.kind == Builtin::Sizeof) {
    // sizeof(T) of an element-type parameter, or sizeof(x) of a scalar
    // value's type: its bytes in memory, a compile-time i32 (for byte
    // counts such as cp_async's in a generic kernel).
    ScalarKind k = ScalarKind::I32;
    auto* n = ast::dyn_cast<ast::NameExpr>(e->args[0]);
    if (auto t = n ? type_bindings_.find(n->name) : type_bindings_.end();
        t != type_bindings_.end() && !scope_->Lookup(n->name)) {
      k = t->second;
    } else {
      ExprInfo v = CheckExpr(e->args[0]);
      if (v.IsError()) return ErrorInfo();
      if (!v.type->IsScalar()) {
        diags_.Report(e->args[0]->range, DiagKind::BuiltinArgType, 1, name, "an element-type parameter or a scalar value",
                      v.type->ToString());
        return ErrorInfo();
      }
      k = v.type->scalar;
    }
    return ExprInfo{types_.Scalar(ScalarKind::I32), ConstValue::Int(ScalarBytes(k)), false, nullptr};
  }
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
          double m = is_min ? std::min(x, y) : std::max(x, y);
          // Typed: compared and returned as the type holds them.
          if (!c->untyped_literal) {
            x = RoundedToFloatType(c->type->scalar, x), y = RoundedToFloatType(c->type->scalar, y);
            m = is_min ? std::min(x, y) : std::max(x, y);
          }
          c->value = ConstValue::Float(m);
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
      // Folded as `c ? a : b` is: the chosen constant as the type holds it.
      if (args[0].value && args[1].value && args[2].value) {
        c->value = args[0].value->b ? args[1].value : args[2].value;
        if (!c->untyped_literal && c->type->IsFloat() && c->value->kind == ConstValue::Kind::Float)
          c->value = ConstValue::Float(RoundedToFloatType(c->type->scalar, c->value->f));
      }
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
    case Builtin::Wgmma:
    case Builtin::Mbarrier:
    case Builtin::Tma:
    case Builtin::Cluster:
    case Builtin::Tile:
    case Builtin::Sizeof:
    case Builtin::None:
      break;
  }
  return ErrorInfo();
}

// Tensor-core and asynchronous-copy built-ins. A fragment operand is a
// distributed register tensor, or a region of one (`tile(x, R, C, i, j)`),
// made of copies of the hardware's fragment: every lane holds exactly the
// hardware's elements of each copy, in register order (docs/language.md,
// "Fragment tiles").
std::optional<Checker::FragmentOperand> Checker::CheckFragmentOperand(ast::CallExpr* call, size_t i,
                                                                      const FragmentKind& kind) {
  ast::Expr* arg = call->args[i];
  const std::string& name = call->callee.name;
  ast::Expr* tensor = arg;
  auto* tile = ast::dyn_cast<ast::CallExpr>(arg);
  if (tile && tile->callee.name == "tile" && !scope_->Lookup("tile")) {
    if (tile->args.size() != 5) {
      diags_.Report(tile->range, DiagKind::BuiltinArity, "tile", Plural(5, "argument"), tile->args.size());
      return std::nullopt;
    }
    tensor = tile->args[0];
  } else {
    tile = nullptr;
  }
  ExprInfo info = CheckExpr(tensor);
  if (info.IsError()) return std::nullopt;
  const Type* t = info.type;
  std::string want = fmt::format("a register {} tensor of {} fragments", kind.elem_names, kind.role);
  bool type_ok = t->IsTensor() && t->scope == MemScope::Register && t->Rank() == 2 && t->dims[0].is_const &&
                 t->dims[1].is_const && kind.Accepts(t->scalar) && ast::dyn_cast<ast::NameExpr>(tensor);
  if (!type_ok) {
    diags_.Report(tensor->range, DiagKind::BuiltinArgType, i + 1, name, want, t->ToString());
    return std::nullopt;
  }
  std::optional<std::vector<FragmentPiece>> pieces;
  if (t->distributed_by)
    pieces = kind.ldmatrix ? SplitIntoLdMatrices(*t->distributed_by) : SplitIntoFragments(*t->distributed_by, kind.layout);
  if (!pieces) {
    auto diag = diags_.Report(tensor->range, DiagKind::FragmentLayout, i + 1, name, kind.role, kind.layout.ToString());
    if (info.lvalue_root && t->distributed_by)
      diag.Note(info.lvalue_root->decl_range, DiagKind::NoteMappingType, t->distributed_by->TypeString());
    return std::nullopt;
  }
  FragmentOperand out{t, t->dims[0].value, t->dims[1].value, {}};
  if (tile) {
    std::optional<int64_t> rows = EvalInt(tile->args[1], "the rows of a tile");
    std::optional<int64_t> cols = EvalInt(tile->args[2], "the columns of a tile");
    bool ok = rows && cols;
    for (size_t k = 3; k < 5; ++k) ok = !CheckConverted(tile->args[k], ScalarKind::I32, "tile index").IsError() && ok;
    if (!ok) return std::nullopt;
    std::optional<RegionPieces> regions;
    if (*rows > 0 && *cols > 0)
      regions = UniformRegions(*pieces, kind.rows, kind.cols, out.rows, out.cols, *rows, *cols);
    if (!regions) {
      diags_.Report(tile->range, DiagKind::TileNotFragments, *rows, *cols, t->ToString(), kind.role, kind.rows,
                    kind.cols);
      return std::nullopt;
    }
    for (size_t k = 3; k < 5; ++k) {
      int64_t count = (k == 3 ? out.rows / *rows : out.cols / *cols);
      auto it = module_.constants.find(tile->args[k]);
      if (it != module_.constants.end() && it->second.kind == ConstValue::Kind::Int &&
          (it->second.i < 0 || it->second.i >= count)) {
        diags_.Report(tile->args[k]->range, DiagKind::IndexOutOfBounds, std::to_string(it->second.i), k - 3, count);
        return std::nullopt;
      }
    }
    out.rows = *rows;
    out.cols = *cols;
  }
  return out;
}

ExprInfo Checker::CheckTensorCoreCall(ast::CallExpr* e, const std::string& name) {
  ExprInfo void_info{types_.Void(), std::nullopt, false, nullptr};
  auto element_of = [&](size_t i, MemScope scope, const char* what) -> std::optional<ExprInfo> {
    ExprInfo info = CheckExpr(e->args[i]);
    if (info.IsError()) return std::nullopt;
    Symbol* root = info.lvalue_root;
    if (!ast::dyn_cast<ast::IndexExpr>(e->args[i]) || !root || !root->type->IsTensor() ||
        root->type->scope != scope || info.type->IsTensor()) {
      diags_.Report(e->args[i]->range, DiagKind::BuiltinArgType, i + 1, name, what, info.type->ToString());
      return std::nullopt;
    }
    return info;
  };
  // The element type of A (and then B): f16 or bf16, taken from the argument.
  auto input_type = [&](size_t i) {
    ast::Expr* a = e->args.size() > i ? e->args[i] : nullptr;
    if (auto* tile = a ? ast::dyn_cast<ast::CallExpr>(a) : nullptr; tile && tile->callee.name == "tile" && !tile->args.empty())
      a = tile->args[0];
    const Type* t = a ? CheckExpr(a).type : nullptr;
    return t && t->IsTensor() && t->scalar == ScalarKind::BF16 ? ScalarKind::BF16 : ScalarKind::F16;
  };
  if (name == "mma") {
    // mma(d, a, b, c): d = a * b + c over fragment tiles, in m16n8k16 steps
    // (f16 or bf16 in, f32 accumulate).
    ScalarKind in = input_type(1);
    FragmentKind c_kind{MmaM16N8K16C(), "C/D", "f32", {ScalarKind::F32}, 16, 8, false};
    FragmentKind a_kind{MmaM16N8K16A(), "A", std::string(ScalarName(in)), {in}, 16, 16, false};
    FragmentKind b_kind{MmaM16N8K16B(), "B", std::string(ScalarName(in)), {in}, 16, 8, false};
    auto d = CheckFragmentOperand(e, 0, c_kind);
    auto a = CheckFragmentOperand(e, 1, a_kind);
    auto b = CheckFragmentOperand(e, 2, b_kind);
    auto c = CheckFragmentOperand(e, 3, c_kind);
    if (!d || !a || !b || !c) return ErrorInfo();
    if (d->rows != a->rows || a->cols != b->rows || d->cols != b->cols || c->rows != d->rows || c->cols != d->cols) {
      diags_.Report(e->range, DiagKind::MmaShapes, d->rows, d->cols, a->rows, a->cols, b->rows, b->cols, c->rows,
                    c->cols);
      return ErrorInfo();
    }
    return void_info;
  }
  if (name == "ldmatrix") {
    // ldmatrix(x, s, row, col): x[i, j] = s[row + i, col + j], in 8x8
    // matrices (x1, x2, x4; .trans where x holds them transposed).
    ScalarKind in = input_type(0);
    FragmentKind kind{LdMatrixLayout(false), "ldmatrix 8x8", "f16 or bf16", {ScalarKind::F16, ScalarKind::BF16}, 8, 8,
                      true};
    auto x = CheckFragmentOperand(e, 0, kind);
    ExprInfo s = CheckExpr(e->args[1]);
    bool ok = x.has_value();
    if (!s.IsError() && (!s.type->IsTensor() || s.type->scope != MemScope::Shared || s.type->Rank() != 2 ||
                         s.type->scalar != in)) {
      diags_.Report(e->args[1]->range, DiagKind::BuiltinArgType, 2, name,
                    fmt::format("a shared {} matrix", ScalarName(in)), s.type->ToString());
      ok = false;
    }
    ok = !s.IsError() && ok;
    for (size_t i = 2; i < 4; ++i) ok = !CheckConverted(e->args[i], ScalarKind::I32, "argument").IsError() && ok;
    // Every row ldmatrix reads is 8 contiguous elements, 16 bytes, that
    // must start 16-byte aligned. Of a tile whose rows are contiguous
    // (row-major, strided(S, 1), a swizzle of 8-element chunks or more)
    // it reads rows: rows a multiple of 16 bytes apart, and a column that
    // is a multiple of 8. Of one whose columns are contiguous (col-major,
    // strided(1, S)) it reads columns, which loads the transposed matrices
    // (the compiler flips .trans): columns 16 bytes apart, a row that is a
    // multiple of 8. What is not constant is checked at run time by tmc run.
    if (ok) {
      const Layout& L = s.type->layout;
      auto arg = [&](size_t i) -> std::optional<int64_t> {
        if (i < L.args.size() && L.args[i].is_const) return L.args[i].value;
        return std::nullopt;
      };
      bool rows = L.kind == Layout::Kind::RowMajor || (L.kind == Layout::Kind::Strided && arg(1) == 1) ||
                  (L.kind == Layout::Kind::Swizzle && arg(1) >= 3);
      bool cols = !rows && (L.kind == Layout::Kind::ColMajor || (L.kind == Layout::Kind::Strided && arg(0) == 1));
      std::optional<int64_t> pitch;  // elements between the rows (columns) read
      if (L.kind == Layout::Kind::RowMajor || L.kind == Layout::Kind::Swizzle) {
        if (s.type->dims[1].is_const) pitch = s.type->dims[1].value;
      } else if (L.kind == Layout::Kind::ColMajor) {
        if (s.type->dims[0].is_const) pitch = s.type->dims[0].value;
      } else if (L.kind == Layout::Kind::Strided) {
        pitch = rows ? arg(0) : arg(1);
      }
      if (!rows && !cols) {
        diags_.Report(e->args[1]->range, DiagKind::LdMatrixLayout, ast::PrintExpr(e->args[1]), L.ToString());
        ok = false;
      } else if (pitch && *pitch * 2 % 16 != 0) {
        diags_.Report(e->args[1]->range, rows ? DiagKind::LdMatrixRowStride : DiagKind::LdMatrixColumnStride,
                      ast::PrintExpr(e->args[1]), *pitch * 2);
        ok = false;
      }
      const ast::Expr* along = e->args[rows ? 3 : 2];
      auto c = module_.constants.find(along);
      if (ok && c != module_.constants.end() && c->second.kind == ConstValue::Kind::Int && c->second.i % 8 != 0) {
        diags_.Report(along->range, rows ? DiagKind::LdMatrixColumn : DiagKind::LdMatrixRow, c->second.i);
        ok = false;
      }
    }
    return ok ? void_info : ErrorInfo();
  }
  if (name == "cp_async") {
    // cp_async(s[...], g[...], BYTES [, SRC]): copy BYTES (4, 8 or 16) from
    // global to shared memory; with SRC (a bool, or a byte count) only
    // that much is read and the rest of the destination is zero-filled.
    auto dst = element_of(0, MemScope::Shared, "an element of a shared tensor");
    auto src = element_of(1, MemScope::Global, "an element of a global tensor");
    std::optional<int64_t> bytes = EvalInt(e->args[2], "the size of cp_async");
    bool src_ok = true;
    if (e->args.size() == 4) {
      ExprInfo n = CheckExpr(e->args[3]);
      if (!n.IsError() && !n.type->IsBool() && !n.type->IsInteger()) {
        diags_.Report(e->args[3]->range, DiagKind::BuiltinArgType, 4, name, "a bool or an integer byte count",
                      n.type->ToString());
        src_ok = false;
      }
      src_ok = src_ok && !n.IsError();
    }
    if (!dst || !src || !bytes || !src_ok) return ErrorInfo();
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
  if (name == "tile") {
    diags_.Report(e->range, DiagKind::TileOutsideFragmentCall);
    return ErrorInfo();
  }
  return void_info;
}

namespace {

bool IsMathBuiltin(const std::string& n) {
  BuiltinInfo b = LookupBuiltin(n);
  switch (b.kind) {
    case Builtin::FloatMath: case Builtin::Abs: case Builtin::MinMax: case Builtin::Fma: case Builtin::Pow:
    case Builtin::Select: case Builtin::Cdiv:
      return true;
    default: return false;
  }
}

// Why `f` cannot be called from an op (empty: it can). An op is a pure
// definition evaluated per element: a function it calls computes a scalar
// from scalars with `let`, `if` and `return` only.
std::string WhyNotOpCallable(const ast::FuncDecl* f, int depth = 0);

std::string WhyNotOpCallableExpr(const ast::Expr* e, int depth) {
  if (!e) return {};
  switch (e->kind) {
    case ast::ExprKind::Name: {
      const std::string& n = static_cast<const ast::NameExpr*>(e)->name;
      if (n == "warp_id" || n == "lane_id") return "it uses '" + n + "'";
      return {};
    }
    case ast::ExprKind::Member: return "it uses '" + ast::PrintExpr(e) + "'";
    case ast::ExprKind::Index: return "it reads a tensor";
    case ast::ExprKind::Unary: return WhyNotOpCallableExpr(static_cast<const ast::UnaryExpr*>(e)->operand, depth);
    case ast::ExprKind::Binary: {
      auto* b = static_cast<const ast::BinaryExpr*>(e);
      std::string why = WhyNotOpCallableExpr(b->lhs, depth);
      return why.empty() ? WhyNotOpCallableExpr(b->rhs, depth) : why;
    }
    case ast::ExprKind::Ternary: {
      auto* t = static_cast<const ast::TernaryExpr*>(e);
      for (const ast::Expr* x : {t->cond, t->then_value, t->else_value})
        if (std::string why = WhyNotOpCallableExpr(x, depth); !why.empty()) return why;
      return {};
    }
    case ast::ExprKind::Cast: return WhyNotOpCallableExpr(static_cast<const ast::CastExpr*>(e)->operand, depth);
    case ast::ExprKind::Call: {
      auto* c = static_cast<const ast::CallExpr*>(e);
      for (const ast::Expr* x : c->args)
        if (std::string why = WhyNotOpCallableExpr(x, depth); !why.empty()) return why;
      if (IsMathBuiltin(c->callee.name)) return {};
      if (c->func) {
        // The functions being examined, outermost first: a call back into
        // one of them is recursion, which an op cannot evaluate.
        thread_local std::vector<const ast::FuncDecl*> chain;
        if (std::find(chain.begin(), chain.end(), c->func) != chain.end()) return "it is recursive";
        if (depth > 16) return "its calls nest too deeply";
        chain.push_back(c->func);
        std::string why = WhyNotOpCallable(c->func, depth + 1);
        chain.pop_back();
        return why.empty() ? why : "it calls '" + c->callee.name + "', and " + why;
      }
      return "it calls '" + c->callee.name + "'";
    }
    default: return {};
  }
}

std::string WhyNotOpCallableStmt(const ast::Stmt* s, int depth) {
  switch (s->kind) {
    case ast::StmtKind::Let: return WhyNotOpCallableExpr(static_cast<const ast::LetStmt*>(s)->init, depth);
    case ast::StmtKind::Return: return WhyNotOpCallableExpr(static_cast<const ast::ReturnStmt*>(s)->value, depth);
    case ast::StmtKind::Block:
      for (const ast::Stmt* x : static_cast<const ast::BlockStmt*>(s)->stmts)
        if (std::string why = WhyNotOpCallableStmt(x, depth); !why.empty()) return why;
      return {};
    case ast::StmtKind::If: {
      auto* i = static_cast<const ast::IfStmt*>(s);
      if (std::string why = WhyNotOpCallableExpr(i->cond, depth); !why.empty()) return why;
      if (std::string why = WhyNotOpCallableStmt(i->then_body, depth); !why.empty()) return why;
      return i->else_body ? WhyNotOpCallableStmt(i->else_body, depth) : std::string();
    }
    case ast::StmtKind::For: return "it has a 'for' loop";
    case ast::StmtKind::While: return "it has a 'while' loop";
    case ast::StmtKind::Var: return "it declares a 'var'";
    case ast::StmtKind::Assign: return "it assigns";
    case ast::StmtKind::Sync: return "it has a 'sync'";
    default: return "it has a '" + std::string("statement") + "' other than let, if and return";
  }
}

std::string WhyNotOpCallable(const ast::FuncDecl* f, int depth) {
  if (!f->result || f->result->is_tensor) return "it has no scalar result";
  for (const ast::Param& p : f->params)
    if (p.type.is_tensor) return "its parameter '" + p.name.name + "' is a tensor";
  return WhyNotOpCallableStmt(f->body, depth);
}

}  // namespace

// A function called from an op body: a scalar formula (`gelu(x)`) written
// once for ops and kernels alike. The evaluators of op references run its
// `let`/`if`/`return` body (ir/reference_eval.cpp).
ExprInfo Checker::CheckOpFuncCall(ast::CallExpr* e, Symbol& func) {
  auto* decl = static_cast<const ast::FuncDecl*>(func.decl);
  // Functions are checked before ops, so its own calls are resolved.
  std::string why = WhyNotOpCallable(decl);
  if (!why.empty()) {
    diags_.Report(e->callee.range, DiagKind::FuncNotOpCallable, e->callee.name, why)
        .Note(func.decl_range, DiagKind::NoteDeclaredHere, e->callee.name);
    return ErrorInfo();
  }
  return CheckFuncCall(e, func);
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
    if (a.type->IsTensor() && a.type->mbarrier) {  // its words are not data
      diags_.Report(e->args[i]->range, DiagKind::MbarrierElementUse, ast::PrintExpr(e->args[i]));
      ok = false;
      continue;
    }
    if (a.type->IsTensor() && a.type->tma) {  // the kernel has a tensor map, not the elements
      diags_.Report(e->args[i]->range, DiagKind::TmaParamUse, ast::PrintExpr(e->args[i]));
      ok = false;
      continue;
    }
    if (!a.type->IsTensor() || a.type->scalar != want.elem || a.type->Rank() != want.dims.size()) {
      diags_.Report(e->args[i]->range, DiagKind::IncompatibleTypes, "argument", a.type->ToString(),
                    fmt::format("{}[{} dims]", ScalarName(want.elem), want.dims.size()));
      ok = false;
      continue;
    }
    ast::Expr* by = decl->params[i].by;
    if (!by) {
      // A plain tensor parameter is a tensor in global memory; a `shared`
      // one, a shared tensor (or a view of one).
      MemScope want_scope = decl->params[i].shared ? MemScope::Shared : MemScope::Global;
      if (a.type->scope != want_scope) {
        diags_.Report(e->args[i]->range, DiagKind::FuncArgScope, i + 1, e->callee.name,
                      want_scope == MemScope::Shared ? "a shared tensor" : "a global tensor", a.type->ToString());
        ok = false;
      } else if (a.type->layout.kind != Layout::Kind::RowMajor) {
        // The function indexes its parameter row-major.
        diags_.Report(e->args[i]->range, DiagKind::FuncArgLayout, i + 1, e->callee.name,
                      Layout::KindName(a.type->layout.kind));
        ok = false;
      }
      continue;
    }
    // A fragment parameter: the same register tensor, distributed alike.
    const CheckedModule* owner = func.module ? func.module : &module_;
    auto m = owner->constants.find(by);
    if (m == owner->constants.end() || m->second.kind != ConstValue::Kind::Mapping) {
      ok = false;  // the parameter's own error was reported
      continue;
    }
    const TaskMapping& want_map = *m->second.m;
    bool same = a.type->scope == MemScope::Register && a.type->distributed_by &&
                SameAssignment(*a.type->distributed_by, want_map) && ast::dyn_cast<ast::NameExpr>(e->args[i]);
    for (size_t k = 0; same && k < want.dims.size(); ++k) same = a.type->dims[k] == Dim::Const(want_map.Shape()[k]);
    if (!same) {
      diags_.Report(e->args[i]->range, DiagKind::FuncArgNotFragment, i + 1, e->callee.name, want_map.ToString(),
                    a.type->ToString());
      ok = false;
    }
  }
  if (!ok) return ErrorInfo();
  e->func = decl;
  if (!decl->result) return ExprInfo{types_.Void(), std::nullopt, false, nullptr};
  return Scalar(decl->result->elem);
}

}  // namespace tmc::sema
