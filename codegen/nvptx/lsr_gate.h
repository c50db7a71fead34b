// lsr-gate: the NVPTX back end's loop strength reduction, left out of
// functions whose loops already carry a large accumulator, issue wgmma or
// are over a thousand instructions long, and so is the EarlyCSE that cleans
// up after it; its straight-line strength reduction and n-ary
// reassociation, left out everywhere; its load/store vectorizer, left out
// after tmc's pipeline has run one.
#pragma once

#include <llvm/IR/OptBisect.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

namespace tmc::codegen {

/// Loop strength reduction (LSR), which LLVM's code generation runs on
/// every loop, turns the addresses a loop computes from its counter into
/// induction variables of their own: fewer instructions per iteration, one
/// more register live around the loop per address stream. In a loop that
/// already carries a large accumulator (a tensor-core tile: 128 values per
/// thread) registers are what limits the kernel, and LSR's search over
/// hundreds of address uses is also 6-9% of the compile: there it is left
/// out. Measured on every example and stdlib kernel (docs/codegen.md):
/// the loops carrying 129 values (the 128x128 tensor-core matmuls and
/// conv2d_tc) take 3-20 registers fewer and 7-14% fewer instructions per
/// k-step without LSR; every kernel whose loops carry at most 85 values
/// and issue no wgmma (attention, the small kernels) is better with it.
constexpr unsigned kLsrMaxLoopCarriedValues = 96;
///
/// LSR is also left out of functions with a loop that issues wgmma, for
/// compile time: there its search over the loop's many address uses is a
/// fifth of the compile, for a few integer instructions in a k-step whose
/// time is the warpgroup MMAs' (each 64xNx16, hundreds of cycles).
/// Measured (docs/benchmarks.md, compile speed, fifteenth pass): std.hopper's
/// matmul_wgmma compiles in 18% fewer instructions, and its k-loop is 187
/// instructions instead of 179 (nvcc: 220), 106 registers instead of 110
/// (the same allocation granularity, so the same occupancy; nvcc 114);
/// matmul_tma and attention_tma keep their registers and loop lengths.
///
/// And out of functions with a loop of more than kLsrMaxLoopInstructions
/// LLVM IR instructions (its blocks, those of loops inside it included),
/// also for compile time: LSR saves a few integer instructions per address
/// stream and iteration, under 1% of such a body, and searches formulae
/// over all the loop's address uses, 3% of compiling std.attention's
/// kernels (with the EarlyCSE after it, below, 4.5%). Measured over every
/// --all-candidates candidate of the standard library (docs/benchmarks.md,
/// compile speed, seventeenth pass): the kernels with a loop over the
/// limit (the mma.sync attention kernels, whose key loop has about 1,200;
/// the largest SIMT matmul tiles) have 0.5-2% fewer PTX instructions
/// without LSR; attention's k-loop is two instructions (of 650) longer and
/// the 128x128 SIMT tile's 18 shorter (1305 -> 1287); registers fewer or
/// the same on 18 of the 24 candidates (the SIMT 128x64x16 tile 93 -> 80),
/// at most 4 more on 6, none of which loses occupancy by it (the same
/// allocation unit of 8, or shared memory the limit). At a limit of 500,
/// SIMT tiles of 500-1000 instructions took up to 9 registers more.
constexpr unsigned kLsrMaxLoopInstructions = 1000;
///
/// NVPTX runs an EarlyCSE after LSR, "not always strong enough to clean up
/// what LSR produces" (NVPTXTargetMachine.cpp): where LSR was left out the
/// gate leaves it out too (the first EarlyCSE after LSR was asked about).
/// It changed no PTX of any example, stdlib kernel or --all-candidates
/// candidate there, and cost 1.3-1.5% of their compiles.
///
/// The back end also runs straight-line strength reduction (SLSR) and an
/// EarlyCSE after it on every function, for address arithmetic that
/// tmc's pipeline has already simplified: left out, no kernel's
/// registers, loops or memory accesses changed (bench/codegen, all 64
/// kernels) and every large kernel compiles in 2-5% fewer instructions.
/// Its n-ary reassociation (NaryReassociate) is left out too: the same
/// PTX for every example and stdlib kernel and every candidate of eight
/// modules' tuning spaces (docs/benchmarks.md, fifteenth pass), 3% fewer
/// instructions for the attention kernels (tmc's
/// own simplification and LLVM's Reassociate have already ordered the
/// sums it would regroup). The other EarlyCSEs stay: without the one
/// after NaryReassociate (which also cleans up after
/// SeparateConstOffsetFromGEP) the tensor-core example's k-loop is 16
/// instructions longer, attention's 4.
///
/// The back end's load/store vectorizer is left out too where tmc's own
/// pipeline (kTmcPipeline, -O2 and -O3) has run it: the second run found
/// nothing to merge on any of the 64 kernels (the same PTX) and cost
/// 0.5-0.8% of a large kernel's compile. Under LLVM's -O1 pipeline and a
/// TMC_LLVM_PIPELINE the back end's runs, as in llc (at -O0 the back end
/// has none).
///
/// A pass gate (LLVMContext::setOptPassGate) that answers "no" to LSR and
/// to the EarlyCSE after it while the function being compiled has a loop
/// over the bounds or one that issues wgmma, to SLSR and the EarlyCSE that
/// follows it, to NaryReassociate, and to the back end's load/store
/// vectorizer when asked to; other passes go to the gate it replaces
/// (-opt-bisect-limit keeps working).
class LsrGate : public llvm::OptPassGate {
 public:
  explicit LsrGate(llvm::OptPassGate& previous) : previous_(previous) {}
  bool isEnabled() const override { return true; }
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef ir) override;
  void SkipLsr(bool skip) { skip_lsr_ = skip; }
  void SkipCodegenLsv(bool skip) { skip_codegen_lsv_ = skip; }

 private:
  llvm::OptPassGate& previous_;
  bool skip_lsr_ = false;
  bool skip_codegen_lsv_ = false;
  bool skip_next_cse_ = false;  // SLSR was left out: so is the EarlyCSE after it
  bool lsr_cleanup_ = false;    // LSR was asked about: the next EarlyCSE cleans up after it
};

/// What TargetMachine::addPassesToEmitFile adds for PTX, plus a pass that
/// runs on each function just before LSR and tells `gate` whether LSR may
/// run on it, and tmc's linear ProxyReg erasure before NVPTX's quadratic
/// one (proxy_reg_erasure.h). Returns false if the target cannot emit
/// assembly.
bool AddPtxEmissionPasses(llvm::TargetMachine& tm, llvm::legacy::PassManager& pm, llvm::raw_pwrite_stream& out,
                          LsrGate& gate);

}  // namespace tmc::codegen
