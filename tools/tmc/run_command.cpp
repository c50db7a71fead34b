// tmc run: compile, make seeded random inputs (never zeros), poison the
// output with NaN (or a sentinel for integers) so that unwritten elements
// show, run on the CPU executor or the GPU, evaluate the op's reference in
// f64, and print a small table. Checking modes report through diagnostics
// at the source line of the faulty access.
#include "tools/tmc/run_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "codegen/cpu/cpu_jit.h"
#include "codegen/kernel_metadata.h"
#include "codegen/nvptx/llvm_emitter.h"
#include "codegen/nvptx/nvptx_backend.h"
#include "frontend/compilation.h"
#include "ir/from_ast.h"
#include "ir/printer.h"
#include "ir/reference_eval.h"
#include "ir/transforms/pipeline.h"
#include "runtime/cpu/cpu_executor.h"
#include "runtime/half.h"
#include "runtime/kernel_signature.h"
#include "runtime/tmc_runtime.hpp"

#include <filesystem>
#include <fstream>

#include <llvm/IR/LLVMContext.h>

namespace tmc::driver {
namespace {

using ir::Expr;

// Host storage of one tensor, 64-byte aligned.
struct Storage {
  ScalarKind dtype;
  std::vector<int64_t> shape;
  std::vector<uint64_t> words;  // backing, aligned to 8
  char* data() { return reinterpret_cast<char*>(words.data()); }
  int64_t Size() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  size_t Bytes() const { return static_cast<size_t>(Size()) * static_cast<size_t>(ScalarBytes(dtype)); }
};

double Get(const Storage& s, int64_t i) {
  const char* p = reinterpret_cast<const char*>(s.words.data()) + i * ScalarBytes(s.dtype);
  switch (s.dtype) {
    case ScalarKind::Bool: case ScalarKind::I8: return *reinterpret_cast<const int8_t*>(p);
    case ScalarKind::U8: return *reinterpret_cast<const uint8_t*>(p);
    case ScalarKind::I16: return *reinterpret_cast<const int16_t*>(p);
    case ScalarKind::U16: return *reinterpret_cast<const uint16_t*>(p);
    case ScalarKind::I32: return *reinterpret_cast<const int32_t*>(p);
    case ScalarKind::U32: return *reinterpret_cast<const uint32_t*>(p);
    case ScalarKind::I64: return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    case ScalarKind::U64: return static_cast<double>(*reinterpret_cast<const uint64_t*>(p));
    case ScalarKind::F16: return runtime::HalfToFloat(*reinterpret_cast<const uint16_t*>(p));
    case ScalarKind::BF16: return runtime::Bf16ToFloat(*reinterpret_cast<const uint16_t*>(p));
    case ScalarKind::F32: return *reinterpret_cast<const float*>(p);
    case ScalarKind::F64: return *reinterpret_cast<const double*>(p);
  }
  return 0;
}

void Set(Storage& s, int64_t i, double v) {
  char* p = s.data() + i * ScalarBytes(s.dtype);
  switch (s.dtype) {
    case ScalarKind::Bool: *reinterpret_cast<int8_t*>(p) = v != 0; break;
    case ScalarKind::I8: *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(v); break;
    case ScalarKind::U8: *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v); break;
    case ScalarKind::I16: *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(v); break;
    case ScalarKind::U16: *reinterpret_cast<uint16_t*>(p) = static_cast<uint16_t>(v); break;
    case ScalarKind::I32: *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(v); break;
    case ScalarKind::U32: *reinterpret_cast<uint32_t*>(p) = static_cast<uint32_t>(v); break;
    case ScalarKind::I64: *reinterpret_cast<int64_t*>(p) = static_cast<int64_t>(v); break;
    case ScalarKind::U64: *reinterpret_cast<uint64_t*>(p) = static_cast<uint64_t>(v); break;
    case ScalarKind::F16: *reinterpret_cast<uint16_t*>(p) = runtime::FloatToHalf(static_cast<float>(v)); break;
    case ScalarKind::BF16: *reinterpret_cast<uint16_t*>(p) = runtime::FloatToBf16(static_cast<float>(v)); break;
    case ScalarKind::F32: *reinterpret_cast<float*>(p) = static_cast<float>(v); break;
    case ScalarKind::F64: *reinterpret_cast<double*>(p) = v; break;
  }
}

// Integer IR expressions over the launch's symbols (shapes, grid formulas),
// evaluated exactly in 64 bits; `why` says why there is no value (a
// division by zero, an overflow), if it is one of those.
std::optional<int64_t> EvalInt(const Expr& e, const std::map<const ir::Var*, int64_t>& vars, std::string* why = nullptr) {
  if (auto c = ir::AsConstInt(e)) return c;
  if (auto* v = e->as<ir::VarRef>()) {
    auto it = vars.find(v->var.get());
    if (it == vars.end()) return std::nullopt;
    return it->second;
  }
  if (auto* c = e->as<ir::Cast>()) return EvalInt(c->operand, vars, why);
  auto* b = e->as<ir::Binary>();
  if (!b) return std::nullopt;
  auto x = EvalInt(b->lhs, vars, why), y = EvalInt(b->rhs, vars, why);
  if (!x || !y) return std::nullopt;
  auto fail = [&](const char* reason) -> std::optional<int64_t> {
    if (why && why->empty()) *why = reason;
    return std::nullopt;
  };
  int64_t r;
  switch (b->op) {
    case ir::BinaryOp::Add: return __builtin_add_overflow(*x, *y, &r) ? fail("its value does not fit in 64 bits") : r;
    case ir::BinaryOp::Sub: return __builtin_sub_overflow(*x, *y, &r) ? fail("its value does not fit in 64 bits") : r;
    case ir::BinaryOp::Mul: return __builtin_mul_overflow(*x, *y, &r) ? fail("its value does not fit in 64 bits") : r;
    case ir::BinaryOp::Div:
    case ir::BinaryOp::Mod:
      if (*y == 0) return fail("it divides by zero");
      if (*x == INT64_MIN && *y == -1) return fail("its value does not fit in 64 bits");
      return b->op == ir::BinaryOp::Div ? *x / *y : *x % *y;
    case ir::BinaryOp::Min: return std::min(*x, *y);
    case ir::BinaryOp::Max: return std::max(*x, *y);
    default: return std::nullopt;
  }
}

double Tolerance(ScalarKind k) {
  switch (k) {
    case ScalarKind::F16: case ScalarKind::BF16: return 1e-2;
    case ScalarKind::F32: return 1e-4;
    case ScalarKind::F64: return 1e-10;
    default: return 0;
  }
}

std::map<std::string, void*> ExecutorSymbols() {
  return {{"tmc_cpu_sync", reinterpret_cast<void*>(&tmc_cpu_sync)},
          {"tmc_cpu_shfl32", reinterpret_cast<void*>(&tmc_cpu_shfl32)},
          {"tmc_cpu_mma_m16n8k16", reinterpret_cast<void*>(&tmc_cpu_mma_m16n8k16)},
          {"tmc_cpu_ldmatrix_x4", reinterpret_cast<void*>(&tmc_cpu_ldmatrix_x4)},
          {"tmc_cpu_access", reinterpret_cast<void*>(&tmc_cpu_access)}};
}

}  // namespace

int RunKernelCommand(const Options& o, SourceManager& sm, DiagnosticEngine& diags) {
  auto fail = [&](const std::string& msg) {
    diags.Report(SourceRange{}, DiagKind::RunFailed, msg);
    return 1;
  };
  CompileOptions copts;
  copts.include_dirs = o.include_dirs;
  copts.stdlib_dir = o.stdlib_dir;
  copts.check.defines = o.defines;
  Compilation comp(sm, diags, copts);
  sema::CheckedModule* m = comp.CompileFile(o.inputs.front());
  if (!m || !m->ok || diags.HasErrors()) return 1;

  // The kernel, and the op it implements.
  const ast::KernelDecl* kernel = nullptr;
  std::string names;
  for (const ast::Decl* d : m->ast->decls)
    if (auto* k = ast::dyn_cast<ast::KernelDecl>(d)) {
      names += (names.empty() ? "" : ", ") + k->name.name;
      if (o.kernel.empty() ? !kernel : k->name.name == o.kernel) kernel = k;
    }
  if (!kernel || (o.kernel.empty() && names.find(',') != std::string::npos))
    return fail(names.empty() ? "the file has no kernel"
                : o.kernel.empty() ? "choose a kernel with --kernel (the file has " + names + ")"
                                   : "no kernel '" + o.kernel + "' (the file has " + names + ")");
  const ast::OpDecl* op = nullptr;
  if (kernel->implements) {
    sema::Symbol* s = m->exports->LookupLocal(kernel->implements->name);
    for (const sema::CheckedModule* imp : m->imports)
      if (!s) s = imp->exports->LookupLocal(kernel->implements->name);
    if (s && s->kind == sema::Symbol::Kind::Op) op = static_cast<const ast::OpDecl*>(s->decl);
  }

  std::unique_ptr<ir::Module> module = ir::LowerFromAst(*m);
  ir::PassContext ctx{&diags, o.sm};
  std::string log;
  if (!ir::RunPipeline(*module, ctx, {}, &log) || diags.HasErrors()) return 1;
  const ir::Function* fn = nullptr;
  for (const auto& f : module->functions)
    if (f->kind == ir::Function::Kind::Kernel && f->name == kernel->name.name) fn = f.get();

  // Shape symbols and scalar arguments.
  std::map<const ir::Var*, int64_t> values;
  std::map<std::string, int64_t> unused = o.shapes;
  for (const ir::Param& p : fn->params) {
    if (!p.is_shape_symbol) continue;
    auto it = o.shapes.find(p.var->name);
    if (it == o.shapes.end()) return fail("shape symbol '" + p.var->name + "' needs a value: --shape " + p.var->name + "=...");
    if (it->second > INT32_MAX) return fail("shape symbol '" + p.var->name + "' must be below 2^31");
    values[p.var.get()] = it->second;
    unused.erase(p.var->name);
  }
  if (!unused.empty()) return fail("kernel '" + fn->name + "' has no shape symbol '" + unused.begin()->first + "'");

  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto random_value = [&](ScalarKind k) {
    // Never zero: zeros hide unwritten outputs and wrong indexing.
    if (IsFloat(k)) {
      double v = uniform(rng);
      return v >= 0 ? v + 0.0625 : v - 0.0625;
    }
    if (k == ScalarKind::Bool) return 1.0;
    int64_t v = static_cast<int64_t>(rng() % 8) + 1;
    return static_cast<double>(IsUnsigned(k) || rng() % 2 ? v : -v);
  };
  std::vector<Storage> tensors;
  std::vector<uint64_t> slots(fn->params.size(), 0);
  std::vector<std::pair<size_t, double>> scalars;  // param index, value
  size_t output = 0;
  for (size_t i = 0; i < fn->params.size(); ++i) {
    const ir::Param& p = fn->params[i];
    if (p.buffer) {
      Storage s;
      s.dtype = p.buffer->elem;
      for (const Expr& d : p.buffer->shape) {
        auto v = EvalInt(d, values);
        if (!v || *v <= 0) return fail("cannot compute the shape of '" + p.buffer->name + "'");
        s.shape.push_back(*v);
      }
      // Host memory is finite: refuse before allocating, not by crashing.
      constexpr double kMaxBytes = 8.0 * (1ull << 30);
      // In double: the element count of a large shape may overflow 64 bits.
      double elems = 1;
      for (int64_t d : s.shape) elems *= static_cast<double>(d);
      double total = elems * ScalarBytes(s.dtype);
      for (const Storage& prev : tensors) total += static_cast<double>(prev.Bytes());
      if (total > kMaxBytes) return fail(fmt::format("the tensors need {:.1f} GiB; tmc run allows 8 GiB", total / (1ull << 30)));
      s.words.assign((s.Bytes() + 7) / 8 + 8, 0);
      for (int64_t e = 0; e < s.Size(); ++e) Set(s, e, random_value(s.dtype));
      output = tensors.size();
      tensors.push_back(std::move(s));
    } else if (!p.is_shape_symbol) {
      double v = random_value(p.var->type);
      scalars.emplace_back(i, v);
      if (IsInteger(p.var->type)) values[p.var.get()] = static_cast<int64_t>(v);
    }
  }
  if (tensors.empty()) return fail("kernel '" + fn->name + "' has no tensor parameter to check");
  // The output (the op's result, the last tensor) starts as NaN / sentinel.
  Storage& out = tensors[output];
  double poison = IsFloat(out.dtype) ? NAN : (IsSigned(out.dtype) ? -119.0 : 119.0);
  for (int64_t e = 0; e < out.Size(); ++e) Set(out, e, poison);

  // The arguments as they are before the run, for --save-case.
  std::vector<Storage> initial = tensors;

  // Argument slots, in parameter order.
  size_t t = 0;
  for (size_t i = 0; i < fn->params.size(); ++i) {
    const ir::Param& p = fn->params[i];
    if (p.buffer) {
      slots[i] = reinterpret_cast<uint64_t>(tensors[t++].data());
    } else if (p.is_shape_symbol) {
      int32_t v = static_cast<int32_t>(values.at(p.var.get()));
      std::memcpy(&slots[i], &v, 4);
    }
  }
  for (auto& [i, v] : scalars) {
    Storage tmp{fn->params[i].var->type, {1}, {0}};
    Set(tmp, 0, v);
    slots[i] = tmp.words[0];
  }
  int64_t grid[3] = {1, 1, 1};
  for (size_t g = 0; g < fn->grid.size(); ++g) {
    std::string why;
    auto v = EvalInt(fn->grid[g], values, &why);
    std::string dim = "grid dimension " + std::to_string(g) + " (" + ir::Print(fn->grid[g]) + ")";
    if (!v) return fail(dim + (why.empty() ? " cannot be computed" : ": " + why) + " for these shapes");
    if (*v <= 0) return fail(dim + " is " + std::to_string(*v) + " for these shapes, not positive");
    if (*v > runtime::kMaxGridDim[g])
      return fail(fmt::format("{} is {} for these shapes, more than the {} blocks the hardware allows", dim, *v,
                              runtime::kMaxGridDim[g]));
    grid[g] = *v;
  }

  double best_ms = 0, spread_ms = 0;
  if (o.target == "cuda") {
    tmc_context* cu = nullptr;
    if (tmc_init(0, &cu) != TMC_SUCCESS) return fail(tmc_last_error());
    // (The GPU path: PTX and metadata compiled here, launched through the runtime.)
    llvm::LLVMContext lctx;
    auto lm = codegen::EmitLlvm(*module, lctx);
    codegen::NvptxOptions nopts{o.arch, codegen::DefaultLibdevicePath()};
    std::string error, ptx;
    if (!codegen::OptimizeForNvptx(*lm, nopts, &error) || !codegen::EmitPtx(*lm, nopts, &ptx, &error)) return fail(error);
    std::string meta = codegen::KernelMetadataJson(*module, o.arch);
    tmc_module* mod = nullptr;
    tmc_kernel* k = nullptr;
    if (tmc_module_load(cu, ptx.c_str(), ptx.size() + 1, meta.c_str(), &mod) != TMC_SUCCESS ||
        tmc_module_get_kernel(mod, fn->name.c_str(), &k) != TMC_SUCCESS)
      return fail(tmc_last_error());
    std::vector<tmc_arg> args;
    std::vector<uint64_t> device;
    t = 0;
    for (size_t i = 0; i < fn->params.size(); ++i) {
      const ir::Param& p = fn->params[i];
      if (p.is_shape_symbol) continue;
      tmc_arg a{};
      if (p.buffer) {
        Storage& s = tensors[t++];
        uint64_t d = 0;
        if (tmc_malloc(cu, s.Bytes(), &d) != TMC_SUCCESS || tmc_copy_to_device(cu, d, s.data(), s.Bytes()) != TMC_SUCCESS)
          return fail(tmc_last_error());
        device.push_back(d);
        a.is_tensor = 1;
        a.tensor.data = d;
        a.tensor.dtype = static_cast<tmc_dtype>(static_cast<int>(s.dtype));
        a.tensor.rank = static_cast<int>(s.shape.size());
        for (size_t r = 0; r < s.shape.size(); ++r) a.tensor.shape[r] = s.shape[r];
      } else {
        a.dtype = static_cast<tmc_dtype>(static_cast<int>(p.var->type));
        for (auto& [si, v] : scalars)
          if (si == i) {
            if (IsFloat(p.var->type)) a.value.f = v;
            else a.value.i = static_cast<int64_t>(v);
          }
      }
      args.push_back(a);
    }
    if (tmc_launch(k, args.data(), static_cast<int>(args.size()), nullptr) != TMC_SUCCESS ||
        tmc_synchronize(cu) != TMC_SUCCESS ||
        tmc_copy_to_host(cu, out.data(), device[output], out.Bytes()) != TMC_SUCCESS)
      return fail(tmc_last_error());
    if (o.bench && tmc::TimeLaunches(cu, k, args, 3, 20, &best_ms, &spread_ms) != TMC_SUCCESS)
      return fail(tmc_last_error());
  } else {
    codegen::CpuModule cpu;
    std::string error;
    if (!codegen::CompileForCpu(*module, o.check_bounds || o.check_races, ExecutorSymbols(), &cpu, &error))
      return fail("CPU compilation failed: " + error);
    runtime::CpuLaunch launch;
    launch.kernel = cpu.kernels.at(fn->name);
    launch.args = slots.data();
    std::copy(grid, grid + 3, launch.grid);
    for (size_t b = 0; b < fn->block.size(); ++b) launch.block[b] = fn->block[b];
    launch.shared_bytes = fn->shared_bytes;
    launch.check_races = o.check_races;
    auto t0 = std::chrono::steady_clock::now();
    std::vector<runtime::CpuFinding> findings = runtime::RunOnCpu(launch);
    auto t1 = std::chrono::steady_clock::now();
    best_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    auto site = [&](int32_t s) { return s >= 0 && static_cast<size_t>(s) < cpu.sites.size() ? cpu.sites[static_cast<size_t>(s)] : SourceRange{}; };
    auto buffer = [&](int32_t b) { return b >= 0 && static_cast<size_t>(b) < cpu.buffer_names.size() ? cpu.buffer_names[static_cast<size_t>(b)] : std::string("?"); };
    // Unrolled copies of one statement are distinct sites: report once per
    // source location (and buffer), adding up the counts.
    std::vector<runtime::CpuFinding> merged;
    for (const runtime::CpuFinding& f : findings) {
      auto key = [&](const runtime::CpuFinding& x) {
        return std::make_tuple(static_cast<int>(x.kind), site(x.site).begin.offset, site(x.other_site).begin.offset,
                               buffer(x.buffer));
      };
      auto it = std::find_if(merged.begin(), merged.end(), [&](const runtime::CpuFinding& e) { return key(e) == key(f); });
      if (it == merged.end()) merged.push_back(f);
      else it->count += f.count;
    }
    for (const runtime::CpuFinding& f : merged) {
      switch (f.kind) {
        case runtime::CpuFinding::Kind::OutOfBounds:
          diags.Report(site(f.site), DiagKind::RunOutOfBounds, f.write ? "write" : "read", buffer(f.buffer), fn->name,
                       f.offset, f.extent, f.thread, f.block[0], f.block[1], f.block[2],
                       f.count > 1 ? fmt::format("; {} such accesses", f.count) : "");
          break;
        case runtime::CpuFinding::Kind::Race:
          diags.Report(site(f.site), DiagKind::RunDataRace, buffer(f.buffer), f.offset, fn->name, f.write ? "a write" : "a read",
                       f.thread, f.other_write ? "a write" : "a read", f.other_thread, f.block[0], f.block[1], f.block[2])
              .Note(site(f.other_site), DiagKind::NoteOtherAccess, f.other_write ? "write" : "read", f.other_thread);
          break;
        case runtime::CpuFinding::Kind::BarrierDivergence: {
          std::string why = f.other_site >= 0 ? "but other threads wait at another barrier or warp operation"
                            : f.other_thread >= 0 ? fmt::format("but thread {} has already returned", f.other_thread)
                                                  : "but not every thread reaches it";
          auto d = diags.Report(site(f.site), DiagKind::RunBarrierDivergence, fn->name, f.thread, f.block[0], f.block[1],
                                f.block[2], why);
          if (f.other_site >= 0) d.Note(site(f.other_site), DiagKind::NoteOtherBarrier, f.other_thread >= 0 ? f.other_thread : 0);
          break;
        }
      }
    }
    if (!findings.empty()) return 1;
    if (o.bench) {
      std::vector<double> times;
      for (int r = 0; r < 5; ++r) {
        auto a = std::chrono::steady_clock::now();
        runtime::RunOnCpu(launch);
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
      }
      std::sort(times.begin(), times.end());
      best_ms = times[times.size() / 2];
      spread_ms = times.back() - times.front();
    }
  }

  // Compare with the reference.
  int64_t op_flops = 0;
  std::string shapes;
  for (auto& [n, v] : o.shapes) shapes += (shapes.empty() ? "" : ", ") + n + "=" + std::to_string(v);
  fmt::print("kernel:     {} ({}, {})\n", fn->name, o.target, shapes.empty() ? "no shapes" : shapes);
  int64_t unwritten = 0;
  for (int64_t e = 0; e < out.Size(); ++e) {
    double v = Get(out, e);
    if (IsFloat(out.dtype) ? std::isnan(v) : v == poison) ++unwritten;
  }
  bool pass = unwritten == 0;
  if (!op) {
    fmt::print("reference:  none (the kernel implements no op)\nunwritten:  {}\nresult:     {}\n", unwritten, pass ? "PASS" : "FAIL");
  } else {
    // Scalar op parameters take the kernel's scalar arguments, in order.
    size_t si = 0;
    std::vector<ir::HostTensor> ordered;
    size_t ti = 0;
    for (const ast::Param& p : op->params) {
      ir::HostTensor h;
      if (p.type.is_tensor) {
        if (ti >= tensors.size()) return fail("the kernel has fewer tensors than op '" + op->name.name + "'");
        h.shape = tensors[ti].shape;
        for (int64_t e = 0; e < tensors[ti].Size(); ++e) h.values.push_back(Get(tensors[ti], e));
        ++ti;
      } else {
        if (si >= scalars.size()) return fail("the kernel has fewer scalars than op '" + op->name.name + "'");
        h.values.push_back(scalars[si++].second);
      }
      ordered.push_back(std::move(h));
    }
    ir::HostTensor ref;
    std::string error;
    if (!ir::EvaluateOp(*op, ordered, &ref, &error, &op_flops)) return fail("reference evaluation failed: " + error);
    if (ref.Size() != out.Size()) return fail("the op's result and the kernel's output differ in size");
    double diff2 = 0, ref2 = 0, max_abs = 0;
    for (int64_t e = 0; e < out.Size(); ++e) {
      double got = Get(out, e), want = ref.values[static_cast<size_t>(e)];
      if (std::isnan(got)) continue;
      diff2 += (got - want) * (got - want);
      ref2 += want * want;
      max_abs = std::max(max_abs, std::fabs(got - want));
    }
    double rel = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
    double tol = Tolerance(out.dtype);
    if (!o.save_case.empty()) {
      // A replay case: PTX, metadata, the initial arguments, the reference.
      namespace fs = std::filesystem;
      std::error_code ec;
      fs::create_directories(o.save_case, ec);
      llvm::LLVMContext lctx;
      auto lm = codegen::EmitLlvm(*module, lctx);
      codegen::NvptxOptions nopts{o.arch, codegen::DefaultLibdevicePath()};
      std::string perr, ptx;
      if (!codegen::OptimizeForNvptx(*lm, nopts, &perr) || !codegen::EmitPtx(*lm, nopts, &ptx, &perr)) return fail(perr);
      std::ofstream(fs::path(o.save_case) / "kernel.ptx") << ptx;
      std::ofstream(fs::path(o.save_case) / "meta.json") << codegen::KernelMetadataJson(*module, o.arch);
      std::ofstream args_file(fs::path(o.save_case) / "args.bin", std::ios::binary);
      std::ofstream manifest(fs::path(o.save_case) / "manifest.txt");
      manifest << "kernel " << fn->name << "\ntolerance " << tol << "\n";
      size_t offset = 0, ti = 0;
      for (size_t i = 0; i < fn->params.size(); ++i) {
        const ir::Param& p = fn->params[i];
        if (p.is_shape_symbol) continue;
        if (p.buffer) {
          const Storage& st = initial[ti];
          manifest << "tensor " << ScalarName(st.dtype) << " " << offset << " " << st.Bytes() << " "
                   << (ti == output ? 1 : 0) << " " << st.shape.size();
          for (int64_t d : st.shape) manifest << " " << d;
          manifest << "\n";
          args_file.write(reinterpret_cast<const char*>(st.words.data()), static_cast<std::streamsize>(st.Bytes()));
          offset += st.Bytes();
          ++ti;
        } else {
          for (auto& [si, v] : scalars)
            if (si == i) manifest << "scalar " << ScalarName(p.var->type) << " " << fmt::format("{:.17g}", v) << "\n";
        }
      }
      std::ofstream expected(fs::path(o.save_case) / "expected.bin", std::ios::binary);
      expected.write(reinterpret_cast<const char*>(ref.values.data()), static_cast<std::streamsize>(ref.values.size() * sizeof(double)));
    }
    pass = pass && rel <= tol && !std::isnan(rel);
    fmt::print("reference:  op {} (f64)\n", op->name.name);
    fmt::print("rel. L2:    {:.3e}   (tolerance {:.0e} for {})\n", rel, tol, ScalarName(out.dtype));
    fmt::print("max abs:    {:.3e}\n", max_abs);
    fmt::print("unwritten:  {} of {}\n", unwritten, out.Size());
    fmt::print("result:     {}\n", pass ? "PASS" : "FAIL");
  }
  if (o.bench) {
    double bytes = 0;
    for (const Storage& s : tensors) bytes += static_cast<double>(s.Bytes());
    fmt::print("time:       {:.3f} ms median, spread {:.3f} ms ({})\n", best_ms, spread_ms, o.target);
    if (op_flops > 0) fmt::print("compute:    {:.4g} GFLOP/s (the op's {} flops)\n", static_cast<double>(op_flops) / (best_ms * 1e6), op_flops);
    fmt::print("bandwidth:  {:.4g} GB/s (each tensor read or written once)\n", bytes / (best_ms * 1e6));
  }
  return pass ? 0 : 1;
}

}  // namespace tmc::driver
