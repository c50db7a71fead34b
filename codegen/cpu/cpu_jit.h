// IR -> host machine code, through LLVM's ORC JIT, for the CPU executor.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "codegen/cpu/cpu_abi.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
namespace orc {
class LLJIT;
}
}  // namespace llvm

namespace tmc::codegen {

/// A module compiled for the CPU; keeps the JIT (and the code) alive.
struct CpuModule {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::map<std::string, tmc_cpu_kernel_fn> kernels;
  std::vector<SourceRange> sites;          // by site id, for reports
  std::vector<std::string> buffer_names;   // by buffer id
  CpuModule();
  ~CpuModule();
  CpuModule(CpuModule&&) noexcept;
};

/// Registers LLVM's native target and its printer (once per process).
void InitializeHostTarget();

/// LLVM's per-module default pipeline for `tm` at `level` (0, 1, 2: O0,
/// O1, O2) over `mod`: the host code of the JIT and of tmc lib --cpu.
void OptimizeForHost(llvm::Module& mod, llvm::TargetMachine* tm, int level);

/// Optimizes `mod` (O2) for this machine and adds it to a new JIT, with
/// `symbols` (name -> address) and the process's own symbols (libm, the
/// compiler runtime) to link against. Returns null with `error` on failure.
std::unique_ptr<llvm::orc::LLJIT> JitForHost(std::unique_ptr<llvm::Module> mod, std::unique_ptr<llvm::LLVMContext> context,
                                             const std::map<std::string, void*>& symbols, std::string* error);

/// Compiles every kernel of `m` (after the IR pipeline) for this machine at
/// -O2; with `check_accesses`, every memory access is checked by the
/// executor (bounds, and races when the launch asks for them). `runtime`
/// gives the addresses of the executor's tmc_cpu_* functions (the caller
/// links the executor; codegen only knows its ABI, codegen/cpu/cpu_abi.h).
bool CompileForCpu(const ir::Module& m, bool check_accesses, const std::map<std::string, void*>& runtime,
                   CpuModule* out, std::string* error);

}  // namespace tmc::codegen
