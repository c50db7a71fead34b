// Tuned parameters in every compile: the tuning database's best values for
// the requested shapes (nearest bucket) unless -D gives them.
#pragma once

#include <optional>
#include <string>

#include "frontend/compilation.h"
#include "tools/tmc/all_candidates.h"
#include "tools/tmc/options.h"

namespace tmc::driver {

/// The hash the tuning database keys a file's kernels by: SHA-256 over the
/// text of every file a compile of it read (the file and its imports), so
/// that editing the kernel or anything it imports retunes, whatever path
/// names the file.
std::string SourceHash(const SourceManager& sm);

/// What the tuning database keys a kernel's fixed values by: its type
/// parameters' values (its element types) and the values -D sets, "T=f16"
/// ("" for none). They are never searched.
std::string FixedValuesText(const sema::KernelInstance& k, const Options& o, const std::string& kernel);

/// "BM=128,T=f16" back into values; nullopt when malformed.
std::optional<ParamValues> ParseParamValues(const std::string& text);

/// Whether -D sets `param` for `kernel`.
bool DefinedByUser(const Options& o, const std::string& kernel, const std::string& param);

/// For each kernel of `o->inputs[0]` with compile-time parameters, the
/// database's best values for `o->shapes` go into `o->kernel_defines`
/// (those -D gives stay), and `o->param_sources` says where each value
/// came from. Nothing happens without a database, with --no-tuning-db, or
/// when the file does not compile (the compile proper reports why). False
/// (with the error printed) when --shape names a symbol no kernel has.
bool ApplyTunedParams(Options* o);

/// --emit=meta's output with a "parameter_sources" entry: for each kernel,
/// where each compile-time value came from ("-D", "default", "tuned (...)").
std::string MetadataWithParamSources(const std::string& metadata, const Options& o);

}  // namespace tmc::driver
