// Launch plans (graph/launch_plan.h): buffers placed by lifetime, as
// formulas, and the plan's JSON for the runtime.
#include "graph/launch_plan.h"

#include <algorithm>
#include <map>
#include <optional>

#include "graph/ast_walk.h"
#include "support/scalar_type.h"

namespace tmc::graph {
namespace {

int ElemBytes(const std::string& elem) {
  std::optional<ScalarKind> k = ParseScalar(elem);
  return k ? ScalarBytes(*k) : 4;
}

/// The bytes of a tensor of `dims` elements of `elem`, rounded up to 256
/// (the alignment of every buffer in the workspace): constant factors
/// folded, "((M * 6144 + 255) / 256 * 256)".
std::string BytesFormula(const std::vector<std::string>& dims, const std::string& elem) {
  int64_t constant = ElemBytes(elem);
  std::vector<std::string> symbolic;
  for (const std::string& d : dims) {
    std::string t = Unparen(d);
    if (IsNumber(t)) constant *= std::stoll(t);
    else symbolic.push_back(IsIdentifier(t) ? t : "(" + t + ")");
  }
  if (symbolic.empty()) return std::to_string((constant + 255) / 256 * 256);
  if (constant != 1) symbolic.push_back(std::to_string(constant));
  return "((" + Join(symbolic, " * ") + " + 255) / 256 * 256)";
}

/// a + b, folding constants ("0 + x" is "x").
std::string Add(const std::string& a, const std::string& b) {
  if (IsNumber(a) && IsNumber(b)) return std::to_string(std::stoll(a) + std::stoll(b));
  if (a == "0") return b;
  if (b == "0") return a;
  return a + " + " + b;
}

std::string ShapeJson(const Node& n) {
  std::vector<std::string> dims;
  for (const std::string& d : n.dims) dims.push_back(Quote(Unparen(d)));
  return "[" + Join(dims, ", ") + "]";
}

}  // namespace

LaunchPlan PlanLaunches(const Graph& g, const FusedGraph& fg) {
  LaunchPlan plan;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].kind == Node::Kind::Input) plan.inputs.push_back(static_cast<int>(i));
  plan.outputs = g.outputs;
  plan.output_names = g.output_names;
  auto is_param = [&](int n) {
    return std::count(plan.inputs.begin(), plan.inputs.end(), n) || std::count(plan.outputs.begin(), plan.outputs.end(), n);
  };
  // Each value a kernel writes that is not the graph's: a buffer, alive
  // from its writer to its last reader.
  std::map<int, size_t> buffer_of;
  for (size_t k = 0; k < fg.kernels.size(); ++k)
    for (const PlanArg& a : fg.kernels[k].args) {
      if (a.node < 0 || is_param(a.node)) continue;
      if (a.output) {
        buffer_of[a.node] = plan.buffers.size();
        PlanBuffer b;
        b.node = a.node;
        const Node& n = g.nodes[static_cast<size_t>(a.node)];
        b.bytes = BytesFormula(n.dims, n.elem);
        b.written_by = b.last_read_by = static_cast<int>(k);
        plan.buffers.push_back(b);
      } else if (auto it = buffer_of.find(a.node); it != buffer_of.end()) {
        plan.buffers[it->second].last_read_by = static_cast<int>(k);
      }
    }
  // First fit by lifetime; a slot of the same size is preferred, so that
  // a slot grows (to the larger of its buffers) only when it must.
  std::vector<std::vector<size_t>> slots;
  auto free_for = [&](const std::vector<size_t>& slot, const PlanBuffer& b) {
    return std::all_of(slot.begin(), slot.end(), [&](size_t o) { return plan.buffers[o].last_read_by < b.written_by; });
  };
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    PlanBuffer& b = plan.buffers[i];
    int chosen = -1;
    for (int pass = 0; pass < 2 && chosen < 0; ++pass)
      for (size_t s = 0; s < slots.size() && chosen < 0; ++s)
        if (free_for(slots[s], b) && (pass == 1 || plan.buffers[slots[s].front()].bytes == b.bytes))
          chosen = static_cast<int>(s);
    if (chosen < 0) {
      chosen = static_cast<int>(slots.size());
      slots.emplace_back();
    }
    b.slot = chosen;
    slots[static_cast<size_t>(chosen)].push_back(i);
  }
  std::string offset = "0";
  for (const std::vector<size_t>& slot : slots) {
    std::vector<std::string> sizes;
    for (size_t o : slot)
      if (std::find(sizes.begin(), sizes.end(), plan.buffers[o].bytes) == sizes.end()) sizes.push_back(plan.buffers[o].bytes);
    std::string bytes = sizes.back();
    for (size_t s = sizes.size() - 1; s-- > 0;) bytes = "max(" + sizes[s] + ", " + bytes + ")";
    plan.slot_offsets.push_back(offset);
    plan.slot_bytes.push_back(bytes);
    offset = Add(offset, bytes);
  }
  plan.workspace = offset;
  return plan;
}

std::string LaunchPlanJson(const Graph& g, const FusedGraph& fg, const LaunchPlan& plan) {
  std::string s = "    {\n      \"name\": " + Quote(g.decl->name.name) + ",\n      \"params\": [\n";
  std::vector<std::string> params;
  for (int n : plan.inputs) {
    const Node& nd = g.nodes[static_cast<size_t>(n)];
    params.push_back("        {\"name\": " + Quote(nd.name) + ", \"kind\": \"" + (nd.tensor ? "tensor" : "scalar") +
                     "\", \"dtype\": " + Quote(nd.elem) + (nd.tensor ? ", \"shape\": " + ShapeJson(nd) : "") + "}");
  }
  for (size_t r = 0; r < plan.outputs.size(); ++r) {
    const Node& nd = g.nodes[static_cast<size_t>(plan.outputs[r])];
    params.push_back("        {\"name\": " + Quote(plan.output_names[r]) + ", \"kind\": \"tensor\", \"dtype\": " +
                     Quote(nd.elem) + ", \"shape\": " + ShapeJson(nd) + ", \"value\": " + Quote(nd.name) +
                     ", \"output\": true}");
  }
  s += Join(params, ",\n") + "\n      ],\n      \"buffers\": [";
  std::vector<std::string> buffers;
  for (const PlanBuffer& b : plan.buffers) {
    const Node& nd = g.nodes[static_cast<size_t>(b.node)];
    buffers.push_back("\n        {\"value\": " + Quote(nd.name) + ", \"dtype\": " + Quote(nd.elem) + ", \"shape\": " +
                      ShapeJson(nd) + ", \"bytes\": " + Quote(b.bytes) + ", \"slot\": " + std::to_string(b.slot) +
                      ", \"offset\": " + Quote(plan.slot_offsets[static_cast<size_t>(b.slot)]) +
                      ", \"written_by\": " + std::to_string(b.written_by) +
                      ", \"last_read_by\": " + std::to_string(b.last_read_by) + "}");
  }
  s += Join(buffers, ",") + (buffers.empty() ? "" : "\n      ") + "],\n      \"workspace\": " + Quote(plan.workspace) +
       ",\n      \"launches\": [";
  std::vector<std::string> launches;
  for (const FusedKernel& k : fg.kernels) {
    std::vector<std::string> args;
    for (const PlanArg& a : k.args) {
      auto in = std::find(plan.inputs.begin(), plan.inputs.end(), a.node);
      auto out = std::find(plan.outputs.begin(), plan.outputs.end(), a.node);
      if (a.node < 0) {
        args.push_back("{\"literal\": " + Quote(a.value) + ", \"dtype\": " + Quote(a.type) + "}");
      } else if (in != plan.inputs.end()) {
        args.push_back("{\"param\": " + std::to_string(in - plan.inputs.begin()) + "}");
      } else if (out != plan.outputs.end()) {
        args.push_back("{\"param\": " + std::to_string(plan.inputs.size() + static_cast<size_t>(out - plan.outputs.begin())) + "}");
      } else {
        for (size_t b = 0; b < plan.buffers.size(); ++b)
          if (plan.buffers[b].node == a.node) args.push_back("{\"buffer\": " + std::to_string(b) + "}");
      }
    }
    std::vector<std::string> alternatives;
    for (const std::string& a : k.alternatives) alternatives.push_back(Quote(a));
    launches.push_back("\n        {\"kernel\": " + Quote(k.kernel_name) +
                       (alternatives.size() > 1 ? ", \"alternatives\": [" + Join(alternatives, ", ") + "]" : "") +
                       ", \"op\": " + Quote(k.op_name) +
                       ", \"schedule\": " + Quote(k.schedule) + ",\n         \"args\": [" + Join(args, ", ") + "]}");
  }
  s += Join(launches, ",") + (launches.empty() ? "" : "\n      ") + "]\n    }";
  return s;
}

}  // namespace tmc::graph
