// A tree-walking evaluator over the op's AST: ops are small, and the
// reference needs to be obviously right rather than fast. Index variables
// of `let` intermediates get their extents the way the checker infers
// them: from the tensor dimension they index directly.
#include "ir/reference_eval.h"

#include <cmath>
#include <optional>
#include <functional>
#include <map>

#include "frontend/ast/ast_printer.h"
#include "support/float_rounding.h"

namespace tmc::ir {
namespace {

struct Env {
  std::map<std::string, const HostTensor*> tensors;
  std::map<std::string, double> scalars;  // shape symbols, scalar params, index variables
};

struct Failure {
  std::string what;
};

}  // namespace

// An integer conversion wraps to the width of the target type, as the
// kernels do (docs/language.md §5); a float is first truncated toward zero.
double ConvertToInteger(double v, ScalarKind to) {
  v = std::trunc(v);
  if (!std::isfinite(v) || std::abs(v) >= 0x1p63) return v;  // undefined in kernels: left as is
  int bits = ScalarBits(to);
  uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(v));
  if (bits < 64) u &= (uint64_t{1} << bits) - 1;
  if (IsSigned(to) && bits < 64 && (u >> (bits - 1)) != 0) return static_cast<double>(static_cast<int64_t>(u | ~((uint64_t{1} << bits) - 1)));
  if (IsSigned(to)) return static_cast<double>(static_cast<int64_t>(u));
  return static_cast<double>(u);
}

namespace {

class Evaluator {
 public:
  explicit Evaluator(Env& env, int64_t* flops = nullptr) : env_(env), flops_(flops) {}

  double Eval(const ast::Expr* e) {
    switch (e->kind) {
      case ast::ExprKind::IntLit: return static_cast<double>(static_cast<const ast::IntLit*>(e)->value);
      case ast::ExprKind::FloatLit: return static_cast<const ast::FloatLit*>(e)->value;
      case ast::ExprKind::BoolLit: return static_cast<const ast::BoolLit*>(e)->value ? 1 : 0;
      case ast::ExprKind::Name: {
        const std::string& n = static_cast<const ast::NameExpr*>(e)->name;
        auto it = env_.scalars.find(n);
        if (it != env_.scalars.end()) return it->second;
        auto t = env_.tensors.find(n);
        if (t != env_.tensors.end() && t->second->shape.empty()) return t->second->values[0];
        if (n == "inf") return INFINITY;
        throw Failure{"unknown name '" + n + "'"};
      }
      case ast::ExprKind::Index: {
        auto* i = static_cast<const ast::IndexExpr*>(e);
        auto* base = ast::dyn_cast<ast::NameExpr>(i->base);
        auto t = base ? env_.tensors.find(base->name) : env_.tensors.end();
        if (t == env_.tensors.end()) throw Failure{"indexing a non-tensor"};
        const HostTensor& ht = *t->second;
        int64_t off = 0;
        for (size_t k = 0; k < i->indices.size(); ++k) {
          int64_t v = static_cast<int64_t>(Eval(i->indices[k]));
          if (v < 0 || v >= ht.shape[k])
            throw Failure{"index out of range in the op: " + ast::PrintExpr(e) + ": " + ast::PrintExpr(i->indices[k]) +
                          " is " + std::to_string(v) + ", outside dimension " + std::to_string(k) + " of extent " +
                          std::to_string(ht.shape[k])};
          off = off * ht.shape[k] + v;
        }
        return ht.values[static_cast<size_t>(off)];
      }
      case ast::ExprKind::Unary: {
        auto* u = static_cast<const ast::UnaryExpr*>(e);
        double v = Eval(u->operand);
        switch (u->op) {
          case ast::UnaryOp::Neg: return e->type && e->type->IsInteger() ? ConvertToInteger(-v, e->type->scalar) : -v;
          case ast::UnaryOp::Plus: return v;
          case ast::UnaryOp::Not: return v == 0 ? 1 : 0;
          case ast::UnaryOp::BitNot:
            return e->type && e->type->IsInteger() ? ConvertToInteger(-v - 1, e->type->scalar)
                                                   : static_cast<double>(~static_cast<int64_t>(v));
        }
        break;
      }
      case ast::ExprKind::Binary: return Binary(static_cast<const ast::BinaryExpr*>(e));
      case ast::ExprKind::Ternary: {
        auto* t = static_cast<const ast::TernaryExpr*>(e);
        return Eval(t->cond) != 0 ? Eval(t->then_value) : Eval(t->else_value);
      }
      case ast::ExprKind::Cast: {
        auto* c = static_cast<const ast::CastExpr*>(e);
        double v = Eval(c->operand);
        if (c->to == ScalarKind::Bool) return v != 0 ? 1 : 0;
        if (IsInteger(c->to)) return ConvertToInteger(v, c->to);
        // A written conversion to a narrower float rounds, as in kernels
        // (`f32(bf16(x))` quantizes); everything else stays f64.
        return RoundedToFloatType(c->to, v);
      }
      case ast::ExprKind::Call: return Call(static_cast<const ast::CallExpr*>(e));
      case ast::ExprKind::Reduce: return Reduce(static_cast<const ast::ReduceExpr*>(e));
      case ast::ExprKind::Member: break;
    }
    throw Failure{"unsupported expression in an op: " + ast::PrintExpr(e)};
  }

  int64_t Extent(const ast::Expr* e) { return static_cast<int64_t>(Eval(e)); }

 private:
  double Binary(const ast::BinaryExpr* b) {
    if (b->op == ast::BinaryOp::And) return Eval(b->lhs) != 0 && Eval(b->rhs) != 0;
    if (b->op == ast::BinaryOp::Or) return Eval(b->lhs) != 0 || Eval(b->rhs) != 0;
    double x = Eval(b->lhs), y = Eval(b->rhs);
    bool integer = b->type && b->type->IsInteger();
    if (integer && y == 0 && (b->op == ast::BinaryOp::Div || b->op == ast::BinaryOp::Mod))
      throw Failure{"integer division by zero in the op: " + ast::PrintExpr(b)};
    if (flops_ && !integer && (b->op == ast::BinaryOp::Add || b->op == ast::BinaryOp::Sub ||
                               b->op == ast::BinaryOp::Mul || b->op == ast::BinaryOp::Div))
      ++*flops_;
    double r = BinaryValue(b->op, x, y, integer);
    // Integer arithmetic wraps in the width of its type, as kernels do.
    bool arithmetic = !IsComparisonOp(b->op);
    return integer && arithmetic ? ConvertToInteger(r, b->type->scalar) : r;
  }

  static bool IsComparisonOp(ast::BinaryOp op) {
    return op == ast::BinaryOp::Lt || op == ast::BinaryOp::Le || op == ast::BinaryOp::Gt || op == ast::BinaryOp::Ge ||
           op == ast::BinaryOp::Eq || op == ast::BinaryOp::Ne;
  }

  static double BinaryValue(ast::BinaryOp op, double x, double y, bool integer) {
    switch (op) {
      case ast::BinaryOp::Add: return x + y;
      case ast::BinaryOp::Sub: return x - y;
      case ast::BinaryOp::Mul: return x * y;
      case ast::BinaryOp::Div: return integer ? std::trunc(x / y) : x / y;
      case ast::BinaryOp::Mod: return std::fmod(x, y);
      case ast::BinaryOp::Lt: return x < y;
      case ast::BinaryOp::Le: return x <= y;
      case ast::BinaryOp::Gt: return x > y;
      case ast::BinaryOp::Ge: return x >= y;
      case ast::BinaryOp::Eq: return x == y;
      case ast::BinaryOp::Ne: return x != y;
      case ast::BinaryOp::Shl: return static_cast<double>(static_cast<int64_t>(x) << static_cast<int64_t>(y));
      case ast::BinaryOp::Shr: return static_cast<double>(static_cast<int64_t>(x) >> static_cast<int64_t>(y));
      case ast::BinaryOp::BitAnd: return static_cast<double>(static_cast<int64_t>(x) & static_cast<int64_t>(y));
      case ast::BinaryOp::BitXor: return static_cast<double>(static_cast<int64_t>(x) ^ static_cast<int64_t>(y));
      case ast::BinaryOp::BitOr: return static_cast<double>(static_cast<int64_t>(x) | static_cast<int64_t>(y));
      default: break;
    }
    return 0;
  }

  double Call(const ast::CallExpr* c) {
    const std::string& n = c->callee.name;
    std::vector<double> a;
    for (const ast::Expr* x : c->args) a.push_back(Eval(x));
    static const std::map<std::string, std::function<double(const std::vector<double>&)>> kFns = {
        {"exp", [](auto& v) { return std::exp(v[0]); }}, {"exp2", [](auto& v) { return std::exp2(v[0]); }},
        {"log", [](auto& v) { return std::log(v[0]); }}, {"log2", [](auto& v) { return std::log2(v[0]); }},
        {"sqrt", [](auto& v) { return std::sqrt(v[0]); }}, {"rsqrt", [](auto& v) { return 1.0 / std::sqrt(v[0]); }},
        {"tanh", [](auto& v) { return std::tanh(v[0]); }}, {"erf", [](auto& v) { return std::erf(v[0]); }},
        {"sin", [](auto& v) { return std::sin(v[0]); }}, {"cos", [](auto& v) { return std::cos(v[0]); }},
        {"floor", [](auto& v) { return std::floor(v[0]); }}, {"ceil", [](auto& v) { return std::ceil(v[0]); }},
        {"sigmoid", [](auto& v) { return 1.0 / (1.0 + std::exp(-v[0])); }},
        {"abs", [](auto& v) { return std::fabs(v[0]); }}, {"min", [](auto& v) { return std::min(v[0], v[1]); }},
        {"max", [](auto& v) { return std::max(v[0], v[1]); }}, {"fma", [](auto& v) { return v[0] * v[1] + v[2]; }},
        {"pow", [](auto& v) { return std::pow(v[0], v[1]); }},
        {"select", [](auto& v) { return v[0] != 0 ? v[1] : v[2]; }},
        {"cdiv", [](auto& v) { return std::ceil(v[0] / v[1]); }}};
    if (c->func) return CallFunc(*c->func, a);
    auto it = kFns.find(n);
    if (it == kFns.end()) throw Failure{"'" + n + "' cannot be evaluated in an op"};
    if (flops_ && n != "select" && n != "cdiv") ++*flops_;
    return it->second(a);
  }

  // A function called from the op (checked to be `let`, `if` and
  // `return` over scalars): runs with its parameters as the only names.
  static double Convert(double v, ScalarKind to) {
    if (to == ScalarKind::Bool) return v != 0 ? 1 : 0;
    return IsInteger(to) ? ConvertToInteger(v, to) : v;
  }
  double CallFunc(const ast::FuncDecl& f, const std::vector<double>& args) {
    if (++call_depth_ > 64) throw Failure{"function calls nest too deeply in the op"};
    std::map<std::string, double> caller;
    caller.swap(env_.scalars);
    for (size_t i = 0; i < f.params.size(); ++i) env_.scalars[f.params[i].name.name] = Convert(args[i], f.params[i].type.elem);
    std::optional<double> r = Run(f.body);
    env_.scalars.swap(caller);
    --call_depth_;
    if (!r) throw Failure{"function '" + f.name.name + "' ended without returning"};
    return Convert(*r, f.result->elem);
  }
  std::optional<double> Run(const ast::Stmt* s) {
    switch (s->kind) {
      case ast::StmtKind::Let: {
        auto* l = static_cast<const ast::LetStmt*>(s);
        double v = Eval(l->init);
        env_.scalars[l->name.name] = l->type ? Convert(v, l->type->elem) : v;
        return std::nullopt;
      }
      case ast::StmtKind::Return: return Eval(static_cast<const ast::ReturnStmt*>(s)->value);
      case ast::StmtKind::Block:
        for (const ast::Stmt* x : static_cast<const ast::BlockStmt*>(s)->stmts)
          if (auto r = Run(x)) return r;
        return std::nullopt;
      case ast::StmtKind::If: {
        auto* i = static_cast<const ast::IfStmt*>(s);
        if (Eval(i->cond) != 0) return Run(i->then_body);
        return i->else_body ? Run(i->else_body) : std::nullopt;
      }
      default: throw Failure{"unsupported statement in a function called from an op"};
    }
  }

  double Reduce(const ast::ReduceExpr* r) {
    std::vector<int64_t> extents;
    for (const auto& v : r->vars) extents.push_back(Extent(v.extent));
    const std::string& op = r->reducer.name;
    double acc = op == "sum" ? 0.0 : op == "prod" ? 1.0 : op == "max" ? -INFINITY : INFINITY;
    std::vector<int64_t> idx(extents.size(), 0);
    for (int64_t e : extents)
      if (e <= 0) return acc;
    while (true) {
      for (size_t k = 0; k < idx.size(); ++k) env_.scalars[r->vars[k].name.name] = static_cast<double>(idx[k]);
      double v = Eval(r->body);
      if (flops_) ++*flops_;  // the accumulation
      bool wrap = r->type && r->type->IsInteger();
      if (op == "sum") acc = wrap ? ConvertToInteger(acc + v, r->type->scalar) : acc + v;
      else if (op == "prod") acc = wrap ? ConvertToInteger(acc * v, r->type->scalar) : acc * v;
      else if (op == "max") acc = std::max(acc, v);
      else acc = std::min(acc, v);
      size_t k = idx.size();
      while (k-- > 0) {
        if (++idx[k] < extents[k]) break;
        idx[k] = 0;
      }
      if (k == static_cast<size_t>(-1)) break;
    }
    for (const auto& v : r->vars) env_.scalars.erase(v.name.name);
    return acc;
  }

  Env& env_;
  int call_depth_ = 0;
  int64_t* flops_;
};

// The extent of index `var` in `e`: the first tensor dimension it indexes.
std::optional<int64_t> FindExtent(const ast::Expr* e, const std::string& var, const Env& env) {
  if (!e) return std::nullopt;
  if (auto* i = ast::dyn_cast<ast::IndexExpr>(e)) {
    auto* base = ast::dyn_cast<ast::NameExpr>(i->base);
    auto t = base ? env.tensors.find(base->name) : env.tensors.end();
    for (size_t k = 0; k < i->indices.size(); ++k) {
      auto* n = ast::dyn_cast<ast::NameExpr>(i->indices[k]);
      if (n && n->name == var && t != env.tensors.end() && k < t->second->shape.size()) return t->second->shape[k];
      if (auto r = FindExtent(i->indices[k], var, env)) return r;
    }
    return std::nullopt;
  }
  switch (e->kind) {
    case ast::ExprKind::Unary: return FindExtent(static_cast<const ast::UnaryExpr*>(e)->operand, var, env);
    case ast::ExprKind::Cast: return FindExtent(static_cast<const ast::CastExpr*>(e)->operand, var, env);
    case ast::ExprKind::Binary: {
      auto* b = static_cast<const ast::BinaryExpr*>(e);
      if (auto r = FindExtent(b->lhs, var, env)) return r;
      return FindExtent(b->rhs, var, env);
    }
    case ast::ExprKind::Ternary: {
      auto* t = static_cast<const ast::TernaryExpr*>(e);
      for (const ast::Expr* x : {t->cond, t->then_value, t->else_value})
        if (auto r = FindExtent(x, var, env)) return r;
      return std::nullopt;
    }
    case ast::ExprKind::Call:
      for (const ast::Expr* x : static_cast<const ast::CallExpr*>(e)->args)
        if (auto r = FindExtent(x, var, env)) return r;
      return std::nullopt;
    case ast::ExprKind::Reduce: return FindExtent(static_cast<const ast::ReduceExpr*>(e)->body, var, env);
    default: return std::nullopt;
  }
}

// Fills `t` (already shaped) by evaluating `value` at every index.
void Fill(HostTensor& t, const std::vector<ast::Ident>& indices, const ast::Expr* value, Env& env, int64_t* flops) {
  Evaluator ev(env, flops);
  std::vector<int64_t> idx(t.shape.size(), 0);
  for (int64_t flat = 0; flat < t.Size(); ++flat) {
    int64_t rem = flat;
    for (size_t k = idx.size(); k-- > 0;) {
      idx[k] = rem % t.shape[k];
      rem /= t.shape[k];
    }
    for (size_t k = 0; k < idx.size(); ++k) env.scalars[indices[k].name] = static_cast<double>(idx[k]);
    t.values[static_cast<size_t>(flat)] = ev.Eval(value);
  }
  for (const ast::Ident& i : indices) env.scalars.erase(i.name);
}

// Binds the op's parameters (tensors, scalars, shape symbols) in `env`.
bool BindInputs(const ast::OpDecl& op, const std::vector<HostTensor>& inputs, Env& env, std::string* error) {
  if (inputs.size() != op.params.size()) {
    *error = "op '" + op.name.name + "' takes " + std::to_string(op.params.size()) + " inputs";
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ast::Param& p = op.params[i];
    env.tensors[p.name.name] = &inputs[i];
    if (!p.type.is_tensor) {
      env.scalars[p.name.name] = inputs[i].values.at(0);
      continue;
    }
    for (size_t d = 0; d < p.type.dims.size(); ++d)
      if (auto* n = ast::dyn_cast<ast::NameExpr>(p.type.dims[d]))
        if (!env.scalars.count(n->name)) env.scalars[n->name] = static_cast<double>(inputs[i].shape.at(d));
  }
  return true;
}

// Binds the result dimensions that no input determines (`-> f32[N, P, Q,
// F]` with P and Q free) from the shapes the caller holds its results in.
void BindResultDims(const ast::OpDecl& op, const std::vector<HostTensor>* results, Env& env) {
  if (!results) return;
  for (size_t r = 0; r < op.results.size() && r < results->size(); ++r) {
    const std::vector<ast::Expr*>& dims = op.results[r].type.dims;
    if ((*results)[r].shape.size() != dims.size()) continue;
    for (size_t d = 0; d < dims.size(); ++d)
      if (auto* n = ast::dyn_cast<ast::NameExpr>(dims[d]))
        if (!env.scalars.count(n->name)) env.scalars[n->name] = static_cast<double>((*results)[r].shape[d]);
  }
}

// The shape of the tensor statement `st` defines.
std::vector<int64_t> StatementShape(const ast::OpDecl& op, const ast::OpStmt& st, Env& env) {
  std::vector<int64_t> shape;
  if (st.is_let) {
    for (const ast::Ident& i : st.indices) {
      std::optional<int64_t> e = FindExtent(st.value, i.name, env);
      if (!e) throw Failure{"cannot find the extent of '" + i.name + "'"};
      shape.push_back(*e);
    }
  } else {
    Evaluator ev(env);
    for (const ast::Param& r : op.results)
      if (r.name.name == st.name.name)
        for (ast::Expr* d : r.type.dims) {
          auto* n = ast::dyn_cast<ast::NameExpr>(d);
          if (n && !env.scalars.count(n->name))
            throw Failure{"result dimension '" + n->name + "' of op '" + op.name.name +
                          "' is not determined by its inputs: the caller gives it with the result's shape"};
          shape.push_back(ev.Extent(d));
        }
  }
  return shape;
}

}  // namespace

int64_t HostTensor::Size() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool OpStatementShapes(const ast::OpDecl& op, const std::vector<HostTensor>& inputs,
                       std::vector<std::vector<int64_t>>* shapes, std::map<std::string, double>* symbols,
                       std::string* error, const std::vector<HostTensor>* results) {
  Env env;
  if (!BindInputs(op, inputs, env, error)) return false;
  BindResultDims(op, results, env);
  *symbols = env.scalars;
  std::vector<std::unique_ptr<HostTensor>> placeholders;  // shapes only, for later extents
  try {
    for (const ast::OpStmt& st : op.body) {
      auto t = std::make_unique<HostTensor>();
      t->shape = StatementShape(op, st, env);
      shapes->push_back(t->shape);
      if (!st.is_let) continue;
      env.tensors[st.name.name] = t.get();
      placeholders.push_back(std::move(t));
    }
  } catch (const Failure& f) {
    *error = f.what;
    return false;
  }
  return true;
}

bool EvaluateOp(const ast::OpDecl& op, const std::vector<HostTensor>& inputs, std::vector<HostTensor>* outs,
                std::string* error, int64_t* flops) {
  if (flops) *flops = 0;
  Env env;
  if (!BindInputs(op, inputs, env, error)) return false;
  std::vector<HostTensor> given = std::move(*outs);
  BindResultDims(op, &given, env);
  std::vector<std::unique_ptr<HostTensor>> owned;
  outs->assign(op.results.size(), HostTensor{});
  try {
    for (const ast::OpStmt& st : op.body) {
      auto t = std::make_unique<HostTensor>();
      t->shape = StatementShape(op, st, env);
      t->values.assign(static_cast<size_t>(t->Size()), 0.0);
      Fill(*t, st.indices, st.value, env, flops);
      if (!st.is_let) {
        // A result: the statements after it are the other results.
        for (size_t r = 0; r < op.results.size(); ++r)
          if (op.results[r].name.name == st.name.name) (*outs)[r] = std::move(*t);
        continue;
      }
      if (t->shape.empty()) env.scalars[st.name.name] = t->values[0];
      env.tensors[st.name.name] = t.get();
      owned.push_back(std::move(t));
    }
  } catch (const Failure& f) {
    *error = f.what;
    return false;
  }
  return true;
}

}  // namespace tmc::ir
