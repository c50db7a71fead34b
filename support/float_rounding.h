// A value as a float type holds it: compile-time constants (the checker's
// folding, the CUDA C emitter's constants) take their type's value,
// rounded once, as the GPU computes it.
#pragma once

#include <cmath>

#include "support/half.h"
#include "support/scalar_type.h"

namespace tmc {

/// `v` rounded to nearest even to the float type `t`: an f32 is a float, an
/// f16 or bf16 a half or bfloat16 (rounded once from `v`); f64 (and any
/// other type) as it is. Past the type's largest value by half an ulp or
/// more: infinity.
inline double RoundedToFloatType(ScalarKind t, double v) {
  if (std::isnan(v) || std::isinf(v)) return v;
  switch (t) {
    case ScalarKind::F32: {
      if (std::abs(v) >= 0x1.ffffffp127) return std::copysign(HUGE_VAL, v);
      if (std::abs(v) > 0x1.fffffep127) return std::copysign(0x1.fffffep127, v);
      return static_cast<double>(static_cast<float>(v));
    }
    case ScalarKind::F16: return HalfToFloat(DoubleToHalf(v));
    case ScalarKind::BF16: return Bf16ToFloat(DoubleToBf16(v));
    default: return v;
  }
}

/// The integer `x` (|x| < 2^64) converted to the float type `t`, rounded
/// once (as cvt.rn.f32.s64 does): through long double, which holds it
/// exactly, where double would round integers above 2^53 a first time.
inline double IntegerToFloatType(ScalarKind t, __int128 x) {
  long double v = static_cast<long double>(x);
  switch (t) {
    case ScalarKind::F32: return static_cast<double>(static_cast<float>(v));
    case ScalarKind::F16: return HalfToFloat(FloatToHalf(ToFloatRoundedToOdd(v)));
    case ScalarKind::BF16: return Bf16ToFloat(FloatToBf16(ToFloatRoundedToOdd(v)));
    default: return static_cast<double>(v);
  }
}

}  // namespace tmc
