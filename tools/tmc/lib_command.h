// `tmc lib`: an ahead-of-time library from a .tm module (docs/deploy.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tools/tmc/options.h"

namespace tmc::driver {

/// One compiled part of a library: the kernels of the file, or one graph's
/// kernels and launch plan; its metadata, and an image per arch.
struct LibImage {
  std::string arch;  // sm_80, sm_90a
  bool ptx = false;  // PTX (JIT-compiled by the driver) rather than a cubin
  std::string bytes;
};
struct LibUnit {
  std::string metadata;  // tmc --emit=meta (with "graphs" for a graph)
  std::vector<LibImage> images;
  // --cpu: the kernels compiled for the host (an object linked into the
  // library, kernel K as the symbol host_prefix + K) and the source
  // location of each site id, for the CPU executor's fault reports.
  bool host = false;
  std::string host_prefix;
  std::vector<std::string> sites;
  // A tuned variant of one kernel (shape-bucket dispatch): compiled with
  // `variant_params`, the best found for `variant_shapes`; the kernel's
  // function calls the variant tuned nearest to the call's shapes.
  std::string variant_of;
  std::string variant_params;
  std::vector<std::map<std::string, int64_t>> variant_shapes;
  // The default build of a kernel with variants: the shapes its own values
  // were tuned best for (a call near them keeps it).
  std::map<std::string, std::vector<std::map<std::string, int64_t>>> default_shapes;
};

/// The C header and source of library `name` over `units`: one function
/// per kernel and per graph, loading the right image per device. Errors
/// (a name that is not a C identifier, two functions of one name) go to
/// `error`.
bool GenerateLibrary(const std::string& name, const std::string& source_file, const std::vector<LibUnit>& units,
                     std::string* header, std::string* source, std::string* error);

/// tmc lib FILE.tm -o DIR/NAME: compiles the file's kernels (or --kernel
/// ones) and --graph graphs for every --arch, writes NAME.h and
/// libNAME.a (and libNAME.so with --shared). Returns the exit code.
int LibCommand(const Options& o);

}  // namespace tmc::driver
