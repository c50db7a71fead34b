// Post-scheduling fusion (docs/fusion.md, "Fused kernels"). The fused op
// is written by composing op definitions as text: a node read at indices
// I is its op's result expression with the result's index variables bound
// to I, its parameters read through their arguments (recursively, inside
// the group) and its reduction variables renamed.
#include "graph/fuse.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "frontend/ast/ast_printer.h"
#include "graph/ast_walk.h"
#include "graph/auto_schedule.h"

namespace tmc::graph {
namespace {

bool Narrow(const std::string& elem) { return elem == "f16" || elem == "bf16"; }

const ast::OpStmt* ResultStmt(const ast::OpDecl& op) {
  for (const ast::OpStmt& s : op.body)
    if (!s.is_let) return &s;
  return nullptr;
}

/// Writes the expressions of a group's nodes.
class Composer {
 public:
  using Reader = std::function<std::string(const std::vector<std::string>&)>;
  struct Ctx {
    std::map<std::string, std::string> names;
    std::map<std::string, Reader> tensors;
  };

  Composer(const Graph& g, const Group& grp) : g_(g), grp_(grp) {}

  /// How values from outside the group are read: by these names.
  std::map<int, std::string> external;
  /// When set, the value of node `lead` at the indices (a hand-written
  /// kernel's stored value).
  int lead = -1;
  std::function<std::string(const std::vector<std::string>&)> anchor_value;
  /// The anchor's intermediates, as statements of the fused op.
  std::vector<std::string> lets;
  /// What each of them is in the user's terms, for messages.
  std::map<std::string, std::string> let_origins;
  /// Whether the anchor's value becomes an intermediate of its own.
  bool bind_anchor = false;
  /// Inputs that node `lead_reads` (the anchor) reads by other names than
  /// the rest of the group: a kernel parameter whose dimensions the kernel
  /// names differently from the epilogue's (`A: [M, K]` read at `[M, N]`).
  std::map<int, std::string> lead_external;
  int lead_reads = -1;

  bool InGroup(int n) const { return std::find(grp_.members.begin(), grp_.members.end(), n) != grp_.members.end(); }

  std::string At(int n, const std::vector<std::string>& idx) {
    const Node& nd = g_.nodes[static_cast<size_t>(n)];
    if (n == lead && anchor_value) return anchor_value(idx);
    if (n == grp_.anchor && bind_anchor) {
      // The anchor's value once, as an intermediate of the fused op: the
      // epilogue may read it more than once (gelu reads x twice).
      if (anchor_let_.empty()) {
        const ast::OpStmt* out = ResultStmt(*nd.op);
        std::vector<std::string> vars;
        for (size_t k = 0; k < out->indices.size(); ++k) vars.push_back(Fresh("v" + std::to_string(k)));
        Ctx local = OpContext(n);
        for (size_t k = 0; k < vars.size(); ++k) local.names[out->indices[k].name] = vars[k];
        anchor_let_ = Fresh("a_value");
        let_origins[anchor_let_] = "the value of op '" + nd.op->name.name + "'";
        lets.push_back("let " + anchor_let_ + "[" + Join(vars, ", ") + "] = " + Print(out->value, local) + ";");
      }
      return anchor_let_ + "[" + Join(idx, ", ") + "]";
    }
    if (!InGroup(n)) {
      auto it = external.find(n);
      std::string name = it != external.end() ? it->second : nd.expr ? ast::PrintExpr(nd.expr) : nd.name;
      if (!nd.tensor) return name;
      std::string read = name + "[" + Join(idx, ", ") + "]";
      return Narrow(nd.elem) ? "f32(" + read + ")" : read;
    }
    if (nd.kind == Node::Kind::Arith) {
      auto* b = static_cast<const ast::BinaryExpr*>(nd.expr);
      return "(" + Operand(nd.args[0], nd, idx) + " " + std::string(ast::Spelling(b->op)) + " " +
             Operand(nd.args[1], nd, idx) + ")";
    }
    const ast::OpDecl& op = *nd.op;
    Ctx& c = OpContext(n);
    const ast::OpStmt* out = ResultStmt(op);
    Ctx local = c;
    for (size_t k = 0; k < out->indices.size() && k < idx.size(); ++k) local.names[out->indices[k].name] = idx[k];
    return "(" + Print(out->value, local) + ")";
  }

  std::string Print(const ast::Expr* e, const Ctx& c) {
    switch (e->kind) {
      case ast::ExprKind::Name: {
        const std::string& n = static_cast<const ast::NameExpr*>(e)->name;
        if (auto it = c.names.find(n); it != c.names.end()) return it->second;
        return n;
      }
      case ast::ExprKind::Call: {
        auto* call = static_cast<const ast::CallExpr*>(e);
        std::vector<std::string> args;
        for (const ast::Expr* a : call->args) args.push_back(Print(a, c));
        // A generic op's T(x) is a conversion to the f32 it is checked as.
        std::string callee = call->cast_to ? "f32" : call->callee.name;
        return callee + "(" + Join(args, ", ") + ")";
      }
      case ast::ExprKind::Cast: {
        auto* cast = static_cast<const ast::CastExpr*>(e);
        return std::string(ScalarName(cast->to)) + "(" + Print(cast->operand, c) + ")";
      }
      case ast::ExprKind::Index: {
        auto* x = static_cast<const ast::IndexExpr*>(e);
        std::vector<std::string> idx;
        for (const ast::Expr* i : x->indices) idx.push_back(Print(i, c));
        auto* base = ast::dyn_cast<ast::NameExpr>(x->base);
        if (base)
          if (auto it = c.tensors.find(base->name); it != c.tensors.end()) return it->second(idx);
        return Print(x->base, c) + "[" + Join(idx, ", ") + "]";
      }
      case ast::ExprKind::Unary: {
        auto* u = static_cast<const ast::UnaryExpr*>(e);
        return std::string(ast::Spelling(u->op)) + "(" + Print(u->operand, c) + ")";
      }
      case ast::ExprKind::Binary: {
        auto* b = static_cast<const ast::BinaryExpr*>(e);
        return "(" + Print(b->lhs, c) + " " + std::string(ast::Spelling(b->op)) + " " + Print(b->rhs, c) + ")";
      }
      case ast::ExprKind::Ternary: {
        auto* t = static_cast<const ast::TernaryExpr*>(e);
        return "(" + Print(t->cond, c) + " ? " + Print(t->then_value, c) + " : " + Print(t->else_value, c) + ")";
      }
      case ast::ExprKind::Reduce: {
        auto* r = static_cast<const ast::ReduceExpr*>(e);
        Ctx inner = c;
        std::vector<std::string> vars;
        for (const auto& v : r->vars) {
          std::string name = Fresh(v.name.name);
          vars.push_back(name + " < " + Print(v.extent, c));
          inner.names[v.name.name] = name;
        }
        return "(" + r->reducer.name + "(" + Join(vars, ", ") + ") (" + Print(r->body, inner) + "))";
      }
      default: return ast::PrintExpr(e);
    }
  }

 private:
  std::string Fresh(const std::string& base) { return base + "_" + std::to_string(++counter_); }

  // An operand of tensor arithmetic, broadcast as numpy does: its
  // dimensions align with the result's trailing ones, and a 1 against a
  // longer dimension is read at 0.
  std::string Operand(int a, const Node& result, const std::vector<std::string>& idx) {
    const Node& an = g_.nodes[static_cast<size_t>(a)];
    if (!an.tensor) {
      // An integer literal with a float tensor (`x * 2`), converted as the
      // graph's checker converts it.
      std::string v = At(a, {});
      bool int_scalar = an.elem.size() > 1 && (an.elem[0] == 'i' || an.elem[0] == 'u');
      bool float_result = result.elem == "f16" || result.elem == "bf16" || result.elem == "f32" || result.elem == "f64";
      if (int_scalar && float_result) v = (result.elem == "f64" ? "f64(" : "f32(") + v + ")";
      return v;
    }
    std::vector<std::string> j;
    size_t off = result.dims.size() - an.dims.size();
    for (size_t d = 0; d < an.dims.size(); ++d)
      j.push_back(an.dims[d] == "1" && result.dims[off + d] != "1" ? "0" : idx[off + d]);
    return At(a, j);
  }

  // The names an op node's body sees: its shape symbols as the arguments'
  // dimensions, its parameters through its arguments, its intermediates
  // (the anchor's as statements of the fused op, the others inlined).
  Ctx& OpContext(int n) {
    if (auto it = contexts_.find(n); it != contexts_.end()) return it->second;
    const Node& nd = g_.nodes[static_cast<size_t>(n)];
    const ast::OpDecl& op = *nd.op;
    Ctx& c = contexts_[n];
    for (size_t i = 0; i < op.params.size() && i < nd.args.size(); ++i) {
      const ast::Param& p = op.params[i];
      int arg = nd.args[i];
      const Node& an = g_.nodes[static_cast<size_t>(arg)];
      if (!p.type.is_tensor) {
        c.names[p.name.name] = "(" + At(arg, {}) + ")";
        continue;
      }
      for (size_t d = 0; d < p.type.dims.size() && d < an.dims.size(); ++d)
        if (auto* s = ast::dyn_cast<ast::NameExpr>(p.type.dims[d])) c.names[s->name] = DimText(arg, d);
      c.tensors[p.name.name] = [this, arg, n](const std::vector<std::string>& j) {
        auto it = lead_external.find(arg);
        if (n != lead_reads || it == lead_external.end()) return At(arg, j);
        std::string read = it->second + "[" + Join(j, ", ") + "]";
        return Narrow(g_.nodes[static_cast<size_t>(arg)].elem) ? "f32(" + read + ")" : read;
      };
    }
    for (const ast::OpStmt& s : op.body) {
      if (!s.is_let) continue;
      if (n == grp_.anchor) {
        std::string name = Fresh("a_" + s.name.name);
        let_origins[name] = "intermediate '" + s.name.name + "' of op '" + op.name.name + "'";
        Ctx inner = c;
        std::vector<std::string> vars;
        for (const ast::Ident& i : s.indices) {
          vars.push_back(Fresh(i.name));
          inner.names[i.name] = vars.back();
        }
        std::string body = Print(s.value, inner);
        lets.push_back("let " + name + (vars.empty() ? "" : "[" + Join(vars, ", ") + "]") + " = " + body + ";");
        if (vars.empty()) c.names[s.name.name] = name;
        else c.tensors[s.name.name] = [name](const std::vector<std::string>& j) { return name + "[" + Join(j, ", ") + "]"; };
        continue;
      }
      const ast::OpStmt* let = &s;
      if (s.indices.empty()) {
        c.names[s.name.name] = "(" + Print(s.value, c) + ")";
        continue;
      }
      Ctx snapshot = c;
      c.tensors[s.name.name] = [this, let, snapshot](const std::vector<std::string>& j) {
        Ctx inner = snapshot;
        for (size_t k = 0; k < let->indices.size() && k < j.size(); ++k) inner.names[let->indices[k].name] = j[k];
        return "(" + Print(let->value, inner) + ")";
      };
    }
    return c;
  }

 public:
  /// A graph dimension as the fused op names it (constants get symbols,
  /// so that kernels over symbols implement the op).
  std::function<std::string(const std::string&)> SymbolText = [](const std::string& d) { return d; };
  /// Dimension `d` of node `n`'s value as the fused op names it (by
  /// default its graph text through SymbolText).
  std::function<std::string(int, size_t)> DimText = [this](int n, size_t d) {
    return SymbolText(g_.nodes[static_cast<size_t>(n)].dims[d]);
  };

 private:
  const Graph& g_;
  const Group& grp_;
  std::map<int, Ctx> contexts_;
  std::string anchor_let_;
  int counter_ = 0;
};

struct Edit {
  uint32_t begin, end;
  std::string text;
};

}  // namespace

FusedGraph FuseGraph(const Graph& g, const Partition& p, const sema::CheckedModule& m, const SourceManager& sm,
                     const std::string& prefix) {
  FusedGraph fg;
  const std::string gname = g.decl->name.name;
  // Constant dimensions become symbols of the fused ops (D768): a kernel
  // over symbols implements an op over symbols.
  // A dimension written as an expression (2 * N) becomes a symbol too
  // (E0): an op's parameter dimension binds a symbol only by its name.
  std::map<std::string, std::string> expr_symbols;
  auto symbol_text = [&](std::string d) -> std::string {
    d = Unparen(d);
    if (IsNumber(d)) return "D" + d;
    if (IsIdentifier(d)) return d;
    auto [it, fresh] = expr_symbols.emplace(d, "E" + std::to_string(expr_symbols.size()));
    return it->second;
  };
  for (size_t gi = 0; gi < p.groups.size(); ++gi) {
    const Group& grp = p.groups[gi];
    FusedKernel fk;
    fk.op_name = (prefix.empty() ? gname + "_k" : prefix) + std::to_string(gi);
    const Node& outn = g.nodes[static_cast<size_t>(grp.output)];
    // The node a kernel may implement: the anchor, or the first operation
    // of a group without one.
    const int lead = grp.anchor >= 0 ? grp.anchor : grp.members.front();
    const Node& lead_node = g.nodes[static_cast<size_t>(lead)];
    // The fused op's inputs: the lead's arguments, then what the rest of
    // the group reads from outside, in first use.
    std::vector<int> inputs;
    auto add_input = [&](int a) {
      const Node& an = g.nodes[static_cast<size_t>(a)];
      bool inside = std::find(grp.members.begin(), grp.members.end(), a) != grp.members.end();
      if (inside || std::find(inputs.begin(), inputs.end(), a) != inputs.end()) return;
      if (an.kind == Node::Kind::Constant && !std::count(lead_node.args.begin(), lead_node.args.end(), a))
        return;  // a literal, written where it is used
      inputs.push_back(a);
    };
    // A lead argument computed by the prologue brings the values the
    // prologue reads from outside instead, in order.
    auto in_prologue = [&](int a) { return std::count(grp.prologue.begin(), grp.prologue.end(), a) > 0; };
    std::vector<std::vector<int>> lead_inputs(lead_node.args.size());
    std::function<void(int, std::vector<int>*)> expand = [&](int a, std::vector<int>* out) {
      if (in_prologue(a)) {
        for (int w : g.nodes[static_cast<size_t>(a)].args) expand(w, out);
        return;
      }
      size_t before = inputs.size();
      add_input(a);
      if (inputs.size() > before) out->push_back(a);
    };
    for (size_t i = 0; i < lead_node.args.size(); ++i) expand(lead_node.args[i], &lead_inputs[i]);
    const size_t lead_count = inputs.size();
    for (int i : grp.members)
      for (int a : g.nodes[static_cast<size_t>(i)].args) add_input(a);

    // The hand-written kernel of the anchor, rewritten: each store of its
    // result computes the epilogue.
    std::string why;
    const Node* anchor = lead_node.op ? &lead_node : nullptr;
    const std::string& kname = grp.hand_written;
    const ast::KernelDecl* k = nullptr;
    const sema::CheckedModule* kmod = nullptr;
    if (!kname.empty() && anchor) std::tie(k, kmod) = FindKernel(m, kname);
    if (k)
      for (size_t i = 0; i < lead_node.args.size() && why.empty(); ++i) {
        if (!in_prologue(lead_node.args[i]) && lead_inputs[i].size() != 1)
          why = "one value is passed to two of its parameters";
        else if (in_prologue(lead_node.args[i]) && !ReadsElementByElement(*k, i, &why))
          why = "it " + why;
      }
    if (k && why.empty() && k->params.size() != anchor->op->params.size() + 1) why = "its op has several results";
    std::vector<const ast::AssignStmt*> stores;
    if (k && why.empty()) {
      const std::string& y = k->params.back().name.name;
      std::set<const ast::Expr*> store_bases;
      std::function<void(const ast::Stmt*)> find = [&](const ast::Stmt* s) {
        if (!s) return;
        if (auto* a = ast::dyn_cast<ast::AssignStmt>(s)) {
          auto* t = ast::dyn_cast<ast::IndexExpr>(a->target);
          auto* b = t ? ast::dyn_cast<ast::NameExpr>(t->base) : nullptr;
          if (b && b->name == y) {
            if (a->op != ast::AssignOp::Assign) why = "it updates its result in place";
            stores.push_back(a);
            store_bases.insert(t->base);
          }
        }
        if (auto* b = ast::dyn_cast<ast::BlockStmt>(s))
          for (const ast::Stmt* c : b->stmts) find(c);
        if (auto* i = ast::dyn_cast<ast::IfStmt>(s)) {
          find(i->then_body);
          find(i->else_body);
        }
        if (auto* l = ast::dyn_cast<ast::ForStmt>(s)) find(l->body);
        if (auto* w = ast::dyn_cast<ast::WhileStmt>(s)) find(w->body);
      };
      find(k->body);
      WalkStmt(k->body, [&](const ast::Expr* x) {
        auto* n = ast::dyn_cast<ast::NameExpr>(x);
        if (n && n->name == y && !store_bases.count(x)) why = "it reads its result back or passes it on";
      });
      if (stores.empty()) why = "it stores its result in a way tmc cannot rewrite";
    }
    // With a kernel to rewrite, the fused op takes the kernel's dimension
    // names (each parameter as the kernel declares it), so that the kernel
    // implements it even where two of its dimensions are equal in the graph
    // (a square weight); otherwise graph dimensions as symbols.
    const bool rewrite = k && why.empty();
    std::map<int, std::vector<std::string>> kernel_dims;  // input node -> its parameter's dimensions
    std::vector<std::string> ydims;
    std::map<std::string, std::string> to_kernel;  // graph dimension -> kernel dimension
    std::vector<int> doubled;
    std::map<int, std::vector<std::string>> doubled_dims;
    if (rewrite) {
      for (const ast::Expr* d : k->params.back().type.dims) ydims.push_back(ast::PrintExpr(d));
      for (size_t d = 0; d < outn.dims.size() && d < ydims.size(); ++d) to_kernel.emplace(outn.dims[d], ydims[d]);
      // The kernel's parameters name the dimensions of the anchor's
      // arguments: its inputs, and the prologue's (aligned from the right,
      // as they broadcast).
      for (size_t i = 0; i < lead_node.args.size(); ++i) {
        std::vector<std::string> kdims;
        for (const ast::Expr* d : k->params[i].type.dims) kdims.push_back(ast::PrintExpr(d));
        const Node& arg = g.nodes[static_cast<size_t>(lead_node.args[i])];
        for (size_t d = 0; d < arg.dims.size() && d < kdims.size(); ++d) to_kernel.emplace(arg.dims[d], kdims[d]);
        kernel_dims[lead_node.args[i]] = kdims;  // a prologue's value: named as the parameter it replaces
        for (int x : lead_inputs[i]) {
          const Node& xn = g.nodes[static_cast<size_t>(x)];
          if (!xn.tensor) continue;
          std::vector<std::string> dims;
          size_t off = arg.dims.size() >= xn.dims.size() ? arg.dims.size() - xn.dims.size() : 0;
          for (size_t d = 0; d < xn.dims.size(); ++d)
            dims.push_back(off + d < kdims.size() && xn.dims[d] == arg.dims[off + d] ? kdims[off + d]
                           : to_kernel.count(xn.dims[d])                          ? to_kernel[xn.dims[d]]
                                                                                    : symbol_text(xn.dims[d]));
          kernel_dims[x] = dims;
        }
      }
      for (size_t i = lead_count; i < inputs.size(); ++i) {
        const Node& an = g.nodes[static_cast<size_t>(inputs[i])];
        if (!an.tensor) continue;
        std::vector<std::string> dims;
        {
          size_t off = outn.dims.size() - an.dims.size();
          for (size_t d = 0; d < an.dims.size(); ++d)
            dims.push_back(an.dims[d] == outn.dims[off + d] && off + d < ydims.size() ? ydims[off + d] : symbol_text(an.dims[d]));
        }
        kernel_dims[inputs[i]] = dims;
      }
      // An anchor's input that the rest of the group reads too (the
      // residual `x` of `matmul(x, w) + x`) is read there at the result's
      // indices: a parameter of its own, shaped as the result's.
      for (size_t i = 0; i < lead_node.args.size(); ++i) {
        int x = lead_node.args[i];
        const Node& xn = g.nodes[static_cast<size_t>(x)];
        if (in_prologue(x) || !xn.tensor) continue;
        bool elsewhere = false;
        for (int mbr : grp.members)
          elsewhere = elsewhere || (mbr != lead && std::count(g.nodes[static_cast<size_t>(mbr)].args.begin(),
                                                              g.nodes[static_cast<size_t>(mbr)].args.end(), x));
        if (!elsewhere || std::count(doubled.begin(), doubled.end(), x)) continue;
        std::vector<std::string> dims;
        size_t off = outn.dims.size() >= xn.dims.size() ? outn.dims.size() - xn.dims.size() : 0;
        for (size_t d = 0; d < xn.dims.size(); ++d)
          dims.push_back(off + d < ydims.size() && xn.dims[d] == outn.dims[off + d] ? ydims[off + d] : symbol_text(xn.dims[d]));
        doubled.push_back(x);
        doubled_dims[x] = dims;
      }
    }
    // An automatic schedule is made from the fused op itself: constant
    // dimensions stay constants, so that it is chosen for them (a warp per
    // row of 768 elements, not a launch condition on the row length).
    auto op_symbol = [&](const std::string& d) -> std::string {
      auto it = to_kernel.find(d);
      if (it != to_kernel.end()) return it->second;
      if (!rewrite && IsNumber(d)) return d;
      return symbol_text(d);
    };
    // By position where the kernel names it: an input as its parameter,
    // a value of the result's shape as the result.
    auto dim_text = [&](int n, size_t d) -> std::string {
      const Node& nd = g.nodes[static_cast<size_t>(n)];
      if (auto it = kernel_dims.find(n); it != kernel_dims.end() && d < it->second.size()) return it->second[d];
      if (rewrite && nd.dims.size() == ydims.size() && d < ydims.size()) return ydims[d];
      return op_symbol(nd.dims[d]);
    };
    Composer op_text(g, grp);
    op_text.SymbolText = op_symbol;
    op_text.DimText = dim_text;
    // An anchor that reduces inside each element (a matmul) with an
    // epilogue: its value is an intermediate, computed once per element.
    if (grp.anchor >= 0 && !grp.epilogue.empty()) {
      const ast::OpStmt* out = ResultStmt(*g.nodes[static_cast<size_t>(grp.anchor)].op);
      op_text.bind_anchor = HasReduce(out->value);
    }
    std::vector<std::string> params;
    std::set<std::string> used;
    for (int a : inputs) {
      const Node& an = g.nodes[static_cast<size_t>(a)];
      std::string name = IsIdentifier(an.name) ? an.name : "t" + std::to_string(a);
      if (an.kind == Node::Kind::Constant) name = "s" + std::to_string(a);
      while (used.count(name)) name += "_";
      used.insert(name);
      op_text.external[a] = name;
      std::string type = an.elem.empty() ? "f32" : an.elem;
      if (an.tensor) {
        std::vector<std::string> dims;
        if (kernel_dims.count(a)) dims = kernel_dims[a];
        else
          for (const std::string& d : an.dims) dims.push_back(op_symbol(d));
        type += "[" + Join(dims, ", ") + "]";
      }
      params.push_back(name + ": " + type);
      std::string constant = an.literal.empty() && an.expr ? ast::PrintExpr(an.expr) : an.literal;
      fk.args.push_back({an.kind == Node::Kind::Constant ? constant : an.name, an.type, false,
                       an.kind == Node::Kind::Constant ? -1 : a});
    }
    // The anchor's inputs read again by the group, as parameters of their
    // own after the others (the plan binds both to the same value).
    for (int x : doubled) {
      const Node& xn = g.nodes[static_cast<size_t>(x)];
      std::string name = op_text.external[x] + "_e";
      while (used.count(name)) name += "_";
      used.insert(name);
      params.push_back(name + ": " + xn.elem + "[" + Join(doubled_dims[x], ", ") + "]");
      fk.args.push_back({xn.name, xn.type, false, x});
      op_text.lead_external[x] = op_text.external[x];
      op_text.external[x] = name;
    }
    op_text.lead_reads = lead;
    std::vector<std::string> out_idx;
    for (size_t d = 0; d < outn.dims.size(); ++d) out_idx.push_back("_o" + std::to_string(d));
    std::string value = op_text.At(grp.output, out_idx);
    std::vector<std::string> out_dims = ydims;
    if (!rewrite)
      for (const std::string& d : outn.dims) out_dims.push_back(op_symbol(d));
    fk.op_source = "// kernel " + std::to_string(gi) + " of graph '" + gname + "' (tmc --emit=graph)\nop " + fk.op_name +
                   "(" + Join(params, ", ") + ") -> " + outn.elem + "[" + Join(out_dims, ", ") + "] {\n";
    for (const std::string& l : op_text.lets) fk.op_source += "  " + l + "\n";
    fk.op_source += "  out[" + Join(out_idx, ", ") + "] = " + outn.elem + "(" + value + ");\n}\n";
    fk.args.push_back({outn.name, outn.type, true, grp.output});
    fk.let_origins = op_text.let_origins;
    fk.label = "kernel " + std::to_string(gi) + " of graph '" + gname + "'";

    if (rewrite) {
      std::vector<Edit> edits;
      uint32_t base = k->range.begin.offset;
      auto replace = [&](SourceRange r, std::string text) {
        edits.push_back({r.begin.offset - base, r.end.offset - base, std::move(text)});
      };
      fk.kernel_name = fk.op_name + "_" + k->name.name;
      replace(k->name.range, fk.kernel_name);
      replace(k->implements->range, fk.op_name);
      // Element-type parameters bound by the arguments.
      std::set<std::string> bound;
      for (size_t i = 0; i < anchor->op->params.size(); ++i) {
        const ast::TypeSpec& t = k->params[i].type;
        if (!t.param || !bound.insert(t.param->name).second) continue;
        const std::string& elem = g.nodes[static_cast<size_t>(anchor->args[i])].elem;
        for (const ast::CtParam& cp : k->ct_params) {
          if (cp.name.name != t.param->name) continue;
          if (cp.has_candidates && !cp.candidates.empty())
            edits.push_back({cp.candidates.front()->range.begin.offset - base, cp.candidates.back()->range.end.offset - base, elem});
          if (cp.default_value) replace(cp.default_value->range, elem);
        }
      }
      // Names in the kernel: the anchor's arguments are its parameters;
      // the epilogue's other inputs become parameters before the result.
      const ast::Param& y = k->params.back();
      Composer kt(g, grp);
      kt.lead = lead;
      kt.SymbolText = op_symbol;
      kt.DimText = dim_text;
      std::string extra;
      std::set<std::string> kernel_names;
      for (const ast::Param& kp : k->params) kernel_names.insert(kp.name.name);
      // A value from outside as a new parameter `g_NAME: T[dims]`.
      auto new_param = [&](int a, const std::vector<std::string>& dims) {
        const Node& an = g.nodes[static_cast<size_t>(a)];
        std::string name = "g_" + op_text.external[a];
        while (kernel_names.count(name)) name += "_";
        kernel_names.insert(name);
        kt.external[a] = name;
        std::string type = an.elem.empty() ? "f32" : an.elem;
        if (an.tensor) type += "[" + Join(dims, ", ") + "]";
        return name + ": " + type;
      };
      // The anchor's arguments are its parameters; a parameter computed by
      // the prologue becomes the prologue's inputs, and each element read
      // of it computes the prologue there.
      std::vector<Edit> reads;  // absolute offsets
      for (size_t i = 0; i < lead_node.args.size(); ++i) {
        int arg = lead_node.args[i];
        const ast::Param& kp = k->params[i];
        if (!in_prologue(arg)) {
          kt.external[lead_inputs[i].front()] = kp.name.name;
          continue;
        }
        std::vector<std::string> params;
        for (int x : lead_inputs[i]) params.push_back(new_param(x, kernel_dims[x]));
        replace(SourceRange{kp.name.range.begin, kp.type.range.end}, Join(params, ", "));
        const std::string elem = g.nodes[static_cast<size_t>(arg)].elem;
        WalkStmt(k->body, [&](const ast::Expr* x) {
          auto* ix = ast::dyn_cast<ast::IndexExpr>(x);
          auto* b = ix ? ast::dyn_cast<ast::NameExpr>(ix->base) : nullptr;
          if (!b || b->name != kp.name.name || ix->indices.size() != kp.type.dims.size()) return;
          std::vector<std::string> idx;
          for (const ast::Expr* e : ix->indices) idx.push_back("(" + std::string(sm.Text(e->range)) + ")");
          reads.push_back({x->range.begin.offset, x->range.end.offset, elem + "(" + kt.At(arg, idx) + ")"});
        });
      }
      // The source of `r` with the prologue's reads inside it rewritten;
      // those reads are then part of this text, not edits of their own.
      std::set<size_t> taken_reads;
      auto text_of = [&](SourceRange r) {
        std::string t(sm.Text(r));
        std::vector<size_t> inside;
        for (size_t e = 0; e < reads.size(); ++e)
          if (reads[e].begin >= r.begin.offset && reads[e].end <= r.end.offset) inside.push_back(e);
        std::sort(inside.begin(), inside.end(), [&](size_t a, size_t b) { return reads[a].begin > reads[b].begin; });
        for (size_t e : inside) {
          t.replace(reads[e].begin - r.begin.offset, reads[e].end - reads[e].begin, reads[e].text);
          taken_reads.insert(e);
        }
        return t;
      };
      for (size_t i = lead_count; i < inputs.size(); ++i) extra += new_param(inputs[i], kernel_dims[inputs[i]]) + ", ";
      for (int x : doubled) {
        kt.lead_external[x] = kt.external[x];
        kt.lead_reads = lead;
        extra += new_param(x, doubled_dims[x]) + ", ";
      }
      if (!extra.empty()) edits.push_back({y.name.range.begin.offset - base, y.name.range.begin.offset - base, extra});
      replace(y.type.range, outn.elem + "[" + Join(ydims, ", ") + "]");
      int count = 0;
      for (const ast::AssignStmt* st : stores) {
        auto* t = static_cast<const ast::IndexExpr*>(st->target);
        std::vector<std::string> idx;
        for (const ast::Expr* i : t->indices) idx.push_back("(" + std::string(sm.Text(i->range)) + ")");
        std::string ev = "_ev" + std::to_string(count++);
        kt.anchor_value = [&, ev](const std::vector<std::string>&) { return Narrow(anchor->elem) ? "f32(" + ev + ")" : ev; };
        std::string e = kt.At(grp.output, idx);
        replace(SourceRange{st->range.begin, st->value->range.end},
                "let " + ev + " = " + text_of(st->value->range) + "; " + text_of(st->target->range) + " = " + outn.elem +
                    "(" + e + ")");
      }
      for (size_t e = 0; e < reads.size(); ++e)
        if (!taken_reads.count(e)) edits.push_back({reads[e].begin - base, reads[e].end - base, reads[e].text});
      std::string text(sm.Text(k->range));
      std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
      for (const Edit& ed : edits) text.replace(ed.begin, ed.end - ed.begin, ed.text);
      std::string fused = grp.prologue.empty() ? "epilogue" : grp.epilogue.empty() ? "prologue" : "prologue and epilogue";
      fk.kernel_source = "// kernel " + std::to_string(gi) + " of graph '" + gname + "': kernel '" + k->name.name + "' with " +
                         (grp.prologue.empty() ? "the epilogue fused where it stores its result"
                                               : "the prologue fused where it reads its inputs" +
                                                     std::string(grp.epilogue.empty() ? "" : ", the epilogue where it stores")) +
                         "\n" + text + "\n";
      fk.schedule = "kernel '" + k->name.name + "' (implements " + anchor->op->name.name + "), " + fused + " fused";
      if (std::find(fg.imports.begin(), fg.imports.end(), kmod->name) == fg.imports.end() && kmod != &m) {
        for (const sema::CheckedModule* imp : kmod->imports)
          if (std::find(fg.imports.begin(), fg.imports.end(), imp->name) == fg.imports.end()) fg.imports.push_back(imp->name);
        fg.imports.push_back(kmod->name);
      }
    } else {
      if (k)
        fg.notes.push_back(fk.label + " is scheduled automatically: kernel '" + k->name.name + "' cannot take it (" + why +
                           ")");
      fk.schedule = "automatic";
      if (k) fk.not_taken = "kernel '" + k->name.name + "' cannot take it: " + why;
    }
    fg.kernels.push_back(std::move(fk));
  }
  return fg;
}

void ScheduleFused(FusedGraph* fg, const sema::CheckedModule& m) {
  std::set<std::string> taken = VisibleNames(m);
  for (FusedKernel& fk : fg->kernels) {
    if (!fk.kernel_source.empty()) continue;
    std::vector<std::string> known;
    const ast::OpDecl* op = FindOp(m, fk.op_name, &known);
    if (!op) continue;
    AutoKernel k = ScheduleOp(*op, taken);
    if (k.slow) {
      // The reason names the fused op's intermediates: say what they are.
      std::string why = k.why_serial;
      for (const auto& [name, origin] : fk.let_origins)
        for (size_t at = 0; (at = why.find("'" + name + "'", at)) != std::string::npos; at += origin.size())
          why.replace(at, name.size() + 2, origin);
      fg->notes.push_back(fk.label + " (op " + fk.op_name + ") gets the serial automatic schedule (" + why +
                          "): one thread per element; a kernel that implements its anchor's op would be faster");
    }
    fk.kernel_name = k.name;
    fk.kernel_source = k.source;
    fk.schedule = std::string("automatic (rule: ") + RuleName(k.rule) + ")";
    taken.insert(k.name);
  }
}

}  // namespace tmc::graph
