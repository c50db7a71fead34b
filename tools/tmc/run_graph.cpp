// tmc run --graph NAME: the graph's launch plan run end to end, on the CPU
// executor (or the GPU through tmc_graph_launch), against the unfused
// reference: every op of the graph evaluated one by one in f64, each
// result rounded to its declared type, as an op-by-op program would store
// it. On the CPU each kernel's result is compared as soon as it is
// written (a wrong kernel is named, before a later one reuses its
// workspace); then the graph's results.
#include "tools/tmc/run_graph.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <random>

#include "codegen/cpu/cpu_jit.h"
#include "codegen/cpu/op_reference_jit.h"
#include "codegen/kernel_metadata.h"
#include "frontend/compilation.h"
#include "graph/auto_schedule.h"
#include "graph/fuse.h"
#include "ir/from_ast.h"
#include "ir/reference_eval.h"
#include "ir/transforms/pipeline.h"
#include "runtime/graph_plan.h"
#include "runtime/output_check.h"
#include "tools/tmc/cpu_findings.h"
#include "tools/tmc/driver_support.h"
#include "tools/tmc/emit.h"
#include "tools/tmc/op_kernel.h"

namespace tmc::driver {
namespace {

// The elements where the result or the reference is NaN or infinite: not
// in the tolerance counts, so a FAIL they cause names them (an f16
// intermediate that overflows to inf when stored, not when fused).
std::string NonFinite(const runtime::Comparison& c) {
  std::string s;
  if (c.nan || c.ref_nan) s += fmt::format(", {} NaN (reference {})", c.nan, c.ref_nan);
  if (c.inf || c.ref_inf) s += fmt::format(", {} inf (reference {})", c.inf, c.ref_inf);
  if (c.nonfinite_mismatch) s += fmt::format(", {} where NaN or inf disagree", c.nonfinite_mismatch);
  return s;
}

// Host memory of one graph parameter or of the workspace, 256-byte aligned
// (the alignment the plan gives every buffer).
struct HostBuffer {
  std::vector<uint64_t> words;
  size_t offset = 0;  // words to the aligned start
  void Allocate(size_t bytes) {
    words.assign(bytes / 8 + 40, 0);
    uintptr_t at = reinterpret_cast<uintptr_t>(words.data());
    offset = ((at + 255) / 256 * 256 - at) / 8;
  }
  char* data() { return reinterpret_cast<char*>(words.data() + offset); }
};

int64_t Elements(const tmc_tensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.rank; ++d) n *= t.shape[d];
  return n;
}

ir::HostTensor ToHost(const tmc_tensor& t, const void* data) {
  ir::HostTensor h;
  h.shape.assign(t.shape, t.shape + t.rank);
  for (int64_t e = 0; e < Elements(t); ++e) h.values.push_back(runtime::ElementValue(data, t.dtype, e));
  return h;
}

}  // namespace

std::string RunGraphReferencePrefix(const std::string& graph) { return graph + "_ref"; }

int RunGraphCommand(const Options& o, SourceManager& sm, DiagnosticEngine& diags) {
  auto fail = [&](const std::string& msg) {
    diags.Report(SourceRange{}, DiagKind::RunFailed, msg);
    return 1;
  };
  // What runs one kernel, not a launch plan (they were ignored).
  if (!o.profile.empty()) return fail("--profile measures one kernel: use it with --kernel or --op, not --graph");
  if (o.bench) return fail("--bench times one kernel: use it with --kernel or --op, not --graph");
  if (!o.save_case.empty()) return fail("--save-case writes one kernel's replay case: use it with --kernel or --op, not --graph");
  Compilation comp(sm, diags, FrontendOptions(o));
  sema::CheckedModule* m = comp.CompileFile(o.inputs.front());
  if (!m || !m->ok || diags.HasErrors()) return 1;
  const ast::GraphDecl* decl = nullptr;
  for (const ast::Decl* d : m->ast->decls)
    if (auto* gd = ast::dyn_cast<ast::GraphDecl>(d); gd && gd->name.name == o.graph) decl = gd;
  if (!decl) return 1;
  if (!CheckGraphShapeSymbols(o, diags)) return 1;

  // The plan's kernels, compiled as `tmc FILE --graph NAME` compiles them,
  // and the plan read back from its metadata, as the runtime reads it.
  std::vector<std::string> names;
  for (const Options::GraphKernel& k : o.graph_kernels) names.insert(names.end(), k.alternatives.begin(), k.alternatives.end());
  std::unique_ptr<ir::Module> module = ir::LowerFromAst(*m, names);
  ir::PassContext ctx{&diags, o.sm, o.arch};
  ctx.keep_source_indices = o.check_bounds;
  std::string log, error;
  if (!ir::RunPipeline(*module, ctx, {}, &log) || diags.HasErrors()) return 1;
  std::string meta = MetadataWithPlan(codegen::KernelMetadataJson(*module, o.arch), o.graph_plan);
  std::vector<runtime::KernelSignature> sigs;
  std::vector<runtime::GraphPlan> plans;
  if (!runtime::ParseKernelMetadata(meta, &sigs, &error) || !runtime::ParseGraphPlans(meta, &plans, &error) ||
      plans.size() != 1)
    return fail("the launch plan could not be read back: " + error);
  const runtime::GraphPlan& plan = plans.front();

  // --arg names a scalar parameter of the graph (as for --kernel and --op).
  std::vector<std::string> scalars;
  for (const runtime::ParamInfo& info : plan.signature.params)
    if (info.kind == runtime::ParamInfo::Kind::Scalar) scalars.push_back(info.name);
  if (std::string e = UnknownScalarArgError("graph '" + plan.name + "'", scalars, o.args); !e.empty()) return fail(e);

  // The graph's parameters: seeded random inputs (never zeros), outputs
  // poisoned so that unwritten elements show.
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<tmc_arg> args(plan.signature.params.size());
  std::vector<HostBuffer> memory(args.size());
  double total_bytes = 0;
  for (size_t p = 0; p < args.size(); ++p) {
    const runtime::ParamInfo& info = plan.signature.params[p];
    tmc_arg& a = args[p];
    if (info.kind != runtime::ParamInfo::Kind::Tensor) {
      a.dtype = info.dtype;
      double v = 1;  // tmc run's default for scalars
      if (auto it = o.args.find(info.name); it != o.args.end()) {
        char* end = nullptr;
        v = std::strtod(it->second.c_str(), &end);
        if (it->second.empty() || *end) return fail("invalid value '" + it->second + "' for scalar '" + info.name + "'");
      }
      if (info.dtype >= TMC_F16) a.value.f = v;
      else a.value.i = static_cast<int64_t>(v);
      continue;
    }
    a.is_tensor = 1;
    a.tensor.dtype = info.dtype;
    a.tensor.rank = static_cast<int>(info.shape.size());
    for (size_t d = 0; d < info.shape.size(); ++d) {
      std::optional<int64_t> extent = runtime::EvalFormula(info.shape[d], o.shapes, &error);
      if (!extent) {
        if (size_t at = error.find("unknown name '"); at != std::string::npos) {
          std::string sym = error.substr(at + 14, error.find('\'', at + 14) - at - 14);
          return fail("graph '" + o.graph + "' needs a value for its shape symbol '" + sym + "' (--shape " + sym + "=...)");
        }
        return fail("the shape of '" + info.name + "': " + error);
      }
      if (*extent <= 0) return fail("dimension " + std::to_string(d) + " of '" + info.name + "' is " + std::to_string(*extent));
      a.tensor.shape[d] = *extent;
    }
    double bytes = static_cast<double>(Elements(a.tensor)) * runtime::ElementBytes(info.dtype);
    total_bytes += bytes;
    if (total_bytes > 8.0 * (1ull << 30)) return fail("the graph's tensors need more than the 8 GiB tmc run allows");
    memory[p].Allocate(static_cast<size_t>(bytes));
    a.tensor.data = reinterpret_cast<uint64_t>(memory[p].data());
    if (plan.outputs[p]) runtime::Poison(memory[p].data(), info.dtype, Elements(a.tensor), 0);
    else
      for (int64_t e = 0; e < Elements(a.tensor); ++e) runtime::SetElement(memory[p].data(), info.dtype, e,
                                                                  RandomInputValue(static_cast<ScalarKind>(info.dtype), rng, uniform));
  }
  runtime::BoundGraph bound;
  if (!runtime::BindGraph(plan, args.data(), static_cast<int>(args.size()), &bound, &error)) return fail(error);
  if (total_bytes + static_cast<double>(bound.workspace_bytes) > 8.0 * (1ull << 30))
    return fail("the graph's tensors and workspace need more than the 8 GiB tmc run allows");

  // The reference: the unfused partition's ops (one per operation,
  // appended to the module as GRAPH_ref0, ...) evaluated in order.
  graph::Graph g = graph::BuildGraph(*decl, *m);
  graph::FusedGraph unfused =
      graph::FuseGraph(g, graph::PartitionGraph(g, *m, false), *m, sm, RunGraphReferencePrefix(o.graph));
  std::map<int, ir::HostTensor> values;
  std::map<std::string, int> node_of;  // by the names the plan gives values
  for (size_t n = 0; n < g.nodes.size(); ++n) node_of.emplace(g.nodes[n].name, static_cast<int>(n));
  for (size_t p = 0; p < args.size(); ++p) {
    if (plan.outputs[p]) continue;
    int n = node_of.at(plan.values[p]);
    if (args[p].is_tensor) values[n] = ToHost(args[p].tensor, memory[p].data());
    else values[n].values = {args[p].dtype >= TMC_F16 ? args[p].value.f : static_cast<double>(args[p].value.i)};
  }
  int64_t flops = 0;
  for (const graph::FusedKernel& k : unfused.kernels) {
    std::vector<std::string> known;
    const ast::OpDecl* op = graph::FindOp(*m, k.op_name, &known);
    if (!op) return fail("the reference op '" + k.op_name + "' is missing");
    std::vector<ir::HostTensor> ins;
    int out_node = -1;
    for (const graph::PlanArg& a : k.args) {
      if (a.output) {
        out_node = a.node;
      } else if (a.node >= 0) {
        ins.push_back(values.at(a.node));
      } else {
        ir::HostTensor lit;
        if (a.value == "true" || a.value == "false") lit.values = {a.value == "true" ? 1.0 : 0.0};
        else lit.values = {std::strtod(a.value.c_str(), nullptr)};
        ins.push_back(lit);
      }
    }
    const graph::Node& out = g.nodes[static_cast<size_t>(out_node)];
    std::vector<ir::HostTensor> outs(1);
    for (const std::string& d : out.dims) {
      std::optional<int64_t> extent = runtime::EvalFormula(d, bound.symbols, &error);
      if (!extent) return fail("the shape of '" + out.name + "': " + error);
      outs[0].shape.push_back(*extent);
    }
    int64_t op_flops = 0;
    if (!codegen::EvaluateOpCompiled(*op, ins, &outs, &error, &op_flops))
      return fail("reference evaluation of '" + out.name + "' failed: " + error);
    flops += op_flops;
    // Stored in its type, as an op-by-op program stores it.
    tmc_dtype t;
    if (runtime::ParseDtype(out.elem, &t) && t != TMC_F64) {
      std::vector<uint64_t> one(1);
      for (double& v : outs[0].values) {
        runtime::SetElement(one.data(), t, 0, v);
        v = runtime::ElementValue(one.data(), t, 0);
      }
    }
    values[out_node] = std::move(outs[0]);
  }

  std::string shapes;
  for (const auto& [n, v] : o.shapes) shapes += (shapes.empty() ? "" : ", ") + n + "=" + std::to_string(v);
  std::printf("graph:      %s (%s, %s)\n", o.graph.c_str(), o.target.c_str(), shapes.empty() ? "no shapes" : shapes.c_str());
  std::printf("plan:       %zu kernel%s, %zu intermediate buffer%s in a workspace of %llu bytes\n", plan.steps.size(),
              plan.steps.size() == 1 ? "" : "s", plan.buffers.size(), plan.buffers.size() == 1 ? "" : "s",
              static_cast<unsigned long long>(bound.workspace_bytes));
  std::printf("reference:  %zu operation%s one by one (f64, each result stored in its type)\n", unfused.kernels.size(),
              unfused.kernels.size() == 1 ? "" : "s");
  bool pass = true;
  // One value written by the plan against its reference.
  auto check = [&](const std::string& label, const std::string& value, const tmc_tensor& t, const void* data) {
    auto it = node_of.find(value);
    if (it == node_of.end() || !values.count(it->second)) {
      std::printf("%s%s: no reference\n", label.c_str(), value.c_str());
      pass = false;
      return;
    }
    const ir::HostTensor& ref = values.at(it->second);
    int64_t count = Elements(t);
    if (ref.Size() != count) {
      std::printf("%s%s: %lld elements, the reference has %lld\n", label.c_str(), value.c_str(),
                  static_cast<long long>(count), static_cast<long long>(ref.Size()));
      pass = false;
      return;
    }
    std::vector<bool> unwritten(static_cast<size_t>(count));
    if (o.init_output == "nan")
      for (int64_t e = 0; e < count; ++e) unwritten[static_cast<size_t>(e)] = runtime::IsPoison(data, t.dtype, e, 0);
    runtime::Tolerance tol = runtime::DefaultTolerance(t.dtype);
    if (o.rtol) tol.rtol = *o.rtol;
    if (o.atol) tol.atol = *o.atol;
    runtime::Comparison c = runtime::CompareOutput(data, t.dtype, count, ref.values.data(), tol, unwritten);
    pass = pass && c.pass;
    std::printf("%s%s: rel. L2 %.3e, max abs %.3e, %lld of %lld outside tolerance, %lld unwritten%s: %s\n",
                label.c_str(), value.c_str(), c.rel_l2, c.max_abs, static_cast<long long>(c.outside),
                static_cast<long long>(c.compared), static_cast<long long>(c.unwritten),
                NonFinite(c).c_str(), c.pass ? "PASS" : "FAIL");
  };

  if (o.target == "cuda") {
    Options ptx_options = o;
    ptx_options.emit = "ptx";
    std::string kernel_meta;
    std::string ptx = EmitModule(*m, ptx_options, diags, names, &kernel_meta);
    if (diags.HasErrors()) return 1;
    std::string full_meta = MetadataWithPlan(kernel_meta, o.graph_plan);
    tmc_context* cu = nullptr;
    tmc_module* mod = nullptr;
    tmc_graph* graph = nullptr;
    if (tmc_init(0, &cu) != TMC_SUCCESS ||
        tmc_module_load(cu, ptx.c_str(), ptx.size() + 1, full_meta.c_str(), &mod) != TMC_SUCCESS ||
        tmc_module_get_graph(mod, o.graph.c_str(), &graph) != TMC_SUCCESS)
      return fail(tmc_last_error());
    std::vector<tmc_arg> device = args;
    for (size_t p = 0; p < args.size(); ++p) {
      if (!args[p].is_tensor) continue;
      size_t bytes = static_cast<size_t>(Elements(args[p].tensor)) * runtime::ElementBytes(args[p].tensor.dtype);
      if (tmc_malloc(cu, bytes, &device[p].tensor.data) != TMC_SUCCESS ||
          tmc_copy_to_device(cu, device[p].tensor.data, memory[p].data(), bytes) != TMC_SUCCESS)
        return fail(tmc_last_error());
    }
    if (tmc_graph_launch(graph, device.data(), static_cast<int>(device.size()), 0, 0, nullptr) != TMC_SUCCESS ||
        tmc_synchronize(cu) != TMC_SUCCESS)
      return fail(tmc_last_error());
    for (size_t p = 0; p < args.size(); ++p) {
      if (!plan.outputs[p]) continue;
      size_t bytes = static_cast<size_t>(Elements(args[p].tensor)) * runtime::ElementBytes(args[p].tensor.dtype);
      if (tmc_copy_to_host(cu, memory[p].data(), device[p].tensor.data, bytes) != TMC_SUCCESS) return fail(tmc_last_error());
    }
  } else {
    codegen::CpuModule cpu;
    if (!codegen::CompileForCpu(*module, o.check_bounds || o.check_races, ExecutorSymbols(), &cpu, &error))
      return fail("CPU compilation failed: " + error);
    HostBuffer workspace;
    workspace.Allocate(bound.workspace_bytes);
    const uint64_t ws = reinterpret_cast<uint64_t>(workspace.data());
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      const runtime::GraphStep& step = plan.steps[s];
      std::vector<const runtime::KernelSignature*> alternatives;
      for (const std::string& name : step.alternatives)
        for (const runtime::KernelSignature& k : sigs)
          if (k.name == name) alternatives.push_back(&k);
      if (alternatives.size() != step.alternatives.size()) return fail("kernel '" + step.kernel + "' of the plan was not compiled");
      std::vector<tmc_arg> kargs;
      runtime::CheckedLaunch launch;
      int pick = -1;
      if (runtime::StepArguments(plan, bound, s, args.data(), ws, &kargs, &error))
        pick = runtime::ChooseAlternative(alternatives, kargs, &launch, &error);
      if (pick < 0) return fail("kernel " + std::to_string(s + 1) + " ('" + step.kernel + "'): " + error);
      const runtime::KernelSignature* sig = alternatives[static_cast<size_t>(pick)];
      const ir::Function* fn = nullptr;
      for (const auto& f : module->functions)
        if (f->name == sig->name) fn = f.get();
      if (!fn) return fail("kernel '" + sig->name + "' of the plan was not compiled");
      // Its result (the last argument) poisoned: unwritten elements show.
      tmc_tensor& result = kargs.back().tensor;
      runtime::Poison(reinterpret_cast<void*>(result.data), result.dtype, Elements(result), 0);
      std::vector<uint64_t> slots(sig->params.size());
      size_t written = 0;
      for (size_t i = 0; i < sig->params.size(); ++i) {
        const runtime::ParamInfo& p = sig->params[i];
        if (p.kind == runtime::ParamInfo::Kind::Shape) {
          int32_t v = static_cast<int32_t>(launch.symbols.at(p.name));
          std::memcpy(&slots[i], &v, 4);
          continue;
        }
        const tmc_arg& a = kargs[written++];
        if (p.kind == runtime::ParamInfo::Kind::Tensor) slots[i] = a.tensor.data;
        else slots[i] = runtime::PackScalar(p.dtype, a);  // as tmc_launch packs it
      }
      runtime::CpuLaunch cl;
      cl.kernel = cpu.kernels.at(fn->name);
      cl.name = fn->name.c_str();
      cl.args = slots.data();
      std::copy(launch.grid, launch.grid + 3, cl.grid);
      std::copy(launch.block, launch.block + 3, cl.block);
      std::copy(launch.cluster, launch.cluster + 3, cl.cluster);
      cl.shared_bytes = fn->shared_bytes;
      cl.check_races = o.check_races;
      cl.timeout_s = o.timeout;
      std::vector<runtime::CpuFinding> findings = runtime::RunOnCpu(cl);
      if (!findings.empty()) {
        ReportFindings(findings, cpu, *fn, cl.block[0] * cl.block[1] * cl.block[2], o.timeout, diags);
        return 1;
      }
      // An intermediate now, before a later kernel reuses its memory; the
      // graph's results once all have run.
      const runtime::GraphStepArg& out = step.args.back();
      if (out.kind == runtime::GraphStepArg::Kind::Buffer)
        check(fmt::format("kernel {}:   {} writes ", s + 1, sig->name), plan.buffers[static_cast<size_t>(out.index)].value,
              result, reinterpret_cast<const void*>(result.data));
      else
        std::printf("kernel %zu:   %s writes %s\n", s + 1, sig->name.c_str(),
                    plan.signature.params[static_cast<size_t>(out.index)].name.c_str());
    }
  }
  for (size_t p = 0; p < args.size(); ++p)
    if (plan.outputs[p])
      check("output:     " + plan.signature.params[p].name + " = ", plan.values[p], args[p].tensor, memory[p].data());
  std::printf("result:     %s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

}  // namespace tmc::driver
