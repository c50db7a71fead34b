// Instructions that only some targets have: Hopper's warpgroup MMA and its
// fences need sm_90a. A use elsewhere is a located error (at the first in
// each function), not a ptxas failure. Also: wgmma in a kernel whose blocks
// are not whole warpgroups (128 threads).
#pragma once

#include "ir/transforms/pass.h"

namespace tmc::ir {

void CheckTargetFeatures(Function& fn, PassContext& ctx);

}  // namespace tmc::ir
