// Each --emit kind stops the chain as early as it can.
#include "tools/tmc/emit.h"

#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/cpu/host_object.h"
#include "codegen/cuda/cuda_emitter.h"
#include "codegen/kernel_metadata.h"
#include "codegen/nvptx/llvm_emitter.h"
#include "codegen/nvptx/nvptx_backend.h"
#include "codegen/nvptx/ptxas.h"
#include "ir/from_ast.h"
#include "ir/printer.h"
#include "ir/transforms/pipeline.h"
#include "support/time_report.h"
#include "tools/tmc/teardown.h"
#include "tools/tmc/version.h"
#include "tune/compile_cache.h"

namespace tmc::driver {

namespace {

// The tmc executable that compiles (the running file, even if it has been
// replaced since): its device, inode, size and modification time. The
// version string alone let a rebuilt or upgraded tmc (new code
// generation, same version) take the PTX its predecessor had cached. ""
// when it cannot be read: then nothing is cached.
const std::string& ExecutableIdentity() {
  static const std::string identity = [] {
    struct stat st;
    if (stat("/proc/self/exe", &st) != 0) return std::string();
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + " " + std::to_string(st.st_size) + " " +
           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  }();
  return identity;
}

// The module's IR after tmc's passes (null when they reported errors).
std::unique_ptr<ir::Module> LowerModule(const sema::CheckedModule& m, const Options& o, DiagnosticEngine& diags,
                                        const std::vector<std::string>& only_kernels) {
  std::unique_ptr<ir::Module> module;
  ir::PassContext ctx{&diags, o.sm, o.arch};
  ctx.global_index_bits = o.index_bits;
  ir::PipelineOptions popts{o.print_after, o.print_after_all, o.stop_after, o.verify_each};
  popts.keep_replaced = TeardownSkipped();
  // --print-after* goes to standard error, whatever --emit writes, as in
  // LLVM's tools; the pipeline's errors and warnings are the same for every
  // --emit, so a plain check (--emit=check) reports them too.
  std::string log;
  bool ok;
  {
    StageTimer timer("IR lowering and passes");
    module = ir::LowerFromAst(m, only_kernels);
    ok = ir::RunPipeline(*module, ctx, popts, &log);
  }
  std::fwrite(log.data(), 1, log.size(), stderr);
  if (!ok) return nullptr;
  return module;
}

}  // namespace

bool EmitHostObject(const sema::CheckedModule& m, const Options& o, DiagnosticEngine& diags,
                    const std::vector<std::string>& only_kernels, const std::string& prefix, std::string* object,
                    std::vector<std::string>* sites) {
  std::unique_ptr<ir::Module> module = LowerModule(m, o, diags, only_kernels);
  if (!module) return false;
  codegen::HostObject host;
  std::string error;
  {
    StageTimer timer("host code generation");
    if (!codegen::CompileHostObject(*module, prefix, &host, &error)) {
      diags.Report(SourceRange{}, DiagKind::BackendFailed, error);
      return false;
    }
  }
  *object = std::move(host.object);
  sites->clear();
  for (const SourceRange& r : host.sites) {
    if (!r.IsValid()) {
      sites->emplace_back();
      continue;
    }
    PresumedLoc p = diags.sources().Presumed(r.begin);
    sites->push_back(std::string(p.path) + ":" + std::to_string(p.line) + ":" + std::to_string(p.column));
  }
  return true;
}

std::string EmitModule(const sema::CheckedModule& m, const Options& o, DiagnosticEngine& diags,
                       const std::vector<std::string>& only_kernels, std::string* meta) {
  // The IR, the LLVM context and module are left to the exit where the
  // driver skips the teardown (teardown.h).
  Retired<ir::Module> module = LowerModule(m, o, diags, only_kernels);
  if (!module || o.emit == "check" || o.emit == "ast" || o.emit == "tm") return "";
  if (meta) *meta = codegen::KernelMetadataJson(*module, o.arch);
  if (o.emit == "ir") return ir::Print(*module);
  if (o.emit == "cuda") {
    StageTimer timer("CUDA C emission");
    return codegen::EmitCuda(*module, o.fp_contract);
  }
  if (o.emit == "meta") return codegen::KernelMetadataJson(*module, o.arch);

  // The compile cache (docs/tuning.md): PTX and cubins keyed by the IR
  // after tmc's passes (which holds the source after imports and the
  // compile-time values) with everything code generation depends on.
  bool cacheable = o.cache.value_or(o.command == "run" || o.command == "tune") &&
                   (o.emit == "ptx" || o.emit == "cubin") && o.debug_info == DebugInfo::None && !o.ptxas_verbose &&
                   o.stop_after.empty() && o.print_after.empty() && !o.print_after_all && !ExecutableIdentity().empty();
  std::string cache_key;
  std::optional<tune::CompileCache> cache;
  if (cacheable) {
    cache.emplace(tune::CompileCache::DefaultDir());
    cache_key = tune::CompileCache::Digest(
        std::string("tmc ") + kTmcVersion + "\nexecutable " + ExecutableIdentity() + "\nemit " + o.emit + "\narch " + o.arch + "\nO" +
        std::to_string(o.opt_level) + "\nfp-contract " + (o.fp_contract ? "fast" : "off") + "\nlibdevice " +
        codegen::DefaultLibdevicePath() + "\nllvm-options " + (std::getenv("TMC_LLVM_OPTIONS") ? std::getenv("TMC_LLVM_OPTIONS") : "") +
        "\nllvm-pipeline " + codegen::LlvmPipelineOverride() + "\n" +
        ir::Print(*module));
    std::string cached;
    if (cache->Get(cache_key, &cached) == tune::CompileCache::Lookup::Hit) return cached;
  }
  auto store = [&](const std::string& out) {
    std::string error;
    if (cache && !cache->Put(cache_key, out, &error)) std::fprintf(stderr, "tmc: warning: %s (not cached)\n", error.c_str());
    return out;
  };

  Retired<llvm::LLVMContext> context(new llvm::LLVMContext);
  // Value names only matter to a reader of LLVM IR (--emit=llvm, or LLVM's
  // -print-after through TMC_LLVM_OPTIONS); PTX names its registers itself.
  // Naming every value cost 1.3% of a large kernel's compile.
  context->setDiscardValueNames(o.emit != "llvm" && !std::getenv("TMC_LLVM_OPTIONS"));
  codegen::LlvmEmitOptions eopts;
  eopts.debug = o.debug_info == DebugInfo::Full         ? codegen::LlvmEmitOptions::Debug::Full
                : o.debug_info == DebugInfo::LineTables ? codegen::LlvmEmitOptions::Debug::LineTables
                                                        : codegen::LlvmEmitOptions::Debug::None;
  eopts.sources = &diags.sources();
  eopts.verify = o.verify_each;
  Retired<llvm::Module> lm;  // after its context: destroyed before it
  {
    StageTimer timer("LLVM IR emission");
    lm = codegen::EmitLlvm(*module, *context, eopts);
  }
  codegen::NvptxOptions nopts{o.arch, codegen::DefaultLibdevicePath(), o.opt_level,
                              o.debug_info == DebugInfo::Full, o.fp_contract};
  std::string error;
  bool optimized;
  {
    StageTimer timer("LLVM optimization");
    optimized = codegen::OptimizeForNvptx(*lm, nopts, &error);
  }
  if (!optimized) {
    diags.Report(SourceRange{}, DiagKind::BackendFailed, error);
    return "";
  }
  if (o.emit == "llvm") {
    std::string text;
    llvm::raw_string_ostream os(text);
    lm->print(os, nullptr);
    return text;
  }
  std::string ptx;
  bool emitted;
  {
    StageTimer timer("NVPTX code generation");
    emitted = codegen::EmitPtx(*lm, nopts, &ptx, &error);
  }
  if (!emitted) {
    diags.Report(SourceRange{}, DiagKind::BackendFailed, error);
    return "";
  }
  if (o.emit == "ptx") return store(ptx);
  // sm_90a PTX assembles for sm_90a only; the others for their own arch.
  codegen::PtxasResult cubin;
  {
    StageTimer timer("ptxas");
    cubin = codegen::AssemblePtx(ptx, o.arch, o.ptxas_verbose);
  }
  if (!cubin.ok) {
    diags.Report(SourceRange{}, DiagKind::BackendFailed, cubin.error);
    return "";
  }
  if (o.ptxas_verbose) std::fputs(cubin.report.c_str(), stderr);
  return store(cubin.cubin);
}

}  // namespace tmc::driver
