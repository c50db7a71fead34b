// Launch plans of graphs (runtime/graph_plan.h).
#include "runtime/graph_plan.h"

#include <cstdlib>

#include "runtime/json.h"

namespace tmc::runtime {
namespace {

bool IsFloatType(tmc_dtype d) { return d >= TMC_F16; }

// A literal's value as a kernel's scalar argument: a number, true/false,
// or the name of one of the graph's scalar parameters.
bool LiteralArg(const GraphPlan& plan, const GraphStepArg& a, const tmc_arg* args, tmc_arg* out, std::string* error) {
  *out = tmc_arg{};
  out->dtype = a.dtype;
  const std::string& t = a.literal;
  for (size_t p = 0; p < plan.signature.params.size(); ++p)
    if (plan.signature.params[p].name == t && plan.signature.params[p].kind == ParamInfo::Kind::Scalar) {
      const tmc_arg& given = args[p];
      bool from_float = IsFloatType(plan.signature.params[p].dtype);
      if (IsFloatType(a.dtype)) out->value.f = from_float ? given.value.f : static_cast<double>(given.value.i);
      else out->value.i = from_float ? static_cast<int64_t>(given.value.f) : given.value.i;
      return true;
    }
  if (t == "true" || t == "false") {
    out->value.i = t == "true";
    return true;
  }
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != 0) {
    *error = "graph '" + plan.name + "': the scalar '" + t + "' is neither a number nor a scalar parameter";
    return false;
  }
  if (IsFloatType(a.dtype)) out->value.f = v;
  else out->value.i = static_cast<int64_t>(v);
  return true;
}

}  // namespace

bool ParseGraphPlans(const std::string& text, std::vector<GraphPlan>* graphs, std::string* error) {
  Json root;
  if (!ParseJson(text, &root, error)) return false;
  const Json* list = root.Get("graphs");
  if (!list) return true;
  for (const Json& g : list->items) {
    GraphPlan plan;
    const Json* name = g.Get("name");
    const Json* params = g.Get("params");
    const Json* steps = g.Get("launches");
    if (!name || name->kind != Json::Kind::String || !params || !steps) {
      *error = "a graph without a name, parameters or launches";
      return false;
    }
    plan.name = name->str;
    plan.signature.name = "graph '" + plan.name + "'";
    for (const Json& p : params->items) {
      ParamInfo info;
      if (!ParseParamInfo(p, &info)) {
        *error = "malformed parameter of graph '" + plan.name + "'";
        return false;
      }
      plan.signature.params.push_back(info);
      const Json* out = p.Get("output");
      plan.outputs.push_back(out && out->b);
      const Json* value = p.Get("value");
      plan.values.push_back(value ? value->str : info.name);
    }
    if (const Json* buffers = g.Get("buffers"))
      for (const Json& b : buffers->items) {
        GraphBuffer buf;
        const Json* dtype = b.Get("dtype");
        const Json* offset = b.Get("offset");
        if (!dtype || !ParseDtype(dtype->str, &buf.dtype) || !offset) {
          *error = "malformed buffer of graph '" + plan.name + "'";
          return false;
        }
        if (const Json* v = b.Get("value")) buf.value = v->str;
        if (const Json* shape = b.Get("shape"))
          for (const Json& d : shape->items) buf.shape.push_back(d.str);
        buf.offset = offset->str;
        if (const Json* w = b.Get("written_by")) buf.written_by = static_cast<int>(w->number);
        if (const Json* r = b.Get("last_read_by")) buf.last_read_by = static_cast<int>(r->number);
        if (buf.shape.size() > TMC_MAX_RANK) {
          *error = "a buffer of graph '" + plan.name + "' has more than 8 dimensions";
          return false;
        }
        plan.buffers.push_back(buf);
      }
    if (const Json* w = g.Get("workspace")) plan.workspace = w->str;
    for (const Json& s : steps->items) {
      GraphStep step;
      const Json* kernel = s.Get("kernel");
      const Json* args = s.Get("args");
      if (!kernel || !args) {
        *error = "a launch of graph '" + plan.name + "' without a kernel or arguments";
        return false;
      }
      step.kernel = kernel->str;
      if (const Json* alts = s.Get("alternatives"))
        for (const Json& a : alts->items) step.alternatives.push_back(a.str);
      if (step.alternatives.empty()) step.alternatives = {step.kernel};
      if (const Json* op = s.Get("op")) step.op = op->str;
      if (const Json* sch = s.Get("schedule")) step.schedule = sch->str;
      for (const Json& a : args->items) {
        GraphStepArg arg;
        const Json* param = a.Get("param");
        const Json* buffer = a.Get("buffer");
        const Json* literal = a.Get("literal");
        if (param) {
          arg.index = static_cast<int>(param->number);
          if (arg.index < 0 || static_cast<size_t>(arg.index) >= plan.signature.params.size()) param = nullptr;
        } else if (buffer) {
          arg.kind = GraphStepArg::Kind::Buffer;
          arg.index = static_cast<int>(buffer->number);
          if (arg.index < 0 || static_cast<size_t>(arg.index) >= plan.buffers.size()) buffer = nullptr;
        } else if (literal) {
          arg.kind = GraphStepArg::Kind::Literal;
          arg.literal = literal->str;
          const Json* dtype = a.Get("dtype");
          if (!dtype || !ParseDtype(dtype->str, &arg.dtype)) literal = nullptr;
        }
        if (!param && !buffer && !literal) {
          *error = "a malformed argument of kernel '" + step.kernel + "' in graph '" + plan.name + "'";
          return false;
        }
        step.args.push_back(arg);
      }
      plan.steps.push_back(std::move(step));
    }
    graphs->push_back(std::move(plan));
  }
  return true;
}

bool BindGraph(const GraphPlan& plan, const tmc_arg* args, int num_args, BoundGraph* out, std::string* error) {
  *out = BoundGraph{};
  CheckedLaunch checked;
  if (!CheckArguments(plan.signature, args, num_args, &checked, error)) return false;
  out->symbols = checked.symbols;
  if (plan.workspace.empty()) return true;
  std::optional<int64_t> bytes = EvalFormula(plan.workspace, out->symbols, error);
  if (!bytes) {
    *error = "graph '" + plan.name + "': the workspace (" + plan.workspace + "): " + *error;
    return false;
  }
  out->workspace_bytes = static_cast<uint64_t>(*bytes);
  return true;
}

bool StepArguments(const GraphPlan& plan, const BoundGraph& bound, size_t step, const tmc_arg* args,
                   uint64_t workspace, std::vector<tmc_arg>* out, std::string* error) {
  out->clear();
  if (step >= plan.steps.size()) {
    *error = "graph '" + plan.name + "' has no step " + std::to_string(step);
    return false;
  }
  for (const GraphStepArg& a : plan.steps[step].args) {
    tmc_arg arg{};
    if (a.kind == GraphStepArg::Kind::Param) {
      arg = args[a.index];
    } else if (a.kind == GraphStepArg::Kind::Literal) {
      if (!LiteralArg(plan, a, args, &arg, error)) return false;
    } else {
      const GraphBuffer& b = plan.buffers[static_cast<size_t>(a.index)];
      std::optional<int64_t> offset = EvalFormula(b.offset, bound.symbols, error);
      if (!offset) return false;
      arg.is_tensor = 1;
      arg.tensor.data = workspace + static_cast<uint64_t>(*offset);
      arg.tensor.dtype = b.dtype;
      arg.tensor.rank = static_cast<int>(b.shape.size());
      for (size_t d = 0; d < b.shape.size(); ++d) {
        std::optional<int64_t> extent = EvalFormula(b.shape[d], bound.symbols, error);
        if (!extent) return false;
        arg.tensor.shape[d] = *extent;
      }
    }
    out->push_back(arg);
  }
  return true;
}

int ChooseAlternative(const std::vector<const KernelSignature*>& alternatives, const std::vector<tmc_arg>& args,
                      CheckedLaunch* out, std::string* error) {
  std::string why;
  for (size_t i = 0; i < alternatives.size(); ++i) {
    std::string e;
    if (CheckArguments(*alternatives[i], args.data(), static_cast<int>(args.size()), out, &e)) return static_cast<int>(i);
    why += (why.empty() ? "" : "; ") + (alternatives.size() > 1 ? "'" + alternatives[i]->name + "': " : "") + e;
  }
  *error = why;
  return -1;
}

}  // namespace tmc::runtime
