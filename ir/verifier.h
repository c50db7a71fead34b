// Structural checks of the IR, run after every pass in checked builds and
// with --verify-each. A failure is a compiler bug, not a user error.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace tmc::ir {

/// What the pipeline has guaranteed so far.
struct VerifyStage {
  bool mappings_lowered = false;  // no ForMapping, no distributed buffers
  bool flattened = false;         // every access has one index
};

/// Returns the problems found (empty when the function is well formed):
/// variables used before their definition or outside their scope, buffers
/// accessed without being parameters or allocated, break/continue outside
/// loops, and the stage's guarantees.
std::vector<std::string> Verify(const Function& fn, const VerifyStage& stage);

}  // namespace tmc::ir
