// Each --emit kind stops the chain as early as it can.
#include "tools/tmc/emit.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/cuda/cuda_emitter.h"
#include "codegen/kernel_metadata.h"
#include "codegen/nvptx/llvm_emitter.h"
#include "codegen/nvptx/nvptx_backend.h"
#include "codegen/nvptx/ptxas.h"
#include "ir/from_ast.h"
#include "ir/printer.h"
#include "ir/transforms/pipeline.h"

namespace tmc::driver {

std::string EmitModule(const sema::CheckedModule& m, const Options& o, DiagnosticEngine& diags) {
  std::unique_ptr<ir::Module> module = ir::LowerFromAst(m);
  ir::PassContext ctx{&diags, o.sm};
  ir::PipelineOptions popts{o.print_after, o.print_after_all, o.stop_after, o.verify_each};
  std::string log;
  if (!ir::RunPipeline(*module, ctx, popts, &log)) return "";
  if (o.emit == "ir") return log + (o.print_after.empty() && !o.print_after_all ? ir::Print(*module) : "");
  if (o.emit == "cuda") return codegen::EmitCuda(*module);
  if (o.emit == "meta") return codegen::KernelMetadataJson(*module, o.arch);

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> lm = codegen::EmitLlvm(*module, context);
  codegen::NvptxOptions nopts{o.arch, codegen::DefaultLibdevicePath()};
  std::string error;
  if (!codegen::OptimizeForNvptx(*lm, nopts, &error)) {
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
  if (!codegen::EmitPtx(*lm, nopts, &ptx, &error)) {
    diags.Report(SourceRange{}, DiagKind::BackendFailed, error);
    return "";
  }
  if (o.emit == "ptx") return ptx;
  // sm_90a PTX assembles for sm_90a only; the others for their own arch.
  codegen::PtxasResult cubin = codegen::AssemblePtx(ptx, o.arch, o.ptxas_verbose);
  if (!cubin.ok) {
    diags.Report(SourceRange{}, DiagKind::BackendFailed, cubin.error);
    return "";
  }
  if (o.ptxas_verbose) std::fputs(cubin.report.c_str(), stderr);
  return cubin.cubin;
}

}  // namespace tmc::driver
