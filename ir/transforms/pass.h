// What every pass gets: the function to transform and where to report.
#pragma once

#include "ir/ir.h"
#include "support/diagnostics.h"

namespace tmc::ir {

struct PassContext {
  DiagnosticEngine* diags = nullptr;  // for user errors found late (e.g. shared memory)
  int sm_arch = 80;                   // target compute capability, e.g. 80 or 90
  std::string arch = "";              // as --arch spells it (sm_90a); empty: sm_<sm_arch>
  bool keep_source_indices = false;   // keep SourceAccess on lowered accesses (checked CPU runs)
  /// Width of element offsets into dense global tensors: 32 on the GPU
  /// (as nvcc's int indexing; the runtime refuses a tensor of 2^31 or more
  /// elements for such a kernel), 64 with -findex-bits=64 and on the host.
  int global_index_bits = 64;
  /// The target's name for messages.
  std::string ArchName() const { return arch.empty() ? "sm_" + std::to_string(sm_arch) : arch; }
};

}  // namespace tmc::ir
