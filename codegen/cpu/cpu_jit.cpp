// The executor's entry points are handed to the JIT as absolute symbols
// (the tmc binary does not export them); libm and the compiler runtime
// (half-precision conversions) come from the process.
#include <cstdlib>
#include "codegen/cpu/cpu_jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>

#include <mutex>

#include "codegen/nvptx/llvm_emitter.h"

namespace tmc::codegen {

CpuModule::CpuModule() = default;
CpuModule::~CpuModule() = default;
CpuModule::CpuModule(CpuModule&&) noexcept = default;

void InitializeHostTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

void OptimizeForHost(llvm::Module& mod, llvm::TargetMachine* tm, int level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  if (level == 0) pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0).run(mod, mam);
  else pb.buildPerModuleDefaultPipeline(level == 1 ? llvm::OptimizationLevel::O1 : llvm::OptimizationLevel::O2).run(mod, mam);
}

std::unique_ptr<llvm::orc::LLJIT> JitForHost(std::unique_ptr<llvm::Module> mod, std::unique_ptr<llvm::LLVMContext> context,
                                             const std::map<std::string, void*>& symbols, std::string* error) {
  InitializeHostTarget();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    *error = llvm::toString(jtmb.takeError());
    return nullptr;
  }
  // TMC_CPU_OPT=0|1|2 (default 2): how much the executor's host code is
  // optimised. A one-off check at a small shape (tmc tune's) spends most of
  // its time here, not running the kernel.
  int level = 2;
  if (const char* env = std::getenv("TMC_CPU_OPT"); env && *env >= '0' && *env <= '2' && !env[1]) level = *env - '0';
  jtmb->setCodeGenOptLevel(level == 0 ? llvm::CodeGenOptLevel::None
                           : level == 1 ? llvm::CodeGenOptLevel::Less
                                        : llvm::CodeGenOptLevel::Default);
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    *error = llvm::toString(tm.takeError());
    return nullptr;
  }
  mod->setDataLayout((*tm)->createDataLayout());
  mod->setTargetTriple((*tm)->getTargetTriple().str());
  OptimizeForHost(*mod, tm->get(), level);

  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) {
    *error = llvm::toString(jit.takeError());
    return nullptr;
  }
  llvm::orc::JITDylib& jd = (*jit)->getMainJITDylib();
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(), (*jit)->getDataLayout());
  llvm::orc::SymbolMap given;
  for (const auto& [name, fn] : symbols)
    given[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                           llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  if (auto err = jd.define(llvm::orc::absoluteSymbols(std::move(given)))) {
    *error = llvm::toString(std::move(err));
    return nullptr;
  }
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    *error = llvm::toString(process.takeError());
    return nullptr;
  }
  jd.addGenerator(std::move(*process));
  if (auto err = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(mod), std::move(context)))) {
    *error = llvm::toString(std::move(err));
    return nullptr;
  }
  return std::move(*jit);
}

bool CompileForCpu(const ir::Module& m, bool check_accesses, const std::map<std::string, void*>& runtime_fns,
                   CpuModule* out, std::string* error) {
  auto context = std::make_unique<llvm::LLVMContext>();
  LlvmEmitOptions options;
  options.host = true;
  options.check_accesses = check_accesses;
  options.sites = &out->sites;
  options.buffer_names = &out->buffer_names;
  std::unique_ptr<llvm::Module> mod = EmitLlvm(m, *context, options);
  std::unique_ptr<llvm::orc::LLJIT> jit = JitForHost(std::move(mod), std::move(context), runtime_fns, error);
  if (!jit) return false;
  for (const auto& f : m.functions) {
    if (f->kind != ir::Function::Kind::Kernel) continue;
    auto sym = jit->lookup(f->name);
    if (!sym) {
      *error = llvm::toString(sym.takeError());
      return false;
    }
    out->kernels[f->name] = sym->toPtr<tmc_cpu_kernel_fn>();
  }
  out->jit = std::move(jit);
  return true;
}

}  // namespace tmc::codegen
