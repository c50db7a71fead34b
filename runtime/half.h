// The runtime's names for support/half.h.
#pragma once

#include "support/half.h"

namespace tmc::runtime {
using tmc::Bf16ToFloat;
using tmc::FloatToBf16;
using tmc::DoubleToBf16;
using tmc::DoubleToHalf;
using tmc::FloatToHalf;
using tmc::HalfToFloat;
}  // namespace tmc::runtime
