// IEEE half and bfloat16 conversions for host code (the CPU executor,
// tmc run, tmc-replay, constants in the CUDA C emitter): bit-exact,
// round-to-nearest-even.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tmc {

inline float HalfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v = exp == 0 ? std::ldexp(static_cast<float>(mant), -24)
            : exp == 31 ? (mant ? NAN : INFINITY)
                        : std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

inline uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13), rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}

inline float Bf16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t FloatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((bits >> 16) | 0x40);  // NaN stays NaN
  return static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

// `v` (a double, or a long double that holds an integer exactly) rounded
// to float toward zero, with the lowest bit set when that is inexact
// ("round to odd"). Float keeps 13 more significant bits than half and 16
// more than bfloat16, so rounding this float to either to nearest gives
// `v` rounded once, as a conversion from `v`'s type does; rounding `v` to
// the nearest float first could round twice (1 + 2^-11 + 2^-40 to half).
template <typename T>
float ToFloatRoundedToOdd(T v) {
  float f = static_cast<float>(v);
  if (std::isnan(v) || static_cast<T>(f) == v) return f;
  if (std::fabs(static_cast<T>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t DoubleToHalf(double d) { return FloatToHalf(ToFloatRoundedToOdd(d)); }
inline uint16_t DoubleToBf16(double d) { return FloatToBf16(ToFloatRoundedToOdd(d)); }

}  // namespace tmc
