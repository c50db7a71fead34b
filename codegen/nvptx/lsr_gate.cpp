// lsr-gate: see lsr_gate.h. The pass gate is the only handle LLVM's legacy
// code generation pipeline offers on one pass for one function: LSR asks
// it before each loop, and a pass inserted just before LSR tells it which
// function that loop belongs to.
#include "codegen/nvptx/lsr_gate.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/CodeGen/MachineFunctionPass.h>
#include <llvm/CodeGen/MachineModuleInfo.h>
#include <llvm/CodeGen/Passes.h>
#include <llvm/CodeGen/TargetPassConfig.h>
#include <llvm/CodeGen/AsmPrinter.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Pass.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FormattedStream.h>
#include <llvm/Target/TargetLoweringObjectFile.h>
#include <llvm/Transforms/Scalar.h>
#include <llvm/Transforms/Utils.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <string>

#include "codegen/nvptx/proxy_reg_erasure.h"

namespace tmc::codegen {

bool LsrGate::shouldRunPass(llvm::StringRef pass, llvm::StringRef ir) {
  if (pass == "Loop Strength Reduction") {
    lsr_cleanup_ = true;
    if (skip_lsr_) return false;
  } else if (lsr_cleanup_ && pass == "Early CSE") {
    lsr_cleanup_ = false;
    if (skip_lsr_) return false;
  }
  if (skip_codegen_lsv_ && pass == "GPU Load and Store Vectorizer") return false;
  // Legacy passes ask by their names (Pass::getPassName, LLVM 19), one
  // function at a time: the pass asked about right after SLSR, if it is an
  // EarlyCSE, is its clean-up (at CodeGenOptLevel::Aggressive it would be
  // GVN instead, which then runs).
  if (skip_next_cse_) {
    skip_next_cse_ = false;
    if (pass == "Early CSE") return false;
  }
  if (pass == "Straight line strength reduction") {
    skip_next_cse_ = true;
    // Defensive: the back end asks about SLSR for every function before
    // it asks about any LSR, and each function's EarlyCSE after LSR clears
    // the flag; this keeps a flag left by an earlier compile from reaching
    // the first EarlyCSE of the next.
    lsr_cleanup_ = false;
    return false;
  }
  // The EarlyCSE after NaryReassociate stays: it is also the clean-up of
  // SeparateConstOffsetFromGEP (without it, longer k-loops).
  if (pass == "Nary reassociation") return false;
  return !previous_.isEnabled() || previous_.shouldRunPass(pass, ir);
}

namespace {

// The most values any loop carries from one iteration to the next
// (the phis of its header).
unsigned MaxLoopCarriedValues(llvm::LoopInfo& loops) {
  unsigned most = 0;
  for (const llvm::Loop* loop : loops.getLoopsInPreorder()) {
    auto phis = loop->getHeader()->phis();
    most = std::max(most, static_cast<unsigned>(std::distance(phis.begin(), phis.end())));
  }
  return most;
}

// The most instructions of any loop (its blocks, those of the loops inside
// it included).
size_t LongestLoop(llvm::LoopInfo& loops) {
  size_t most = 0;
  for (const llvm::Loop* loop : loops) {  // the outermost loops contain the others
    size_t n = 0;
    for (const llvm::BasicBlock* block : loop->blocks()) n += block->size();
    most = std::max(most, n);
  }
  return most;
}

// Whether any loop of `f` issues warpgroup MMAs (tmc's inline PTX for
// wgmma, llvm_emitter.cpp: LLVM 19 has no intrinsic for it).
bool LoopIssuesWgmma(llvm::Function& f, llvm::LoopInfo& loops) {
  for (llvm::BasicBlock& block : f) {
    if (!loops.getLoopFor(&block)) continue;
    for (llvm::Instruction& i : block)
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i); call && call->isInlineAsm() &&
          llvm::cast<llvm::InlineAsm>(call->getCalledOperand())->getAsmString().find("wgmma.mma_async") !=
              std::string::npos)
        return true;
  }
  return false;
}

class ChooseLsr : public llvm::FunctionPass {
 public:
  static char ID;
  explicit ChooseLsr(LsrGate& gate) : llvm::FunctionPass(ID), gate_(gate) {}
  llvm::StringRef getPassName() const override { return "tmc: choose whether LSR runs"; }
  void getAnalysisUsage(llvm::AnalysisUsage& au) const override {
    au.addRequired<llvm::LoopInfoWrapperPass>();
    au.setPreservesAll();
  }
  bool runOnFunction(llvm::Function& f) override {
    llvm::LoopInfo& loops = getAnalysis<llvm::LoopInfoWrapperPass>().getLoopInfo();
    gate_.SkipLsr(MaxLoopCarriedValues(loops) > kLsrMaxLoopCarriedValues ||
                  LongestLoop(loops) > kLsrMaxLoopInstructions || LoopIssuesWgmma(f, loops));
    return false;
  }

 private:
  LsrGate& gate_;
};

char ChooseLsr::ID = 0;

// Whether LLVM's boolean command-line option `name` (TMC_LLVM_OPTIONS) is
// set.
bool FlagSet(llvm::StringRef name) {
  const auto& options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  return it != options.end() && static_cast<llvm::cl::opt<bool>*>(it->second)->getValue();
}

// The identity of a legacy pass, for TargetPassConfig::insertPass (LLVM
// does not export LSR's or its predecessor's ID).
llvm::AnalysisID IdOf(llvm::Pass* pass) {
  std::unique_ptr<llvm::Pass> owned(pass);
  return owned->getPassID();
}

// The asm streamer's output stream without its column tracking: a
// formatted_raw_ostream looks up the display width of every character it
// passes on (1.6% of compiling one of std.attention's kernels), for the column at
// which a verbose asm comment would be padded; tmc's PTX has no such
// comments (TargetOptions::MCOptions.AsmVerbose is off), so the column is
// never asked for.
class UntrackedStream : public llvm::formatted_raw_ostream {
 public:
  explicit UntrackedStream(llvm::raw_ostream& out) : llvm::formatted_raw_ostream(out), out_(out) {}
  ~UntrackedStream() override { flush(); }  // before the base would scan what is left

 private:
  void write_impl(const char* p, size_t n) override { out_.write(p, n); }
  llvm::raw_ostream& out_;
};

// LLVMTargetMachine::addAsmPrinter for assembly (LLVM 19's
// createMCStreamer), with UntrackedStream for its formatted_raw_ostream.
bool AddAsmPrinter(llvm::LLVMTargetMachine& target, llvm::legacy::PassManager& pm, llvm::raw_pwrite_stream& out,
                   llvm::MCContext& context) {
  if (target.Options.MCOptions.AsmVerbose || target.Options.MCOptions.ShowMCEncoding)
    return !target.addAsmPrinter(pm, out, nullptr, llvm::CodeGenFileType::AssemblyFile, context);
  const llvm::Target& t = target.getTarget();
  const llvm::MCAsmInfo& mai = *target.getMCAsmInfo();
  llvm::MCInstPrinter* printer = t.createMCInstPrinter(
      target.getTargetTriple(), mai.getAssemblerDialect(), mai,
      *target.getMCInstrInfo(), *target.getMCRegisterInfo());
  if (!printer) return false;
  std::unique_ptr<llvm::MCAsmBackend> backend(
      t.createMCAsmBackend(*target.getMCSubtargetInfo(), *target.getMCRegisterInfo(), target.Options.MCOptions));
  std::unique_ptr<llvm::MCStreamer> streamer(
      t.createAsmStreamer(context, std::make_unique<UntrackedStream>(out), printer, nullptr, std::move(backend)));
  llvm::FunctionPass* asm_printer = t.createAsmPrinter(target, std::move(streamer));
  if (!asm_printer) return false;
  pm.add(asm_printer);
  return true;
}

}  // namespace

bool AddPtxEmissionPasses(llvm::TargetMachine& tm, llvm::legacy::PassManager& pm, llvm::raw_pwrite_stream& out,
                          LsrGate& gate) {
  // LLVMTargetMachine::addPassesToEmitFile (LLVM 19), with the chooser
  // inserted after the pass that precedes LSR (canonicalize-freeze-in-loops),
  // so that it runs on each function right before LSR does. (The chooser
  // splits the loop pass manager in two: canonicalize-freeze-in-loops now
  // runs on all loops of a function before LSR runs on any; neither looks
  // at other loops, and the PTX of every kernel is as before.)
  auto& target = static_cast<llvm::LLVMTargetMachine&>(tm);
  auto* mmi = new llvm::MachineModuleInfoWrapperPass(&target);
  llvm::TargetPassConfig* config = target.createPassConfig(pm);
  config->setDisableVerify(true);  // as addPassesToEmitFile's default
  // Inserted passes only where the pass they follow runs at all (the pass
  // manager owns an inserted pass only once it is added).
  bool optimizing = tm.getOptLevel() != llvm::CodeGenOptLevel::None;
  if (optimizing && !FlagSet("disable-lsr"))
    config->insertPass(IdOf(llvm::createCanonicalizeFreezeInLoopsPass()),
                       llvm::IdentifyingPassPtr(new ChooseLsr(gate)));
  // NVPTX's ProxyReg erasure is quadratic; tmc's, just before it, is not
  // (proxy_reg_erasure.h).
  if (optimizing && !FlagSet("disable-peephole"))
    config->insertPass(PassBeforeNvptxProxyRegErasure(), llvm::IdentifyingPassPtr(CreateProxyRegErasure()));
  pm.add(config);
  pm.add(mmi);
  if (config->addISelPasses()) return false;
  config->addMachinePasses();
  config->setInitialized();
  if (llvm::TargetPassConfig::willCompleteCodeGenPipeline()) {
    if (!AddAsmPrinter(target, pm, out, mmi->getMMI().getContext())) return false;
  } else {
    // -stop-after/-stop-before in TMC_LLVM_OPTIONS: MIR instead of PTX.
    // Instruction selection names parameters through the object-file
    // lowering, which the asm printer would otherwise have initialized
    // (as llc does for MIR).
    const_cast<llvm::TargetLoweringObjectFile*>(target.getObjFileLowering())
        ->Initialize(mmi->getMMI().getContext(), target);
    pm.add(llvm::createPrintMIRPass(out));
  }
  pm.add(llvm::createFreeMachineFunctionPass());
  return true;
}

}  // namespace tmc::codegen
