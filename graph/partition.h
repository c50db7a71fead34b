// Graphs as data flow, and their partition into groups that each become one
// kernel (Hidet's rules): at most one anchor per group (an op with a
// reduction); injective producers fused into the anchor's prologue when the
// group is their only user; injective consumers fused into its epilogue when
// they read the anchor's result element by element and are its only user.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "frontend/check/checker.h"

namespace tmc::graph {

struct Node {
  enum class Kind { Input, Constant, OpCall, Arith };
  Kind kind = Kind::Input;
  std::string name;                     // a parameter's or let's name, else the expression
  std::string literal;                  // Constant: its value as a number ("-0.25"), empty for a scalar parameter
  const ast::Expr* expr = nullptr;      // the expression that computes it (null for inputs)
  const ast::OpDecl* op = nullptr;      // OpCall
  std::vector<int> args;                // the nodes it reads, in argument order
  std::vector<int> users;               // the nodes that read it
  std::string type;                     // "f16[M, 3072]", "f32"
  std::string elem;                     // "f16"
  std::vector<std::string> dims;        // "M", "3072"
  bool tensor = false;
  bool anchor = false;                  // an op with a reduction
  bool injective = false;               // op without reduction, or tensor arithmetic
};

struct Graph {
  const ast::GraphDecl* decl = nullptr;
  std::vector<Node> nodes;  // in program order (topological)
  std::vector<int> outputs;               // the graph's results, in order
  std::vector<std::string> output_names;  // `out`, or the declared names
  bool IsOutput(int n) const { return std::find(outputs.begin(), outputs.end(), n) != outputs.end(); }
};

/// The kernel visible in `m` (or its imports) named `name`, and its module.
std::pair<const ast::KernelDecl*, const sema::CheckedModule*> FindKernel(const sema::CheckedModule& m,
                                                                         const std::string& name);

/// Whether kernel `k` reads its parameter `param` only element by element
/// (`A[i, j]` with every index, as a value): then a prologue can compute
/// there. Not when it copies it (`cp_async`, `ldmatrix`), takes a view of
/// it (`A[b]`) or passes it on; `why` says which ("copies 'A' with
/// cp_async").
bool ReadsElementByElement(const ast::KernelDecl& k, size_t param, std::string* why);

/// The data flow of a checked graph. Op calls are resolved in `m` and the
/// modules it imports.
Graph BuildGraph(const ast::GraphDecl& decl, const sema::CheckedModule& m);

struct Group {
  int anchor = -1;               // the anchor node, or -1 for a group of injective nodes
  std::vector<int> prologue;     // fused into the anchor's loads, producers first
  std::vector<int> epilogue;     // fused into its stores, in order
  std::vector<int> members;      // every node of the group, in program order
  int output = -1;               // the node whose value the group writes
  std::string kernel;            // what schedules the anchor (or the group), for listings
  std::string hand_written;      // the kernel that implements the lead's op, if any
};

struct Partition {
  std::vector<Group> groups;        // in an order that runs them
  std::vector<std::string> notes;   // why a candidate was not fused
};

/// `fuse` false (--no-fuse): one group per op call or arithmetic node.
Partition PartitionGraph(const Graph& g, const sema::CheckedModule& m, bool fuse);

/// --emit=graph: the groups, their anchors, what was fused where and why
/// not, for one graph.
std::string PrintPartition(const Graph& g, const Partition& p);

/// --emit=dot: the graph for Graphviz, one cluster per group.
std::string PrintDot(const Graph& g, const Partition& p);

}  // namespace tmc::graph
