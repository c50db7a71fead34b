// PTX -> cubin through CUDA's ptxas (`--emit=cubin`, `-v`).
#pragma once

#include <string>

namespace tmc::codegen {

struct PtxasResult {
  bool ok = false;
  std::string cubin;   // the ELF image
  std::string report;  // what ptxas printed (with -v: registers, spills, shared memory)
  std::string error;   // why it failed
};

/// Assembles `ptx` for `arch` with ptxas (found in $TMC_PTXAS, then
/// /usr/local/cuda/bin, then PATH); `verbose` adds -v.
PtxasResult AssemblePtx(const std::string& ptx, const std::string& arch, bool verbose);

}  // namespace tmc::codegen
