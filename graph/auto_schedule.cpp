// The rules of automatic scheduling (docs/fusion.md, "Automatic schedules").
// Each rule writes .tm source: the op's expressions become kernel
// expressions (index variables renamed, 16-bit and generic loads converted
// to f32, reductions turned into loops, intermediates inlined or computed
// once per row), wrapped in the loop structure of the rule.
#include "graph/auto_schedule.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <vector>

#include "frontend/ast/ast_printer.h"
#include "frontend/check/types.h"
#include "graph/ast_walk.h"

namespace tmc::graph {
namespace {

constexpr int kThreads = 256;

std::string ElemName(const ast::TypeSpec& t) { return t.param ? t.param->name : std::string(ScalarName(t.elem)); }

std::vector<std::string> DimTexts(const ast::TypeSpec& t) {
  std::vector<std::string> dims;
  for (const ast::Expr* d : t.dims) dims.push_back(ast::PrintExpr(d));
  return dims;
}

std::string TypeText(const ast::TypeSpec& t) {
  std::string s = ElemName(t);
  if (t.is_tensor) s += "[" + Join(DimTexts(t), ", ") + "]";
  return s;
}

/// The product of `dims`, each parenthesized: "(R) * (C)".
std::string Product(const std::vector<std::string>& dims) {
  std::vector<std::string> p;
  for (const std::string& d : dims) p.push_back("(" + d + ")");
  return p.empty() ? "1" : Join(p, " * ");
}

/// Index k of the row-major decomposition of `flat` over `dims`.
std::string Decompose(const std::string& flat, const std::vector<std::string>& dims, size_t k) {
  std::vector<std::string> inner(dims.begin() + static_cast<long>(k) + 1, dims.end());
  std::string q = inner.empty() ? flat : "(" + flat + " / (" + Product(inner) + "))";
  return k == 0 ? q : q + " % (" + dims[k] + ")";
}

// ------------------------------------------------------------ analysis

std::set<std::string> NamesIn(const ast::Expr* e) {
  std::set<std::string> names;
  Walk(e, [&](const ast::Expr* x) {
    if (auto* n = ast::dyn_cast<ast::NameExpr>(x)) names.insert(n->name);
    if (auto* r = ast::dyn_cast<ast::ReduceExpr>(x))
      for (const auto& v : r->vars) names.insert(v.name.name);
  });
  return names;
}

/// The name a tensor access reads from, if its base is a plain name.
std::string BaseName(const ast::IndexExpr* x) {
  auto* n = ast::dyn_cast<ast::NameExpr>(x->base);
  return n ? n->name : "";
}

struct OpInfo {
  const ast::OpDecl* op = nullptr;
  std::map<std::string, const ast::Param*> params;
  std::vector<ast::Param> results;
  std::map<std::string, const ast::OpStmt*> lets;
  std::set<std::string> shape_symbols;
  std::set<std::string> locals;  // parameters, index and reduction variables, lets
  std::string ct = "f32";        // the float type the kernel computes in
};

OpInfo Analyze(const ast::OpDecl& op) {
  OpInfo info;
  info.op = &op;
  info.results = op.results;
  if (info.results.empty()) {
    ast::Param out;
    out.name.name = "out";
    out.type = op.result;
    info.results.push_back(out);
  }
  auto note_type = [&](const ast::TypeSpec& t) {
    for (const ast::Expr* d : t.dims)
      for (const std::string& n : NamesIn(d)) info.shape_symbols.insert(n);
    if (!t.param && t.elem == ScalarKind::F64) info.ct = "f64";
  };
  for (const ast::Param& p : op.params) {
    info.params[p.name.name] = &p;
    info.locals.insert(p.name.name);
    note_type(p.type);
  }
  for (const ast::Param& r : info.results) note_type(r.type);
  for (const ast::OpStmt& s : op.body) {
    if (s.is_let) {
      info.lets[s.name.name] = &s;
      info.locals.insert(s.name.name);
    }
    for (const ast::Ident& i : s.indices) info.locals.insert(i.name);
    Walk(s.value, [&](const ast::Expr* x) {
      if (auto* r = ast::dyn_cast<ast::ReduceExpr>(x))
        for (const auto& v : r->vars) info.locals.insert(v.name.name);
    });
  }
  return info;
}

const ast::Param* ResultOf(const OpInfo& info, const ast::OpStmt& s) {
  for (const ast::Param& r : info.results)
    if (r.name.name == s.name.name) return &r;
  return nullptr;
}

// ------------------------------------------------------------ generation

/// Writes kernel statements. Expressions come back as text; what they need
/// computed first (loops of reductions, inlined intermediates) goes to the
/// current statement list.
class Gen {
 public:
  using Env = std::map<std::string, std::string>;

  Gen(const OpInfo& info, std::set<std::string> used) : info_(info), used_(std::move(used)) {}

  std::string Fresh(const std::string& base) {
    std::string name = "_" + base;
    for (int i = 1; used_.count(name); ++i) name = "_" + base + std::to_string(i);
    used_.insert(name);
    return name;
  }
  /// A compile-time parameter's name: `base`, or a variant the op does not use.
  std::string Param(const std::string& base) {
    std::string name = base;
    for (int i = 1; used_.count(name); ++i) name = base + std::to_string(i);
    used_.insert(name);
    return name;
  }

  void Line(const std::string& s) { sink_->push_back(std::string(2 * static_cast<size_t>(indent_), ' ') + s); }
  void Open(const std::string& s) {
    Line(s + " {");
    ++indent_;
  }
  void Close() {
    --indent_;
    Line("}");
  }
  /// Statements go to `sink` at `indent` until the returned guard ends.
  struct Redirect {
    Gen& g;
    std::vector<std::string>* sink;
    int indent;
    ~Redirect() {
      g.sink_ = sink;
      g.indent_ = indent;
    }
  };
  Redirect To(std::vector<std::string>* sink, int indent) {
    Redirect r{*this, sink_, indent_};
    sink_ = sink;
    indent_ = indent;
    return r;
  }
  void Splice(const std::vector<std::string>& lines) {
    for (const std::string& l : lines) sink_->push_back(l);
  }

  /// The kernel type of an op expression: f32 (or f64) for floats, since
  /// loads of 16-bit and generic tensors convert; integers and bool as they are.
  std::string TypeOf(const ast::Expr* e) const {
    if (!e->type || e->type->IsFloat()) return e->type && e->type->scalar == ScalarKind::F64 ? "f64" : info_.ct;
    if (e->type->IsBool()) return "bool";
    return std::string(ScalarName(e->type->scalar));
  }

  std::string Value(const ast::Expr* e, const Env& env) {
    switch (e->kind) {
      case ast::ExprKind::IntLit: {
        auto* l = static_cast<const ast::IntLit*>(e);
        std::string v = std::to_string(l->value);
        return l->suffix ? std::string(ScalarName(*l->suffix)) + "(" + v + ")" : v;
      }
      case ast::ExprKind::FloatLit:
      case ast::ExprKind::BoolLit:
      case ast::ExprKind::Member: return ast::PrintExpr(e);
      case ast::ExprKind::Name: {
        const std::string& n = static_cast<const ast::NameExpr*>(e)->name;
        if (auto it = env.find(n); it != env.end()) return it->second;
        if (auto it = scalar_lets_.find(n); it != scalar_lets_.end()) return it->second;
        return n;
      }
      case ast::ExprKind::Call: {
        auto* c = static_cast<const ast::CallExpr*>(e);
        std::vector<std::string> args;
        for (const ast::Expr* a : c->args) args.push_back(Value(a, env));
        return c->callee.name + "(" + Join(args, ", ") + ")";
      }
      case ast::ExprKind::Cast: {
        auto* c = static_cast<const ast::CastExpr*>(e);
        return std::string(ScalarName(c->to)) + "(" + Value(c->operand, env) + ")";
      }
      case ast::ExprKind::Index: return Access(static_cast<const ast::IndexExpr*>(e), env);
      case ast::ExprKind::Unary: {
        auto* u = static_cast<const ast::UnaryExpr*>(e);
        return std::string(ast::Spelling(u->op)) + "(" + Value(u->operand, env) + ")";
      }
      case ast::ExprKind::Binary: return BinaryValue(static_cast<const ast::BinaryExpr*>(e), env);
      case ast::ExprKind::Ternary: return TernaryValue(static_cast<const ast::TernaryExpr*>(e), env);
      case ast::ExprKind::Reduce: return ReduceValue(static_cast<const ast::ReduceExpr*>(e), env);
    }
    return ast::PrintExpr(e);
  }

  // The row rule: reductions outside conditionals and other reductions are
  // computed by the row's threads together, into `top` (all threads take
  // part in the shuffles and barriers), each thread's share under `active`.
  void SetCooperative(std::vector<std::string>* top, int indent) {
    coop_sink_ = top;
    coop_indent_ = indent;
  }
  void SetRowNames(std::string tpr, std::string lane, std::string active, std::string red) {
    tpr_ = std::move(tpr);
    lane_ = std::move(lane);
    active_ = std::move(active);
    red_ = std::move(red);
  }
  bool used_shared() const { return used_shared_; }
  std::map<std::string, std::string>& row_lets() { return row_lets_; }
  std::map<std::string, std::string>& scalar_lets() { return scalar_lets_; }

  // The injective rule with math calls: reads along the row (last index
  // the column `col`) come from register tensors filled by a loop of their
  // own, so that LLVM merges the loads of a thread's V elements (calls
  // between them would keep them apart).
  struct Staged {
    std::string reg, type, read;
  };
  void EnableStaging(std::string col, std::string slot) {
    stage_col_ = std::move(col);
    stage_slot_ = std::move(slot);
  }
  const std::vector<Staged>& staged() const { return staged_; }

 private:
  std::string Access(const ast::IndexExpr* x, const Env& env) {
    std::string base = BaseName(x);
    std::vector<std::string> idx;
    for (const ast::Expr* i : x->indices) idx.push_back(Value(i, env));
    if (auto it = row_lets_.find(base); it != row_lets_.end() && idx == row_vars_) return it->second;
    if (auto it = info_.lets.find(base); it != info_.lets.end()) return Inline(*it->second, idx);
    std::string read = (base.empty() ? Value(x->base, env) : base) + "[" + Join(idx, ", ") + "]";
    auto p = info_.params.find(base);
    bool narrow = p != info_.params.end() && (p->second->type.param || p->second->type.elem == ScalarKind::F16 ||
                                              p->second->type.elem == ScalarKind::BF16);
    std::string value = narrow ? info_.ct + "(" + read + ")" : read;
    bool along_row = !stage_col_.empty() && !idx.empty() && idx.back() == stage_col_;
    for (size_t k = 0; along_row && k + 1 < idx.size(); ++k) along_row = idx[k].find(stage_col_) == std::string::npos;
    if (along_row && cond_depth_ == 0 && reduce_depth_ == 0 && p != info_.params.end() &&
        (narrow || IsFloat(p->second->type.elem) || IsInteger(p->second->type.elem))) {
      for (const Staged& st : staged_)
        if (st.read == value) return st.reg + "[" + stage_slot_ + "]";
      std::string type = narrow ? info_.ct : std::string(ScalarName(p->second->type.elem));
      staged_.push_back({Fresh("x"), type, value});
      return staged_.back().reg + "[" + stage_slot_ + "]";
    }
    return value;
  }

  // An intermediate `let t[i, j] = e` read at t[a, b]: e with i, j bound to
  // a, b, computed where it is read (each read computes it again).
  std::string Inline(const ast::OpStmt& let, const std::vector<std::string>& idx) {
    // A read at the same indices as an earlier one, outside conditionals,
    // takes that value: a fused op's epilogue that reads the anchor's value
    // twice (gelu) computes its reduction once.
    std::string key = let.name.name + "[" + Join(idx, ", ") + "]";
    if (auto it = inlined_.find(key); it != inlined_.end()) return it->second;
    Env inner;
    for (size_t i = 0; i < let.indices.size() && i < idx.size(); ++i) {
      const std::string& text = idx[i];
      bool simple = !text.empty() && text.find_first_of(" ()[]+-*/%<>=!&|?:,") == std::string::npos;
      if (simple) {
        inner[let.indices[i].name] = text;
      } else {
        std::string n = Fresh(let.indices[i].name);
        Line("let " + n + " = " + text + ";");
        inner[let.indices[i].name] = n;
      }
    }
    std::string v = Value(let.value, inner);
    std::string n = Fresh(let.name.name);
    Line("let " + n + " = " + v + ";");
    if (cond_depth_ == 0 && reduce_depth_ == 0) inlined_[key] = n;
    return n;
  }

  // `a && b`, `a || b`: b computed only when it decides.
  std::string BinaryValue(const ast::BinaryExpr* b, const Env& env) {
    std::string l = Value(b->lhs, env);
    bool lazy = b->op == ast::BinaryOp::And || b->op == ast::BinaryOp::Or;
    std::vector<std::string> rhs_stmts;
    std::string r;
    {
      auto guard = To(lazy ? &rhs_stmts : sink_, lazy ? indent_ + 1 : indent_);
      cond_depth_ += lazy;
      r = Value(b->rhs, env);
      cond_depth_ -= lazy;
    }
    std::string op(ast::Spelling(b->op));
    if (!lazy || rhs_stmts.empty()) return "(" + l + " " + op + " " + r + ")";
    std::string n = Fresh("b");
    Line("var " + n + ": bool = " + l + ";");
    Open(b->op == ast::BinaryOp::And ? "if (" + n + ")" : "if (!" + n + ")");
    Splice(rhs_stmts);
    Line(n + " = " + r + ";");
    Close();
    return n;
  }

  // `c ? a : b`: each side computed only when chosen (an index the
  // condition guards is never read).
  std::string TernaryValue(const ast::TernaryExpr* t, const Env& env) {
    std::string c = Value(t->cond, env);
    std::vector<std::string> then_stmts, else_stmts;
    std::string a, b;
    ++cond_depth_;
    {
      auto guard = To(&then_stmts, indent_ + 1);
      a = Value(t->then_value, env);
    }
    {
      auto guard = To(&else_stmts, indent_ + 1);
      b = Value(t->else_value, env);
    }
    --cond_depth_;
    if (then_stmts.empty() && else_stmts.empty()) return "(" + c + " ? " + a + " : " + b + ")";
    std::string n = Fresh("t");
    Line("var " + n + ": " + TypeOf(t) + ";");
    Open("if (" + c + ")");
    Splice(then_stmts);
    Line(n + " = " + a + ";");
    Close();
    Open("else");
    Splice(else_stmts);
    Line(n + " = " + b + ";");
    Close();
    return n;
  }

  static std::string Combine(const std::string& reducer, const std::string& acc, const std::string& v) {
    if (reducer == "max" || reducer == "min") return reducer + "(" + acc + ", " + v + ")";
    return acc + (reducer == "prod" ? " * " : " + ") + v;
  }

  std::string ReduceValue(const ast::ReduceExpr* r, const Env& env) {
    const std::string reducer = r->reducer.name;
    const std::string type = TypeOf(r);
    bool is_float = type == "f32" || type == "f64";
    bool coop = coop_sink_ && cond_depth_ == 0 && reduce_depth_ == 0 && is_float;
    std::vector<std::string> extents;
    for (const auto& v : r->vars) extents.push_back(Value(v.extent, env));
    Env inner = env;
    std::vector<std::string> vars;
    for (const auto& v : r->vars) {
      vars.push_back(Fresh(v.name.name));
      inner[v.name.name] = vars.back();
    }
    std::string acc = Fresh("a");
    // Integer max/min start from the first value (no literal bound fits
    // every integer type); the others from their identity.
    bool first_flag = !is_float && (reducer == "max" || reducer == "min");
    std::string identity = reducer == "sum"    ? (is_float ? "0.0" : type + "(0)")
                           : reducer == "prod" ? (is_float ? "1.0" : type + "(1)")
                           : is_float          ? (reducer == "max" ? "-inf" : "inf")
                                               : type + "(0)";
    std::vector<std::string>* saved_sink = sink_;
    int saved_indent = indent_;
    if (coop) {
      sink_ = coop_sink_;
      indent_ = coop_indent_;
    }
    Line("var " + acc + ": " + type + " = " + identity + ";");
    std::string first = first_flag ? Fresh("first") : "";
    if (first_flag) Line("var " + first + ": bool = true;");
    int opened = 0;
    if (coop) {
      Open("if (" + active_ + ")");
      ++opened;
    }
    for (size_t i = 0; i < vars.size(); ++i) {
      bool spread = coop && i + 1 == vars.size();
      Open("for " + vars[i] + " in range(" + (spread ? lane_ + ", " + extents[i] + ", " + tpr_ : extents[i]) + ")");
      ++opened;
    }
    ++reduce_depth_;
    std::string body = Value(r->body, inner);
    --reduce_depth_;
    if (first_flag) {
      std::string v = Fresh("v");
      Line("let " + v + " = " + body + ";");
      Line(acc + " = " + first + " ? " + v + " : " + Combine(reducer, acc, v) + ";");
      Line(first + " = false;");
    } else {
      Line(acc + " = " + Combine(reducer, acc, "(" + body + ")") + ";");
    }
    while (opened--) Close();
    if (coop) {
      std::string s = Fresh("s"), w = Fresh("w");
      Open("for " + s + " in unroll(5)");
      Line(acc + " = " + Combine(reducer, acc, "shfl_xor(" + acc + ", 16 >> " + s + ")") + ";");
      Close();
      Open("if (" + tpr_ + " > 32)");
      Line("sync;");
      Open("if (threadIdx.x % 32 == 0)");
      Line(red_ + "[threadIdx.x / 32] = " + acc + ";");
      Close();
      Line("sync;");
      Line(acc + " = " + red_ + "[0];");
      Open("for " + w + " in unroll(" + std::to_string(kThreads / 32 - 1) + ")");
      Line(acc + " = " + Combine(reducer, acc, red_ + "[" + w + " + 1]") + ";");
      Close();
      Close();
      used_shared_ = true;
      sink_ = saved_sink;
      indent_ = saved_indent;
    }
    return acc;
  }

 public:
  /// The current statement's row index variables, as kernel names (the row rule).
  std::vector<std::string> row_vars_;

 private:
  const OpInfo& info_;
  std::set<std::string> used_;
  std::vector<std::string>* sink_ = nullptr;
  int indent_ = 1;
  std::vector<std::string>* coop_sink_ = nullptr;
  int coop_indent_ = 1;
  int cond_depth_ = 0;
  int reduce_depth_ = 0;
  bool used_shared_ = false;
  std::string tpr_, lane_, active_, red_;
  std::string stage_col_, stage_slot_;
  std::vector<Staged> staged_;
  std::map<std::string, std::string> row_lets_;
  std::map<std::string, std::string> scalar_lets_;
  std::map<std::string, std::string> inlined_;  // read of an intermediate -> its value in this statement

 public:
  /// A new statement: values inlined for the last one are out of scope.
  void NewStatement() { inlined_.clear(); }
};

// ------------------------------------------------------------ rules

/// Which of the rules fits, and for the row rule the number of row
/// dimensions; `why` says why a faster rule did not.
struct Fit {
  ScheduleRule rule = ScheduleRule::Serial;
  size_t rows = 0;
  std::string why;
};

Fit Classify(const OpInfo& info) {
  const ast::OpDecl& op = *info.op;
  bool any_reduce = false;
  for (const ast::OpStmt& s : op.body) any_reduce |= HasReduce(s.value);
  if (!any_reduce) {
    if (info.results.size() == 1 && !info.results[0].type.dims.empty()) return {ScheduleRule::Injective, 0, ""};
    return {ScheduleRule::Serial, 0, "it has several results"};
  }
  // The row rule: every indexed intermediate is per row (m indices), every
  // result is per row (m dimensions, may reduce) or row-wise (m + 1, no
  // reduction), all over the same leading dimensions, and intermediates are
  // read at exactly the reading statement's row.
  std::optional<size_t> m;
  for (const ast::OpStmt& s : op.body) {
    if (!s.is_let || s.indices.empty()) continue;
    if (m && *m != s.indices.size()) return {ScheduleRule::Serial, 0, "its intermediates have different ranks"};
    m = s.indices.size();
  }
  for (const ast::OpStmt& s : op.body)
    if (!s.is_let && HasReduce(s.value)) {
      if (m && *m != s.indices.size())
        return {ScheduleRule::Serial, 0, "result '" + s.name.name + "' reduces inside each element"};
      m = s.indices.size();
    }
  if (!m || *m == 0) return {ScheduleRule::Serial, 0, "its reductions are not per row"};
  std::optional<std::vector<std::string>> row_dims;
  for (const ast::OpStmt& s : op.body) {
    if (s.is_let) continue;
    const ast::Param* r = ResultOf(info, s);
    if (!r) return {ScheduleRule::Serial, 0, "an unknown result"};
    size_t n = r->type.dims.size();
    if (n != *m && n != *m + 1)
      return {ScheduleRule::Serial, 0, "result '" + s.name.name + "' is not per row or row-wise"};
    if (n == *m + 1 && HasReduce(s.value))
      return {ScheduleRule::Serial, 0, "result '" + s.name.name + "' reduces inside each element"};
    std::vector<std::string> dims = DimTexts(r->type);
    dims.resize(*m);
    if (row_dims && *row_dims != dims) return {ScheduleRule::Serial, 0, "its results have different rows"};
    row_dims = dims;
  }
  for (const ast::OpStmt& s : op.body) {
    std::string bad;
    Walk(s.value, [&](const ast::Expr* x) {
      auto* a = ast::dyn_cast<ast::IndexExpr>(x);
      if (!a || !info.lets.count(BaseName(a)) || !bad.empty()) return;
      for (size_t i = 0; i < a->indices.size(); ++i) {
        auto* n = ast::dyn_cast<ast::NameExpr>(a->indices[i]);
        if (i >= s.indices.size() || !n || n->name != s.indices[i].name) bad = BaseName(a);
      }
    });
    if (!bad.empty()) return {ScheduleRule::Serial, 0, "'" + bad + "' is read at another row than the reader's"};
  }
  // The row's threads split each reduction's last variable: every read
  // that depends on it must run along its innermost dimension, or the
  // threads would read with a stride (a matmul's B).
  for (const ast::OpStmt& s : op.body) {
    std::string strided;
    Walk(s.value, [&](const ast::Expr* x) {
      auto* r = ast::dyn_cast<ast::ReduceExpr>(x);
      if (!r || !strided.empty()) return;
      const std::string& k = r->vars.back().name.name;
      Walk(r->body, [&](const ast::Expr* y) {
        auto* a = ast::dyn_cast<ast::IndexExpr>(y);
        if (!a || !info.params.count(BaseName(a))) return;
        for (size_t i = 0; i + 1 < a->indices.size(); ++i)
          if (NamesIn(a->indices[i]).count(k) && strided.empty()) strided = BaseName(a);
      });
    });
    if (!strided.empty())
      return {ScheduleRule::Serial, 0, "its reduction runs across rows of '" + strided + "', not along them"};
  }
  return {ScheduleRule::RowReduction, *m, ""};
}

/// Serial reductions are slow unless the threads (consecutive elements of
/// the result's innermost dimension) read consecutive elements.
bool SerialIsSlow(const OpInfo& info) {
  if (info.results.size() != 1) return true;
  bool slow = false;
  for (const ast::OpStmt& s : info.op->body) {
    if (s.is_let && !s.indices.empty()) {
      if (HasReduce(s.value)) slow = true;
      continue;
    }
    if (s.indices.empty()) continue;
    const std::string inner = s.indices.back().name;
    Walk(s.value, [&](const ast::Expr* x) {
      auto* r = ast::dyn_cast<ast::ReduceExpr>(x);
      if (!r) return;
      Walk(r->body, [&](const ast::Expr* y) {
        auto* a = ast::dyn_cast<ast::IndexExpr>(y);
        if (!a || a->indices.empty()) return;
        if (info.lets.count(BaseName(a)) || !NamesIn(a->indices.back()).count(inner)) slow = true;
      });
    });
  }
  return slow;
}

struct Header {
  std::vector<std::string> ct_params;
  std::vector<std::string> where;
  std::string grid;
};

std::string Assemble(const OpInfo& info, const std::string& name, const Header& h, const std::string& comment,
                     const std::vector<std::string>& body) {
  const ast::OpDecl& op = *info.op;
  std::vector<std::string> ct;
  for (const ast::Ident& t : op.type_params) ct.push_back(t.name + ": type in [f32, f16, bf16] = f32");
  for (const std::string& p : h.ct_params) ct.push_back(p);
  std::vector<std::string> params;
  for (const ast::Param& p : op.params) params.push_back(p.name.name + ": " + TypeText(p.type));
  for (const ast::Param& r : info.results) params.push_back(r.name.name + ": " + TypeText(r.type));
  std::string s = comment;
  s += "kernel " + name + (ct.empty() ? "" : "<" + Join(ct, ", ") + ">") + "(" + Join(params, ", ") + ")\n";
  s += "    implements " + op.name.name + "\n";
  if (!h.where.empty()) s += "    where " + Join(h.where, ", ") + "\n";
  s += "    grid(" + h.grid + ") block(" + std::to_string(kThreads) + ")\n{\n";
  for (const std::string& l : body) s += l + "\n";
  s += "}\n";
  return s;
}

AutoKernel Made(const OpInfo& info, const std::string& name, ScheduleRule rule, const Header& h,
                const std::string& comment, const std::vector<std::string>& body) {
  AutoKernel k;
  k.name = name;
  k.rule = rule;
  k.source = Assemble(info, name, h, comment, body);
  return k;
}

/// The lines of `decls` whose name (`let NAME = ...`) the body uses, then the body.
std::vector<std::string> WithUsed(const std::vector<std::pair<std::string, std::string>>& decls,
                                  const std::vector<std::string>& body) {
  std::string text = Join(body, "\n");
  auto uses = [&](const std::string& n) {
    for (size_t at = text.find(n); at != std::string::npos; at = text.find(n, at + 1)) {
      auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      bool before = at > 0 && word(text[at - 1]);
      bool after = at + n.size() < text.size() && word(text[at + n.size()]);
      if (!before && !after) return true;
    }
    return false;
  };
  std::vector<std::string> out;
  for (const auto& [n, line] : decls)
    if (uses(n)) out.push_back(line);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

/// `let`s without indices: once, before everything.
void ScalarLets(const OpInfo& info, Gen& g, std::vector<std::string>* top) {
  for (const ast::OpStmt& s : info.op->body) {
    if (!s.is_let || !s.indices.empty()) continue;
    auto guard = g.To(top, 1);
    std::string v = g.Value(s.value, {});
    std::string n = g.Fresh(s.name.name);
    g.Line("let " + n + " = " + v + ";");
    g.scalar_lets()[s.name.name] = n;
  }
}

AutoKernel Injective(const OpInfo& info, Gen& g, const std::string& name) {
  const ast::Param& res = info.results[0];
  const ast::OpStmt* stmt = nullptr;
  for (const ast::OpStmt& s : info.op->body)
    if (!s.is_let) stmt = &s;
  std::vector<std::string> dims = DimTexts(res.type);
  std::string cols = "(" + dims.back() + ")";
  std::vector<std::string> row_dims(dims.begin(), dims.end() - 1);
  // 16 bytes per thread and access where the row allows it.
  int bytes = res.type.param ? 4 : ScalarBytes(res.type.elem);
  int vdef = std::max(1, std::min(8, 16 / std::max(1, bytes)));
  std::string v = g.Param("V");
  std::string nb = g.Fresh("nb"), row = g.Fresh("row"), cb = g.Fresh("cb"), t = g.Fresh("t"), col = g.Fresh("j");

  std::vector<std::string> top;
  ScalarLets(info, g, &top);
  Gen::Env env;
  std::vector<std::pair<std::string, std::string>> decls;
  for (size_t k = 0; k < row_dims.size(); ++k) {
    std::string iv = g.Fresh(stmt->indices[k].name);
    env[stmt->indices[k].name] = iv;
    decls.push_back({iv, "  let " + iv + " = " + Decompose(row, row_dims, k) + ";"});
  }
  env[stmt->indices.back().name] = col;
  // Math calls between a thread's loads would keep LLVM from merging them:
  // then loads, math and stores get loops of their own.
  bool calls = false;
  for (const ast::OpStmt& s : info.op->body)
    Walk(s.value, [&](const ast::Expr* x) {
      auto* c = ast::dyn_cast<ast::CallExpr>(x);
      if (c && c->callee.name != "max" && c->callee.name != "min" && c->callee.name != "abs" && !c->cast_to) calls = true;
    });
  if (calls) g.EnableStaging(col, t);
  std::vector<std::string> idx;
  for (const ast::Ident& i : stmt->indices) idx.push_back(env[i.name]);
  std::string target = res.name.name + "[" + Join(idx, ", ") + "]";
  std::string result = g.Fresh("y");
  std::vector<std::string> body;
  {
    auto guard = g.To(&body, 3);
    g.NewStatement();
    std::string value = g.Value(stmt->value, env);
    if (g.staged().empty()) g.Line(target + " = " + ElemName(res.type) + "(" + value + ");");
    else g.Line(result + "[" + t + "] = " + value + ";");
  }
  std::vector<std::string> lines = top;
  lines.push_back("  let " + nb + " = cdiv(" + cols + ", " + std::to_string(kThreads) + " * " + v + ");");
  lines.push_back("  let " + row + " = blockIdx.x / " + nb + ";");
  lines.push_back("  let " + cb + " = blockIdx.x % " + nb + ";");
  const std::string mapping = "spatial(" + std::to_string(kThreads) + ") * repeat(" + v + ")";
  const std::string head = "  for " + t + " in " + mapping + " on threadIdx.x {";
  const std::string column = "    let " + col + " = " + cb + " * " + std::to_string(kThreads) + " * " + v + " + " + t + ";";
  std::vector<std::string> loops;
  for (const Gen::Staged& st : g.staged()) {
    lines.push_back("  register " + st.reg + ": " + st.type + "[" + std::to_string(kThreads) + " * " + v + "] by " +
                    mapping + ";");
    std::string zero = st.type == "f32" || st.type == "f64" ? "0.0" : st.type + "(0)";
    loops.insert(loops.end(), {head, column,
                               "    " + st.reg + "[" + t + "] = " + col + " < " + cols + " ? " + st.read + " : " + zero + ";",
                               "  }"});
  }
  if (!g.staged().empty())
    lines.push_back("  register " + result + ": " + g.TypeOf(stmt->value) + "[" + std::to_string(kThreads) + " * " + v +
                    "] by " + mapping + ";");
  loops.insert(loops.end(), {head, column, "    if (" + col + " < " + cols + ") {"});
  loops.insert(loops.end(), body.begin(), body.end());
  loops.insert(loops.end(), {"    }", "  }"});
  if (!g.staged().empty())
    loops.insert(loops.end(), {head, column, "    if (" + col + " < " + cols + ") { " + target + " = " +
                               ElemName(res.type) + "(" + result + "[" + t + "]); }", "  }"});
  for (const std::string& l : WithUsed(decls, loops)) lines.push_back(l);

  Header h;
  h.ct_params.push_back(v + ": int in [1, 2, 4, 8] = " + std::to_string(vdef));
  h.grid = "cdiv(" + cols + ", " + std::to_string(kThreads) + " * " + v + ")" +
           (row_dims.empty() ? "" : " * " + Product(row_dims));
  std::string comment = "// Automatic schedule of op '" + info.op->name.name +
                        "' (rule: injective): each block covers 256 * " + v +
                        " elements of one row of the result, each thread " + v +
                        " neighbours (one 16-byte access where the row allows).\n";
  return Made(info, name, ScheduleRule::Injective, h, comment, lines);
}

AutoKernel RowReduction(const OpInfo& info, Gen& g, const std::string& name, size_t m) {
  std::string tpr = g.Param("TPR");
  std::string red = g.Fresh("red"), row = g.Fresh("row"), lane = g.Fresh("lane"), active = g.Fresh("active");
  g.SetRowNames(tpr, lane, active, red);
  std::vector<std::string> row_dims;
  for (const ast::OpStmt& s : info.op->body)
    if (!s.is_let) {
      row_dims = DimTexts(ResultOf(info, s)->type);
      row_dims.resize(m);
      break;
    }
  std::vector<std::string> row_vars;
  std::vector<std::pair<std::string, std::string>> decls;
  for (size_t k = 0; k < m; ++k) {
    row_vars.push_back(g.Fresh("r" + std::to_string(k)));
    decls.push_back({row_vars.back(), "  let " + row_vars.back() + " = " + Decompose(row, row_dims, k) + ";"});
  }
  std::vector<std::string> top;
  ScalarLets(info, g, &top);
  g.SetCooperative(&top, 1);
  g.row_vars_ = row_vars;
  std::optional<std::string> row_length;  // of the first reduction, for the warp/block choice
  for (const ast::OpStmt& s : info.op->body) {
    if (s.is_let && s.indices.empty()) continue;
    if (!row_length)
      Walk(s.value, [&](const ast::Expr* x) {
        auto* r = ast::dyn_cast<ast::ReduceExpr>(x);
        if (!r || row_length) return;
        bool fixed = true;  // over shape symbols and constants only: a launch condition
        for (const std::string& n : NamesIn(r->vars.back().extent))
          if (info.locals.count(n) && !info.shape_symbols.count(n)) fixed = false;
        if (fixed) row_length = ast::PrintExpr(r->vars.back().extent);
      });
    Gen::Env env;
    g.NewStatement();
    for (size_t k = 0; k < m; ++k) env[s.indices[k].name] = row_vars[k];
    std::vector<std::string> guarded;
    if (s.is_let) {
      std::string v;
      {
        auto guard = g.To(&guarded, 2);
        v = g.Value(s.value, env);
      }
      std::string n = g.Fresh(s.name.name);
      std::string type = g.TypeOf(s.value);
      top.push_back("  var " + n + ": " + type + " = " + type + "(0);");
      top.push_back("  if (" + active + ") {");
      top.insert(top.end(), guarded.begin(), guarded.end());
      top.push_back("    " + n + " = " + v + ";");
      top.push_back("  }");
      g.row_lets()[s.name.name] = n;
      continue;
    }
    const ast::Param* res = ResultOf(info, s);
    std::vector<std::string> idx = row_vars;
    if (s.indices.size() == m) {
      std::string v;
      {
        auto guard = g.To(&guarded, 2);
        v = g.Value(s.value, env);
      }
      top.push_back("  if (" + active + " && " + lane + " == 0) {");
      top.insert(top.end(), guarded.begin(), guarded.end());
      top.push_back("    " + res->name.name + "[" + Join(idx, ", ") + "] = " + ElemName(res->type) + "(" + v + ");");
      top.push_back("  }");
    } else {
      std::string c = g.Fresh("c");
      env[s.indices.back().name] = c;
      std::string v;
      {
        auto guard = g.To(&guarded, 3);
        v = g.Value(s.value, env);
      }
      idx.push_back(c);
      std::string cols = DimTexts(res->type).back();
      top.push_back("  if (" + active + ") {");
      top.push_back("    for " + c + " in range(" + lane + ", " + cols + ", " + tpr + ") {");
      top.insert(top.end(), guarded.begin(), guarded.end());
      top.push_back("      " + res->name.name + "[" + Join(idx, ", ") + "] = " + ElemName(res->type) + "(" + v + ");");
      top.push_back("    }");
      top.push_back("  }");
    }
  }
  std::vector<std::string> lines;
  if (g.used_shared()) lines.push_back("  shared " + red + ": " + info.ct + "[" + std::to_string(kThreads / 32) + "];");
  std::string rows = Product(row_dims);
  lines.push_back("  let " + row + " = blockIdx.x * (" + std::to_string(kThreads) + " / " + tpr + ") + threadIdx.x / " + tpr + ";");
  lines.push_back("  let " + lane + " = threadIdx.x % " + tpr + ";");
  lines.push_back("  let " + active + " = " + row + " < " + rows + ";");
  for (const std::string& l : WithUsed(decls, top)) lines.push_back(l);

  Header h;
  // A row length known here picks the candidate that serves it; a
  // symbolic one leaves the choice to the launch.
  std::string tpr_default = "256";
  if (row_length) {
    std::string t = Unparen(*row_length);
    if (IsNumber(t) && t.size() < 10) tpr_default = std::stoll(t) <= 1024 ? "32" : "256";
  }
  h.ct_params.push_back(tpr + ": int in [32, 256] = " + tpr_default);
  if (row_length)
    h.where.push_back("(" + tpr + " == 32 && (" + *row_length + ") <= 1024) || (" + tpr + " == 256 && (" + *row_length +
                      ") > 1024)");
  h.grid = "cdiv(" + rows + ", " + std::to_string(kThreads) + " / " + tpr + ")";
  std::string comment = "// Automatic schedule of op '" + info.op->name.name + "' (rule: row reduction): " + tpr +
                        " threads per row, a warp (" + tpr + " = 32" +
                        (row_length ? ", rows of at most 1024" : "") + ") or a block of 256 (" + tpr + " = 256" +
                        (row_length ? ", longer rows" : "") +
                        "); each reduction combines with shuffles and, in a block, shared memory.\n";
  return Made(info, name, ScheduleRule::RowReduction, h, comment, lines);
}

AutoKernel Serial(const OpInfo& info, Gen& g, const std::string& name, const std::string& why) {
  std::vector<std::string> lines;
  ScalarLets(info, g, &lines);
  const ast::Param* widest = &info.results[0];
  for (const ast::Param& r : info.results)
    if (r.type.dims.size() > widest->type.dims.size()) widest = &r;
  for (const ast::OpStmt& s : info.op->body) {
    if (s.is_let) continue;
    const ast::Param* res = ResultOf(info, s);
    std::vector<std::string> dims = DimTexts(res->type);
    std::string e = g.Fresh("e");
    Gen::Env env;
    std::vector<std::pair<std::string, std::string>> decls;
    std::vector<std::string> idx;
    for (size_t k = 0; k < s.indices.size(); ++k) {
      std::string iv = g.Fresh(s.indices[k].name);
      env[s.indices[k].name] = iv;
      idx.push_back(iv);
      decls.push_back({iv, "    let " + iv + " = " + (dims.size() == 1 ? e : Decompose(e, dims, k)) + ";"});
    }
    std::vector<std::string> body;
    {
      auto guard = g.To(&body, 2);
      g.NewStatement();
      std::string v = g.Value(s.value, env);
      g.Line(res->name.name + "[" + Join(idx, ", ") + "] = " + ElemName(res->type) + "(" + v + ");");
    }
    lines.push_back("  for " + e + " in range(blockIdx.x * " + std::to_string(kThreads) + " + threadIdx.x, " +
                    Product(dims) + ", gridDim.x * " + std::to_string(kThreads) + ") {");
    for (const std::string& l : WithUsed(decls, body)) lines.push_back(l);
    lines.push_back("  }");
  }
  Header h;
  h.grid = "cdiv(" + Product(DimTexts(widest->type)) + ", " + std::to_string(kThreads) + ")";
  std::string comment = "// Automatic schedule of op '" + info.op->name.name +
                        "' (rule: serial): one thread per element of the result, reductions as loops" +
                        (why.empty() ? "" : "; no faster rule applies: " + why) + ".\n";
  AutoKernel k = Made(info, name, ScheduleRule::Serial, h, comment, lines);
  k.why_serial = why;
  return k;
}

}  // namespace

const char* RuleName(ScheduleRule rule) {
  switch (rule) {
    case ScheduleRule::Injective: return "injective";
    case ScheduleRule::RowReduction: return "row reduction";
    case ScheduleRule::Serial: return "serial";
  }
  return "?";
}

AutoKernel ScheduleOp(const ast::OpDecl& op, const std::set<std::string>& taken) {
  OpInfo info = Analyze(op);
  std::set<std::string> used = taken;
  used.insert(info.locals.begin(), info.locals.end());
  used.insert(info.shape_symbols.begin(), info.shape_symbols.end());
  for (const ast::Ident& t : op.type_params) used.insert(t.name);
  for (const ast::Param& r : info.results) used.insert(r.name.name);
  std::string name = op.name.name + "_auto";
  for (int i = 2; used.count(name); ++i) name = op.name.name + "_auto" + std::to_string(i);
  used.insert(name);
  Gen g(info, used);
  Fit fit = Classify(info);
  switch (fit.rule) {
    case ScheduleRule::Injective: return Injective(info, g, name);
    case ScheduleRule::RowReduction: return RowReduction(info, g, name, fit.rows);
    case ScheduleRule::Serial: break;
  }
  AutoKernel k = Serial(info, g, name, fit.why);
  bool any_reduce = false;
  for (const ast::OpStmt& s : op.body) any_reduce |= HasReduce(s.value);
  k.slow = any_reduce && SerialIsSlow(info);
  return k;
}

bool OpHasReduction(const ast::OpDecl& op) {
  for (const ast::OpStmt& s : op.body)
    if (HasReduce(s.value)) return true;
  return false;
}

bool ReadsAtOwnIndex(const ast::OpDecl& op, size_t param) {
  if (param >= op.params.size() || op.results.size() > 1) return false;
  const std::string& p = op.params[param].name.name;
  bool ok = true;
  for (const ast::OpStmt& s : op.body) {
    std::set<const ast::Expr*> bases;
    Walk(s.value, [&](const ast::Expr* x) {
      if (auto* a = ast::dyn_cast<ast::IndexExpr>(x)) bases.insert(a->base);
    });
    Walk(s.value, [&](const ast::Expr* x) {
      auto* n = ast::dyn_cast<ast::NameExpr>(x);
      if (n && n->name == p && !bases.count(x)) ok = false;  // passed whole, to a function
      auto* a = ast::dyn_cast<ast::IndexExpr>(x);
      if (!a || BaseName(a) != p) return;
      if (s.is_let || a->indices.size() != s.indices.size()) ok = false;
      for (size_t i = 0; ok && i < a->indices.size(); ++i) {
        auto* n = ast::dyn_cast<ast::NameExpr>(a->indices[i]);
        if (!n || n->name != s.indices[i].name) ok = false;
      }
    });
  }
  return ok;
}

const ast::OpDecl* FindOp(const sema::CheckedModule& m, const std::string& name, std::vector<std::string>* known) {
  std::vector<const sema::CheckedModule*> modules = {&m};
  modules.insert(modules.end(), m.imports.begin(), m.imports.end());
  for (const sema::CheckedModule* mod : modules)
    for (const ast::Decl* d : mod->ast->decls)
      if (auto* op = ast::dyn_cast<ast::OpDecl>(d)) {
        if (op->name.name == name) return op;
        known->push_back(op->name.name);
      }
  return nullptr;
}

std::set<std::string> VisibleNames(const sema::CheckedModule& m) {
  std::set<std::string> names;
  std::vector<const sema::CheckedModule*> modules = {&m};
  modules.insert(modules.end(), m.imports.begin(), m.imports.end());
  for (const sema::CheckedModule* mod : modules)
    for (const ast::Decl* d : mod->ast->decls) names.insert(d->name.name);
  return names;
}

}  // namespace tmc::graph
