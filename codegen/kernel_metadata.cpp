// The metadata is plain JSON written by hand (no JSON library on the
// build machines); strings are escaped per RFC 8259 (support/json_string.h).
#include "codegen/kernel_metadata.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/transforms/simplify.h"
#include "support/json_string.h"

namespace tmc::codegen {
namespace {

std::string Formula(const ir::Expr& e) { return JsonString(ir::Print(ir::SimplifyExpr(e))); }

std::string LayoutName(ir::LayoutKind k) {
  switch (k) {
    case ir::LayoutKind::RowMajor: return "row_major";
    case ir::LayoutKind::ColMajor: return "col_major";
    case ir::LayoutKind::Strided: return "strided";
    case ir::LayoutKind::Swizzle: return "swizzle";
  }
  return "row_major";
}

// The outputs of a kernel that implements no op: the tensors it writes
// (plain stores) and never reads. A tensor also read, or updated by
// atomics, is read-modify-write: its contents matter, so it is an input
// (callers must pass it; bindings do not allocate it).
class WrittenBuffers : public ir::Visitor {
 public:
  std::set<std::string> stored, read;
  std::vector<std::string> Outputs() const {
    std::vector<std::string> out;
    for (const std::string& b : stored)
      if (!read.count(b)) out.push_back(b);
    return out;
  }

 protected:
  using ir::Visitor::Visit;
  void Visit(const ir::Store* s) override {
    stored.insert(s->buffer->name);
    ir::Visitor::Visit(s);
  }
  void Visit(const ir::Load* l) override {
    read.insert(l->buffer->name);
    ir::Visitor::Visit(l);
  }
};

}  // namespace

std::string KernelMetadataJson(const ir::Module& m, const std::string& arch) {
  std::string out = fmt::format("{{\n  \"module\": {},\n  \"arch\": {},\n  \"kernels\": [", JsonString(m.name), JsonString(arch));
  bool first = true;
  for (const auto& f : m.functions) {
    if (f->kind != ir::Function::Kind::Kernel) continue;
    out += first ? "\n" : ",\n";
    first = false;
    out += fmt::format("    {{\n      \"name\": {},\n      \"implements\": {},\n      \"params\": [", JsonString(f->name),
                       f->implements.empty() ? "null" : JsonString(f->implements));
    std::vector<std::string> outputs = f->outputs;
    if (f->implements.empty() && f->body) {
      WrittenBuffers written;
      written.Walk(f->body);
      outputs = written.Outputs();
    }
    for (size_t i = 0; i < f->params.size(); ++i) {
      const ir::Param& p = f->params[i];
      out += i ? ",\n" : "\n";
      if (p.buffer) {
        std::string dims;
        for (const ir::Expr& d : p.buffer->shape) dims += (dims.empty() ? "" : ", ") + Formula(d);
        bool output = std::find(outputs.begin(), outputs.end(), p.buffer->name) != outputs.end();
        // A tensor-map parameter: the runtime encodes the map of this box.
        std::string tma;
        if (p.buffer->tma) {
          std::string box;
          for (int64_t b : p.buffer->tma_box) box += (box.empty() ? "" : ", ") + std::to_string(b);
          tma = fmt::format(", \"tma\": {{\"box\": [{}], \"swizzle\": {}}}", box, p.buffer->tma_swizzle);
        }
        out += fmt::format("        {{\"name\": {}, \"kind\": \"tensor\", \"dtype\": \"{}\", \"shape\": [{}], \"layout\": \"{}\"{}{}}}",
                           JsonString(p.buffer->name), ScalarName(p.buffer->elem), dims, LayoutName(p.buffer->layout),
                           output ? ", \"output\": true" : "", tma);
      } else {
        out += fmt::format("        {{\"name\": {}, \"kind\": \"{}\", \"dtype\": \"{}\"}}", JsonString(p.var->name),
                           p.is_shape_symbol ? "shape" : "scalar", ScalarName(p.var->type));
      }
    }
    std::string grid, block, ct, conditions, cluster;
    // Thread-block clusters only where there are (older metadata stays as it was).
    if (f->ClusterBlocks() > 1)
      cluster = fmt::format("      \"cluster\": [{}, {}, {}],\n", f->cluster[0], f->cluster[1], f->cluster[2]);
    for (const ir::Expr& g : f->grid) grid += (grid.empty() ? "" : ", ") + Formula(g);
    for (const ir::Expr& c : f->launch_conditions) conditions += (conditions.empty() ? "" : ", ") + Formula(c);
    for (int64_t b : f->block) block += (block.empty() ? "" : ", ") + std::to_string(b);
    for (auto& [n, v] : f->ct_values)
      ct += (ct.empty() ? "" : ", ") + JsonString(n) + ": " +
            (DecodeTypeValue(v) ? JsonString(CtValueString(v)) : std::to_string(v));
    out += fmt::format("\n      ],\n      \"grid\": [{}],\n      \"block\": [{}],\n{}      \"shared_bytes\": {},\n"
                       "      \"dynamic_shared\": {},\n      \"index_bits\": {},\n      \"compile_time\": {{{}}},\n"
                       "      \"requires\": [{}]\n    }}",
                       grid, block, cluster, f->shared_bytes, f->shared_bytes > 48 * 1024 ? "true" : "false",
                       f->global_index_bits, ct, conditions);
  }
  return out + "\n  ]\n}\n";
}

}  // namespace tmc::codegen
