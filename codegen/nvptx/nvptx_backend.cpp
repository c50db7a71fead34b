// Target setup is done once per process. sm_90a needs PTX ISA 8.0; the
// other targets use LLVM's default PTX version for them, which CUDA 13's
// ptxas accepts.
#include "codegen/nvptx/nvptx_backend.h"

#include "codegen/nvptx/lsr_gate.h"
#include "codegen/nvptx/narrow_slp.h"
#include "codegen/nvptx/pack_conversions.h"
#include "codegen/nvptx/rematerialize_in_loops.h"

#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/Internalize.h>
#include <llvm/Transforms/Vectorize/LoadStoreVectorizer.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace tmc::codegen {
namespace {

constexpr const char* kTriple = "nvptx64-nvidia-cuda";

// LLVM's options that tmc sets, once per process before the first target
// machine is made (LLVM offers them only as command-line options):
// - nvptx-short-ptr: shared memory (address space 3) through 32-bit
//   pointers, as nvcc does: a shared address fits in 32 bits, and 64-bit
//   ones cost two registers each and 64-bit arithmetic (it changes the data
//   layout the target machine computes);
// - enable-pre=false: no scalar partial-redundancy elimination in GVN. It
//   turns values recomputed in a loop into loop-carried ones, live across
//   the whole loop: measured over the SIMT matmul's 8 candidates, 79-86
//   registers instead of 101-109 for the mid-size ones, 128 instead of 129
//   for 128x128x16 (two blocks per SM instead of one), 40 instead of 48 for
//   the tensor-core example, for loops 1-7% longer (docs/benchmarks.md);
// - licm-mssa-max-acc-promotion=64: LICM keeps memory in registers across a
//   loop (scalar promotion) only in loops with at most 64 memory accesses.
//   Its alias queries grow with the square of the accesses: in the unrolled
//   bodies of tiled kernels (100-1000 accesses) it was a third of the
//   optimization time and promoted nothing (the PTX of every example and
//   stdlib kernel is unchanged), while the small loops where promotion pays
//   (a global accumulator updated in a loop) are still promoted;
// - instcombine-code-sinking=false: InstCombine does not move a value
//   into the block of its only user. In a loop whose body is one block,
//   that user is often the latch's phi: attention_tma's row sums (`ls +=
//   s[i, j]`) went from beside the exponentials that feed them to after
//   the P V wgmma, which kept the 32 exponentials live across it: 107
//   registers instead of 94 (nvcc 98);
// - slp-vectorize-hor=false: the SLP vectorizer does not look for
//   horizontal reductions (a sum of 32 values as one vector reduction).
//   NVPTX has no vector f32 arithmetic to reduce with, and the search over
//   the unrolled fragment sums of attention was a tenth of attention_tma's
//   compile, for the same PTX on every example and stdlib kernel.
void SetLlvmOptions() {
  auto& options = llvm::cl::getRegisteredOptions();
  auto set = [&](const char* name, bool value) {
    auto it = options.find(name);
    if (it != options.end()) static_cast<llvm::cl::opt<bool>*>(it->second)->setValue(value);
  };
  set("nvptx-short-ptr", true);
  set("enable-pre", false);
  set("instcombine-code-sinking", false);
  set("slp-vectorize-hor", false);
  auto it = options.find("licm-mssa-max-acc-promotion");
  if (it != options.end()) static_cast<llvm::cl::opt<unsigned>*>(it->second)->setValue(64);
}

std::unique_ptr<llvm::TargetMachine> MakeTargetMachine(const NvptxOptions& o, std::string* error) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    SetLlvmOptions();
    // For experiments with LLVM's own options (`-enable-load-pre=false`,
    // `-print-after=licm`, ...): TMC_LLVM_OPTIONS, as llc's command line.
    if (std::getenv("TMC_LLVM_OPTIONS")) {
      const char* argv[] = {"tmc"};
      llvm::cl::ParseCommandLineOptions(1, argv, "", &llvm::errs(), "TMC_LLVM_OPTIONS");
    }
  });
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, *error);
  if (!target) return nullptr;
  // DWARF sections in PTX (label differences) need PTX ISA 7.5.
  // Hopper's asynchronous instructions (expect_tx, TMA) need PTX ISA 8.0.
  std::string features = o.arch == "sm_90a" || o.arch == "sm_90" ? "+ptx80" : o.dwarf ? "+ptx75" : "";
  llvm::TargetOptions topts;
  // Contraction of a*b+c into fma.rn (one rounding), as nvcc --fmad=true;
  // otherwise the back end prints mul.rn/add.rn, which ptxas must not fuse.
  topts.AllowFPOpFusion = o.fp_contract ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Strict;
  // -O2 and -O3 both generate code at Default: at Aggressive the NVPTX back
  // end runs GVN twice where Default runs EarlyCSE, a third of the code
  // generation time, for the same PTX on every example and stdlib kernel
  // (register numbering aside).
  llvm::CodeGenOptLevel level = o.opt_level <= 0   ? llvm::CodeGenOptLevel::None
                                : o.opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                                   : llvm::CodeGenOptLevel::Default;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      kTriple, o.arch, features, topts, llvm::Reloc::PIC_, std::nullopt, level));
}

// The target machine for `o`, made once per thread and options: making one
// builds NVPTX's lowering tables (10% of compiling a small kernel), and the
// optimization and the PTX emission of each compile both need one. A
// thread's (each --all-candidates worker has its own LLVM context) serves
// its compiles one after the other. NVPTX's target machine keeps the call
// prototypes it prints in a pool that only grows: a fresh one every few
// hundred uses bounds that in a long sweep.
llvm::TargetMachine* TargetMachineFor(const NvptxOptions& o, std::string* error) {
  struct Made {
    std::unique_ptr<llvm::TargetMachine> tm;
    unsigned uses = 0;
  };
  thread_local std::map<std::tuple<std::string, int, bool, bool>, Made> made;
  Made& m = made[{o.arch, o.opt_level, o.dwarf, o.fp_contract}];
  if (!m.tm || ++m.uses > 512) {
    m.tm = MakeTargetMachine(o, error);
    m.uses = 0;
  }
  return m.tm.get();
}

}  // namespace

namespace {

// `.reqnctapercluster X, Y, Z` among the performance directives of each
// cluster kernel's `.entry` (after its parameter list, before its body).
void AddClusterDirectives(const llvm::Module& m, std::string* ptx) {
  const llvm::NamedMDNode* clusters = m.getNamedMetadata(kClusterMetadata);
  if (!clusters) return;
  for (const llvm::MDNode* node : clusters->operands()) {
    std::string name = llvm::cast<llvm::MDString>(node->getOperand(0))->getString().str();
    auto dim = [&](unsigned i) {
      return llvm::mdconst::extract<llvm::ConstantInt>(node->getOperand(i))->getZExtValue();
    };
    size_t entry = ptx->find(".entry " + name + "(");
    if (entry == std::string::npos) continue;
    size_t body = ptx->find("\n{", entry);
    if (body == std::string::npos) continue;
    ptx->insert(body + 1, fmt::format(".reqnctapercluster {}, {}, {}\n", dim(1), dim(2), dim(3)));
  }
}

// tmc's -O2/-O3 pipeline, in opt's -passes syntax, after the target's
// pipeline-start passes (NVVMReflect with the target's SM, so that
// libdevice takes the paths for it, and the ranges of special registers).
// tmc's LLVM IR is simple (one kernel, its device functions, libdevice; no
// C++ idioms, no indirect calls, no coroutines), so most of LLVM's -O3
// pipeline has nothing to do, yet its passes cost time on every kernel.
// This is the part of it that changes tmc's PTX, checked kernel by kernel
// with bench/codegen/quality.py and compare.py (docs/benchmarks.md,
// compile speed): the same registers and vector widths as -O3 or better
// on every example and stdlib kernel but three k-loops 3% longer. LLVM's
// optimization of the example matmuls takes 41-47% of -O3's instructions
// (83% for the pipelined one, whose time is elsewhere).
// TMC_LLVM_PIPELINE=default<O3> brings LLVM's own back for comparison.
constexpr const char kTmcPipeline[] =
    "inferattrs,"
    // libdevice's functions are always-inline; tmc's device functions go
    // through the inliner's cost model (a recursive one stays a call).
    "always-inline,cgscc(inline),"
    "function("
    // Registers out of allocas (mem2reg for the emitter's one alloca per
    // register; SROA for arrays indexed at run time and what inlining
    // brought), redundant index arithmetic folded, generic pointers back
    // into their address spaces (32-bit shared addresses).
    "mem2reg,sroa<modify-cfg>,early-cse<memssa>,infer-address-spaces,instcombine<no-verify-fixpoint>,simplifycfg,"
    // Loop invariants out of the loops, loops rotated and counted, the
    // constant-trip ones (a tile's elements) unrolled.
    "reassociate,loop-mssa(licm<no-allowspeculation>,loop-rotate,licm<allowspeculation>),simplifycfg,"
    "loop(indvars,loop-deletion,loop-unroll-full),"
    // The unrolled bodies cleaned up. EarlyCSE with MemorySSA instead of
    // GVN: the same PTX at a third of the time (GVN's partial-redundancy
    // elimination only lengthened live ranges). Left out because they
    // changed no kernel's registers, loop or memory accesses: dead-store
    // elimination (a quarter of the optimization time of std.matmul),
    // SCCP and CorrelatedValuePropagation (a fifth of the pass time on the
    // pipelined matmul; without them one prologue has four instructions
    // more), six of -O3's eight InstCombines, and ADCE (without it the same
    // PTX for every example and stdlib kernel and every candidate of eight
    // modules' tuning spaces: what it finds dead, InstCombine and
    // instruction selection drop as well).
    "sroa,early-cse<memssa>,loop-mssa(licm<allowspeculation>),"
    // Consecutive accesses into vector ones before SimplifyCFG sinks the
    // last access of a full tile and of its guarded tail into a common
    // block (which would leave the full tile one access short of a
    // vector); alignment first, which the vectorizer needs.
    "infer-alignment,load-store-vectorizer,simplifycfg<hoist-common-insts;sink-common-insts>,"
    // Pairs of f16/bf16 operations (in functions that have any:
    // narrow_slp.h), runtime-unrolled serial loops.
    "tmc-narrow-slp,loop-unroll<O3>,sroa,instcombine<no-verify-fixpoint>,loop-mssa(licm<allowspeculation>),"
    // Pairs of f32 -> f16/bf16 conversions into one (pack_conversions.h),
    // last: InstCombine would take the vectors apart again.
    "simplifycfg,tmc-pack-conversions),"
    // Read-only pointer arguments of device functions (ld.global.nc).
    "function-attrs,"
    "globaldce";

// -O0 and -O1: LLVM's pipelines; -O2 and -O3: tmc's (kTmcPipeline). For
// experiments, a non-empty TMC_LLVM_PIPELINE (opt's -passes syntax,
// default<O3> for LLVM's own) replaces it.
bool BuildPipeline(llvm::PassBuilder& pb, llvm::OptimizationLevel level, llvm::ModulePassManager* mpm,
                   std::string* error) {
  std::string custom = LlvmPipelineOverride();
  if (!custom.empty()) {
    if (llvm::Error e = pb.parsePassPipeline(*mpm, custom))
      return *error = "TMC_LLVM_PIPELINE: " + llvm::toString(std::move(e)), false;
    return true;
  }
  if (level.getSpeedupLevel() < 2) {
    *mpm = level == llvm::OptimizationLevel::O0 ? pb.buildO0DefaultPipeline(level) : pb.buildPerModuleDefaultPipeline(level);
    return true;
  }
  pb.invokePipelineStartEPCallbacks(*mpm, level);
  if (llvm::Error e = pb.parsePassPipeline(*mpm, kTmcPipeline))
    return *error = "tmc's pass pipeline: " + llvm::toString(std::move(e)), false;
  return true;
}

}  // namespace

std::string LlvmPipelineOverride() {
  const char* text = std::getenv("TMC_LLVM_PIPELINE");
  return text ? text : "";
}

std::string DefaultLibdevicePath() {
  if (const char* env = std::getenv("TMC_LIBDEVICE")) return env;
  return TMC_DEFAULT_LIBDEVICE;
}

bool OptimizeForNvptx(llvm::Module& m, const NvptxOptions& o, std::string* error) {
  llvm::TargetMachine* tm = TargetMachineFor(o, error);
  if (!tm) return false;
  m.setDataLayout(tm->createDataLayout());
  m.setTargetTriple(kTriple);
  // libdevice asks, through __nvvm_reflect, whether denormals flush to zero.
  m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});

  bool uses_libdevice = false;
  for (const llvm::Function& f : m)
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) uses_libdevice = true;
  if (uses_libdevice) {
    auto buffer = llvm::MemoryBuffer::getFile(o.libdevice);
    if (!buffer) {
      *error = "cannot read libdevice '" + o.libdevice + "': " + buffer.getError().message() +
               "; math functions (exp, log, erf, tanh, ...) need libdevice.10.bc from the CUDA toolkit: install "
               "the toolkit at /usr/local/cuda, or set TMC_LIBDEVICE to the file";
      return false;
    }
    // Lazily: the linker materializes only the functions the kernels call
    // (and theirs), where parsing all of libdevice's ~350 functions cost
    // 40 ms, as much as compiling a small kernel (docs/benchmarks.md).
    // The buffer outlives the link, which reads function bodies from it.
    auto lib = llvm::getLazyBitcodeModule((*buffer)->getMemBufferRef(), m.getContext());
    if (!lib) {
      *error = "cannot parse libdevice: " + llvm::toString(lib.takeError());
      return false;
    }
    (*lib)->setTargetTriple(kTriple);
    (*lib)->setDataLayout(m.getDataLayout());
    // A function body that cannot be read shows only now, as the linker
    // materializes it, and the linker reports it through the context; LLVM's
    // default handler would print it and exit the process (every thread of
    // --all-candidates with it). Recorded here instead.
    struct Recorder : llvm::DiagnosticHandler {
      std::string first;
      bool handleDiagnostics(const llvm::DiagnosticInfo& di) override {
        if (di.getSeverity() == llvm::DS_Error && first.empty()) {
          llvm::raw_string_ostream os(first);
          llvm::DiagnosticPrinterRawOStream printer(os);
          di.print(printer);
        }
        return true;
      }
    };
    llvm::LLVMContext& context = m.getContext();
    std::unique_ptr<llvm::DiagnosticHandler> previous = context.getDiagnosticHandler();
    context.setDiagnosticHandler(std::make_unique<Recorder>());
    bool failed = llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::Flags::LinkOnlyNeeded);
    std::string why = static_cast<const Recorder*>(context.getDiagHandlerPtr())->first;
    context.setDiagnosticHandler(std::move(previous));
    if (failed) {
      *error = "cannot link libdevice '" + o.libdevice + "'" + (why.empty() ? "" : ": " + why);
      return false;
    }
  }
  // Only the kernels are entry points.
  llvm::internalizeModule(m, [](const llvm::GlobalValue& gv) {
    auto* f = llvm::dyn_cast<llvm::Function>(&gv);
    return (f && f->getCallingConv() == llvm::CallingConv::PTX_Kernel) ||
           (gv.hasExternalLinkage() && gv.isDeclaration());
  });

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // With TMC_LLVM_OPTIONS (experiments), LLVM's instrumentation too, so
  // that `-time-passes` and `-print-after=PASS` report.
  llvm::PassInstrumentationCallbacks pic;
  std::optional<llvm::StandardInstrumentations> si;
  if (std::getenv("TMC_LLVM_OPTIONS")) {
    si.emplace(m.getContext(), /*DebugLogging=*/false);
    si->registerCallbacks(pic, &mam);
  }
  llvm::PassBuilder pb(tm, llvm::PipelineTuningOptions(), std::nullopt, si ? &pic : nullptr);
  // In LLVM's pipelines (-O1, default<O3>), as in tmc's: merge consecutive
  // accesses into vector ones before SimplifyCFG sinks the last access of a
  // full tile and of its guarded tail into a common block (which leaves the
  // full tile one access short of a vector). The back end runs the
  // vectorizer again on what is left after LLVM's pipelines (after tmc's,
  // the pass gate leaves it out: lsr_gate.h).
  pb.registerScalarOptimizerLateEPCallback([](llvm::FunctionPassManager& fpm, llvm::OptimizationLevel) {
    fpm.addPass(llvm::LoadStoreVectorizerPass());
  });
  RegisterNarrowSlp(pb, pic);
  RegisterPackConversions(pb, pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = o.opt_level <= 0   ? llvm::OptimizationLevel::O0
                                 : o.opt_level == 1 ? llvm::OptimizationLevel::O1
                                 : o.opt_level == 2 ? llvm::OptimizationLevel::O2
                                                    : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm;
  if (!BuildPipeline(pb, level, &mpm, error)) return false;
  mpm.run(m, mam);
  if (level != llvm::OptimizationLevel::O0) {
    // 40 registers of loop-invariant values: measured on the example
    // matmuls (docs/benchmarks.md), 16 to 32 gave the same code and 64
    // left the tensor-core kernel at 64 registers instead of 48.
    constexpr unsigned kLiveThroughBudget = 40;
    for (llvm::Function& f : m) RematerializeInLoops(f, kLiveThroughBudget);
  }
  return true;
}

bool EmitPtx(llvm::Module& m, const NvptxOptions& o, std::string* ptx, std::string* error) {
  llvm::TargetMachine* tm = TargetMachineFor(o, error);
  if (!tm) return false;
  {
    llvm::raw_string_ostream os(*ptx);
    llvm::buffer_ostream bos(os);  // flushed into *ptx when it goes
    llvm::legacy::PassManager pm;
    llvm::LLVMContext& context = m.getContext();
    llvm::OptPassGate& previous = context.getOptPassGate();
    LsrGate gate(previous);
    gate.SkipCodegenLsv(o.opt_level >= 2 && LlvmPipelineOverride().empty());
    if (!AddPtxEmissionPasses(*tm, pm, bos, gate)) {
      *error = "the NVPTX target cannot emit assembly";
      return false;
    }
    context.setOptPassGate(gate);
    pm.run(m);
    context.setOptPassGate(previous);
  }
  AddClusterDirectives(m, ptx);
  return true;
}

}  // namespace tmc::codegen
