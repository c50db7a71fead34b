// Hidet's partition rules over a graph's data flow (docs/fusion.md, "Graphs").
#include "graph/partition.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "frontend/ast/ast_printer.h"
#include "frontend/check/types.h"
#include "graph/ast_walk.h"
#include "graph/auto_schedule.h"

namespace tmc::graph {
namespace {

// An index of a result of `op` that its definition never uses directly as
// a tensor index (`out[i, j] = sum(k < 2) X[i, (j + k) % C]`: j), or "".
// With an epilogue fused, the op's result becomes a `let` of the fused op,
// whose extents the checker infers only from such uses (its declared
// result shape is gone).
std::string UninferableResultIndex(const ast::OpDecl& op) {
  for (const ast::OpStmt& st : op.body) {
    if (st.is_let) continue;
    for (const ast::Ident& index : st.indices) {
      bool direct = false;
      Walk(st.value, [&](const ast::Expr* e) {
        if (auto* x = ast::dyn_cast<ast::IndexExpr>(e))
          for (const ast::Expr* i : x->indices)
            if (auto* n = ast::dyn_cast<ast::NameExpr>(i); n && n->name == index.name) direct = true;
      });
      if (!direct) return index.name;
    }
  }
  return "";
}

std::vector<int> DistinctUsers(const Node& n) {
  std::vector<int> u = n.users;
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  return u;
}

/// What a node is called in listings: `h = matmul(x, w)`, or the expression.
std::string Label(const Node& n) {
  if (n.kind == Node::Kind::Input || n.kind == Node::Kind::Constant || !n.expr) return n.name;
  std::string e = ast::PrintExpr(n.expr);
  return n.name == e ? e : n.name + " = " + e;
}

/// Whether consumer `u` reads `v` only at the element it writes.
bool ReadsElementwise(const Graph& g, int u, int v) {
  const Node& un = g.nodes[static_cast<size_t>(u)];
  if (un.kind == Node::Kind::Arith) return g.nodes[static_cast<size_t>(v)].type == un.type;  // not the broadcast side
  if (un.kind != Node::Kind::OpCall || !un.op) return false;
  for (size_t i = 0; i < un.args.size(); ++i)
    if (un.args[i] == v && !ReadsAtOwnIndex(*un.op, i)) return false;
  return true;
}

/// The kernel visible in `m` (or its imports) named `name`, and its module.
}  // namespace

std::pair<const ast::KernelDecl*, const sema::CheckedModule*> FindKernel(const sema::CheckedModule& m,
                                                                         const std::string& name) {
  std::vector<const sema::CheckedModule*> modules = {&m};
  modules.insert(modules.end(), m.imports.begin(), m.imports.end());
  for (const sema::CheckedModule* mod : modules)
    for (const ast::Decl* d : mod->ast->decls)
      if (auto* k = ast::dyn_cast<ast::KernelDecl>(d); k && k->name.name == name) return {k, mod};
  return {nullptr, nullptr};
}

bool ReadsElementByElement(const ast::KernelDecl& k, size_t param, std::string* why) {
  if (param >= k.params.size()) return false;
  const ast::Param& p = k.params[param];
  const std::string& name = p.name.name;
  // A tensor map: the TMA unit reads the tensor itself, so no producer can
  // be computed into its reads.
  if (auto* by = ast::dyn_cast<ast::NameExpr>(p.by); by && by->name == "tma") {
    *why = "passes '" + name + "' as a TMA tensor map";
    return false;
  }
  // Reads that are copies (their address is taken): the arguments of the
  // built-ins that move memory.
  static const std::set<std::string> kCopies = {"cp_async", "ldmatrix", "ldmatrix_t", "atomic_add", "atomic_min",
                                                "atomic_max", "atomic_exch", "atomic_cas"};
  std::set<const ast::Expr*> element_reads;
  std::map<const ast::Expr*, std::string> copied;  // argument -> the built-in
  WalkStmt(k.body, [&](const ast::Expr* x) {
    if (auto* c = ast::dyn_cast<ast::CallExpr>(x); c && kCopies.count(c->callee.name))
      for (const ast::Expr* a : c->args) copied[a] = c->callee.name;
    auto* ix = ast::dyn_cast<ast::IndexExpr>(x);
    auto* base = ix ? ast::dyn_cast<ast::NameExpr>(ix->base) : nullptr;
    if (base && base->name == name && ix->indices.size() == p.type.dims.size()) element_reads.insert(x);
  });
  bool ok = true;
  WalkStmt(k.body, [&](const ast::Expr* x) {
    if (!ok) return;
    if (copied.count(x) && element_reads.count(x)) {
      ok = false;
      *why = "copies '" + name + "' with " + copied[x];
      return;
    }
    auto* ix = ast::dyn_cast<ast::IndexExpr>(x);
    if (ix && element_reads.count(x)) return;
    auto* n = ast::dyn_cast<ast::NameExpr>(x);
    if (!n || n->name != name) return;
    // The base of an element read is visited after its IndexExpr.
    bool is_base = false;
    for (const ast::Expr* r : element_reads) is_base = is_base || static_cast<const ast::IndexExpr*>(r)->base == x;
    if (!is_base) {
      ok = false;
      *why = "uses '" + name + "' other than by reading its elements (a view, or an argument)";
    }
  });
  return ok;
}

namespace {

/// Whether kernel parameter type `t` can take elements of type `elem`: the
/// same scalar, or an element-type parameter that lists it (or lists none).
bool AcceptsElement(const ast::KernelDecl& k, const ast::TypeSpec& t, const std::string& elem) {
  if (!t.param) return ScalarName(t.elem) == elem;
  for (const ast::CtParam& p : k.ct_params) {
    if (p.name.name != t.param->name) continue;
    if (!p.has_candidates) return true;
    for (const ast::Expr* c : p.candidates)
      if (ast::PrintExpr(c) == elem) return true;
    return false;
  }
  return true;
}

/// The first kernel visible in `m` that implements `op` for these argument
/// element types, if any.
std::string ImplementingKernel(const sema::CheckedModule& m, const ast::OpDecl& op,
                               const std::vector<std::string>& arg_elems) {
  std::vector<const sema::CheckedModule*> modules = {&m};
  modules.insert(modules.end(), m.imports.begin(), m.imports.end());
  for (const sema::CheckedModule* mod : modules)
    for (const ast::Decl* d : mod->ast->decls) {
      auto* k = ast::dyn_cast<ast::KernelDecl>(d);
      if (!k || !k->implements || k->implements->name != op.name.name) continue;
      bool fits = true;
      for (size_t i = 0; i < arg_elems.size() && i < k->params.size(); ++i)
        if (k->params[i].type.is_tensor && !AcceptsElement(*k, k->params[i].type, arg_elems[i])) fits = false;
      if (fits) return k->name.name;
    }
  return "";
}

}  // namespace

Graph BuildGraph(const ast::GraphDecl& decl, const sema::CheckedModule& m) {
  Graph g;
  g.decl = &decl;
  std::map<std::string, int> env;
  auto add = [&](Node n) {
    g.nodes.push_back(std::move(n));
    return static_cast<int>(g.nodes.size() - 1);
  };
  for (const ast::Param& p : decl.params) {
    Node n;
    n.kind = Node::Kind::Input;
    n.name = p.name.name;
    n.type = ast::PrintType(p.type);
    n.tensor = p.type.is_tensor;
    n.elem = p.type.param ? p.type.param->name : std::string(ScalarName(p.type.elem));
    for (const ast::Expr* d : p.type.dims) n.dims.push_back(ast::PrintExpr(d));
    env[n.name] = add(n);
  }
  std::function<int(const ast::Expr*)> build = [&](const ast::Expr* e) -> int {
    if (auto* name = ast::dyn_cast<ast::NameExpr>(e))
      if (auto it = env.find(name->name); it != env.end()) return it->second;
    Node n;
    n.expr = e;
    n.name = ast::PrintExpr(e);
    n.type = e->type ? e->type->ToString() : "?";
    n.tensor = e->type && e->type->IsTensor();
    if (e->type) {
      n.elem = std::string(ScalarName(e->type->scalar));
      for (const sema::Dim& d : e->type->dims) n.dims.push_back(d.ToString());
    }
    if (auto* call = ast::dyn_cast<ast::CallExpr>(e)) {
      std::vector<std::string> known;
      n.kind = Node::Kind::OpCall;
      n.op = FindOp(m, call->callee.name, &known);
      for (const ast::Expr* a : call->args) n.args.push_back(build(a));
      n.anchor = n.op && OpHasReduction(*n.op);
      n.injective = n.op && !n.anchor;
    } else if (auto* b = ast::dyn_cast<ast::BinaryExpr>(e); b && n.tensor) {
      n.kind = Node::Kind::Arith;
      n.args = {build(b->lhs), build(b->rhs)};
      n.injective = true;
    } else {
      n.kind = Node::Kind::Constant;  // a literal or scalar expression, computed where it is used
      // The checker's value, as the launch plan's runtime reads it: the
      // source text (`(-0.25)`, `0.1f16`) is no number to it.
      if (auto c = m.constants.find(e); c != m.constants.end() && c->second.kind != sema::ConstValue::Kind::Mapping)
        n.literal = c->second.ToString();  // shortest text that reads back as the value
    }
    return add(n);
  };
  for (const ast::Stmt* s : decl.body->stmts) {
    if (auto* let = ast::dyn_cast<ast::LetStmt>(s)) {
      int id = build(let->init);
      if (g.nodes[static_cast<size_t>(id)].expr == let->init) g.nodes[static_cast<size_t>(id)].name = let->name.name;
      env[let->name.name] = id;
    } else if (auto* ret = ast::dyn_cast<ast::ReturnStmt>(s); ret && ret->value) {
      g.outputs.push_back(build(ret->value));
      for (const ast::Expr* e : ret->more) g.outputs.push_back(build(e));
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int a : g.nodes[i].args) g.nodes[static_cast<size_t>(a)].users.push_back(static_cast<int>(i));
  // Result names: the declared ones, else `out`, never a parameter's.
  std::set<std::string> taken;
  for (const ast::Param& p : decl.params) taken.insert(p.name.name);
  for (size_t r = 0; r < g.outputs.size(); ++r) {
    std::string name = r < decl.results.size() ? decl.results[r].name.name : "out";
    while (taken.count(name)) name += "_";
    taken.insert(name);
    g.output_names.push_back(name);
  }
  return g;
}

Partition PartitionGraph(const Graph& g, const sema::CheckedModule& m, bool fuse) {
  Partition p;
  const size_t n = g.nodes.size();
  std::vector<int> group_of(n, -1);
  auto node = [&](int i) -> const Node& { return g.nodes[static_cast<size_t>(i)]; };
  auto computes = [&](int i) { return node(i).kind == Node::Kind::OpCall || node(i).kind == Node::Kind::Arith; };
  auto new_group = [&](int first, bool anchor) {
    Group grp;
    grp.anchor = anchor ? first : -1;
    grp.members = {first};
    grp.output = first;
    p.groups.push_back(grp);
    group_of[static_cast<size_t>(first)] = static_cast<int>(p.groups.size() - 1);
    return static_cast<int>(p.groups.size() - 1);
  };

  if (fuse) {
    for (int a = 0; a < static_cast<int>(n); ++a) {
      if (!node(a).anchor) continue;
      int gid = new_group(a, true);
      // Epilogue: the single, element-wise, injective consumer, repeatedly.
      for (int v = a;;) {
        std::vector<int> users = DistinctUsers(node(v));
        if (users.empty()) break;
        if (g.IsOutput(v)) {
          p.notes.push_back("'" + node(v).name + "' is " + (g.outputs.size() == 1 ? "the graph's result" : "a result of the graph") +
                            ", so it is stored and ends the group");
          break;
        }
        if (users.size() > 1) {
          p.notes.push_back("'" + node(v).name + "' has " + std::to_string(users.size()) +
                            " users, so none is fused into its epilogue");
          break;
        }
        int u = users[0];
        if (group_of[static_cast<size_t>(u)] != -1) {
          p.notes.push_back("'" + Label(node(u)) + "' is not fused into the epilogue of '" + Label(node(a)) +
                            "': it is in the epilogue of another anchor, which reads this one's result from memory");
          break;
        }
        if (!node(u).injective) {
          p.notes.push_back("'" + Label(node(u)) + "' is not fused into the epilogue of '" + Label(node(a)) +
                            "': it " + (node(u).anchor ? "reduces (an anchor of its own)" : "is not injective"));
          break;
        }
        if (!ReadsElementwise(g, u, v)) {
          p.notes.push_back("'" + Label(node(u)) + "' is not fused into the epilogue of '" + Label(node(a)) +
                            "': it reads '" + node(v).name + "' at other elements than it writes");
          break;
        }
        if (v == a && node(a).op) {
          std::string index = UninferableResultIndex(*node(a).op);
          if (!index.empty()) {
            p.notes.push_back("'" + Label(node(u)) + "' is not fused into the epilogue of '" + Label(node(a)) +
                              "': the result index '" + index + "' of op '" + node(a).op->name.name +
                              "' indexes no tensor directly, so a fused op could not infer its extent");
            break;
          }
        }
        p.groups[static_cast<size_t>(gid)].epilogue.push_back(u);
        group_of[static_cast<size_t>(u)] = gid;
        v = u;
        p.groups[static_cast<size_t>(gid)].output = u;
      }
      // Prologue: injective producers whose every user is in the group.
      std::function<void(int)> prologue = [&](int v) {
        if (!node(v).injective || group_of[static_cast<size_t>(v)] != -1 || g.IsOutput(v)) return;
        for (int u : node(v).users)
          if (group_of[static_cast<size_t>(u)] != gid) {
            p.notes.push_back("'" + Label(node(v)) + "' is not fused into the prologue of '" + Label(node(a)) +
                              "': '" + Label(node(u)) + "' also reads it");
            return;
          }
        group_of[static_cast<size_t>(v)] = gid;
        p.groups[static_cast<size_t>(gid)].prologue.insert(p.groups[static_cast<size_t>(gid)].prologue.begin(), v);
        for (int w : node(v).args) prologue(w);
      };
      // A hand-written kernel takes a prologue where it reads the input
      // element by element; one that copies it (cp_async, ldmatrix)
      // leaves its producer a kernel of its own.
      std::vector<std::string> elems;
      for (int w : node(a).args) elems.push_back(node(w).elem);
      std::string kname = node(a).op ? ImplementingKernel(m, *node(a).op, elems) : "";
      const ast::KernelDecl* kernel = kname.empty() ? nullptr : FindKernel(m, kname).first;
      for (size_t i = 0; i < node(a).args.size(); ++i) {
        int w = node(a).args[i];
        std::string why;
        if (kernel && node(w).injective && group_of[static_cast<size_t>(w)] == -1 && !g.IsOutput(w) &&
            !ReadsElementByElement(*kernel, i, &why)) {
          p.notes.push_back("'" + Label(node(w)) + "' is not fused into the prologue of '" + Label(node(a)) +
                            "': kernel '" + kname + "' " + why);
          continue;
        }
        prologue(w);
      }
    }
  }
  // The rest: each op call or arithmetic node a group, joined (fusing on)
  // to the group of an injective producer it alone reads element by element.
  for (int i = 0; i < static_cast<int>(n); ++i) {
    if (!computes(i) || group_of[static_cast<size_t>(i)] != -1) continue;
    int joined = -1;
    if (fuse && node(i).injective)
      for (int a : node(i).args) {
        int h = group_of[static_cast<size_t>(a)];
        if (h < 0 || p.groups[static_cast<size_t>(h)].anchor >= 0 || p.groups[static_cast<size_t>(h)].output != a) continue;
        if (g.IsOutput(a) || DistinctUsers(node(a)).size() != 1 || !ReadsElementwise(g, i, a)) continue;
        joined = h;
        break;
      }
    if (joined < 0) {
      new_group(i, node(i).anchor);
      continue;
    }
    Group& grp = p.groups[static_cast<size_t>(joined)];
    grp.epilogue.push_back(i);
    grp.output = i;
    group_of[static_cast<size_t>(i)] = joined;
  }
  for (size_t gi = 0; gi < p.groups.size(); ++gi) {
    Group& grp = p.groups[gi];
    grp.members.clear();
    for (int i = 0; i < static_cast<int>(n); ++i)
      if (group_of[static_cast<size_t>(i)] == static_cast<int>(gi)) grp.members.push_back(i);
    const Node& lead = node(grp.anchor >= 0 ? grp.anchor : grp.members.front());
    std::vector<std::string> elems;
    for (int a : lead.args) elems.push_back(node(a).type.substr(0, node(a).type.find('[')));
    std::string k = lead.op ? ImplementingKernel(m, *lead.op, elems) : "";
    grp.hand_written = k;
    if (!k.empty()) grp.kernel = "kernel '" + k + "' (implements " + lead.op->name.name + ")";
    else if (lead.op) grp.kernel = std::string("automatic schedule (rule: ") + RuleName(ScheduleOp(*lead.op, {}).rule) + ")";
    else grp.kernel = "automatic schedule (rule: injective)";
  }
  // Run order: a group after the groups that produce what it reads (the
  // groups form a DAG: a fused value has no users outside its group).
  std::vector<Group> ordered;
  std::vector<bool> done(p.groups.size(), false);
  while (ordered.size() < p.groups.size()) {
    for (size_t gi = 0; gi < p.groups.size(); ++gi) {
      if (done[gi]) continue;
      bool ready = true;
      for (int i : p.groups[gi].members)
        for (int a : node(i).args) {
          int h = group_of[static_cast<size_t>(a)];
          if (h >= 0 && h != static_cast<int>(gi) && !done[static_cast<size_t>(h)]) ready = false;
        }
      if (!ready) continue;
      done[gi] = true;
      ordered.push_back(p.groups[gi]);
      break;
    }
  }
  p.groups = std::move(ordered);
  return p;
}

std::string PrintPartition(const Graph& g, const Partition& p) {
  auto node = [&](int i) -> const Node& { return g.nodes[static_cast<size_t>(i)]; };
  size_t ops = 0;
  for (const Node& nd : g.nodes) ops += nd.kind == Node::Kind::OpCall || nd.kind == Node::Kind::Arith;
  std::string s = "graph " + g.decl->name.name + ": " + std::to_string(ops) + " operation" + (ops == 1 ? "" : "s") +
                  " in " + std::to_string(p.groups.size()) + " kernel" + (p.groups.size() == 1 ? "" : "s") + "\n";
  for (size_t gi = 0; gi < p.groups.size(); ++gi) {
    const Group& grp = p.groups[gi];
    s += "kernel " + std::to_string(gi) + ": ";
    if (grp.anchor >= 0) s += "anchor " + Label(node(grp.anchor));
    else s += "injective " + Label(node(grp.members.front()));
    s += "\n  scheduled by: " + grp.kernel + "\n";
    for (int i : grp.prologue) s += "  prologue: " + Label(node(i)) + "\n";
    for (int i : grp.epilogue) s += "  epilogue: " + Label(node(i)) + "\n";
    std::vector<std::string> reads;
    for (int i : grp.members)
      for (int a : node(i).args) {
        const Node& an = node(a);
        bool inside = std::find(grp.members.begin(), grp.members.end(), a) != grp.members.end();
        std::string r = an.name + " " + an.type;
        if (!inside && an.kind != Node::Kind::Constant && std::find(reads.begin(), reads.end(), r) == reads.end())
          reads.push_back(r);
      }
    std::string joined;
    for (const std::string& r : reads) joined += (joined.empty() ? "" : ", ") + r;
    s += "  reads: " + joined + "\n";
    s += "  writes: " + node(grp.output).name + " " + node(grp.output).type +
         (!g.IsOutput(grp.output)      ? ""
          : g.outputs.size() == 1 ? " (the graph's result)"
                                  : " (result '" + g.output_names[static_cast<size_t>(std::find(g.outputs.begin(), g.outputs.end(), grp.output) - g.outputs.begin())] + "' of the graph)") + "\n";
  }
  for (const std::string& note : p.notes) s += "not fused: " + note + "\n";
  return s;
}

std::string PrintDot(const Graph& g, const Partition& p) {
  std::string s = "digraph " + Quote(g.decl->name.name) + " {\n  node [fontname=\"monospace\"];\n";
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& nd = g.nodes[i];
    if (nd.kind == Node::Kind::Constant) continue;
    std::string shape = nd.kind == Node::Kind::Input ? "ellipse" : nd.anchor ? "box, style=bold" : "box";
    s += "  n" + std::to_string(i) + " [label=" + Quote(Label(nd) + "\n" + nd.type) + ", shape=" + shape + "];\n";
  }
  for (size_t gi = 0; gi < p.groups.size(); ++gi) {
    s += "  subgraph cluster_" + std::to_string(gi) + " {\n    label=" +
         Quote("kernel " + std::to_string(gi) + ": " + p.groups[gi].kernel) + ";\n";
    for (int i : p.groups[gi].members) s += "    n" + std::to_string(i) + ";\n";
    s += "  }\n";
  }
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int a : g.nodes[i].args)
      if (g.nodes[static_cast<size_t>(a)].kind != Node::Kind::Constant)
        s += "  n" + std::to_string(a) + " -> n" + std::to_string(i) + ";\n";
  return s + "}\n";
}

}  // namespace tmc::graph
