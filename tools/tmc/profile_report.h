// tmc run --profile: the executor's per-site profile as a table per
// source location, or as JSON.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "codegen/cpu/cpu_jit.h"
#include "runtime/cpu/profile.h"
#include "support/source_manager.h"

namespace tmc::driver {

/// The run a profile belongs to.
struct ProfileRun {
  std::string kernel;
  std::map<std::string, int64_t> shapes;
  std::string result;  // PASS or FAIL
  int64_t blocks = 0, block_threads = 0;
  int64_t min_bytes = 0;  // every tensor of the kernel once (its inputs and output)
  int tensors = 0;
  /// The kernel's compile-time parameter values ("BC=1024, T=f16").
  std::string compile_time;
};

/// The profile as text: totals, then global accesses by sectors, shared
/// accesses by wavefronts and barriers by count, one row per source
/// location, access and tensor (unrolled copies of an access add up).
std::string ProfileText(const runtime::CpuProfile& p, const codegen::CpuModule& cpu, const SourceManager& sm,
                        const ProfileRun& run);

/// The same as one JSON document (with the run's kernel, shapes and result).
std::string ProfileJson(const runtime::CpuProfile& p, const codegen::CpuModule& cpu, const SourceManager& sm,
                        const ProfileRun& run);

}  // namespace tmc::driver
