// Names, sizes and the lossless-conversion relation of scalar types.
#include "support/scalar_type.h"

#include <string>

namespace tmc {

std::string_view ScalarName(ScalarKind k) {
  switch (k) {
#define TMC_X(name, spelling, bits) \
  case ScalarKind::name:            \
    return spelling;
    TMC_SCALAR_TYPES(TMC_X)
#undef TMC_X
  }
  return "?";
}

int ScalarBits(ScalarKind k) {
  switch (k) {
#define TMC_X(name, spelling, bits) \
  case ScalarKind::name:            \
    return bits;
    TMC_SCALAR_TYPES(TMC_X)
#undef TMC_X
  }
  return 0;
}

std::optional<ScalarKind> ParseScalar(std::string_view s) {
  if (s == "int") return ScalarKind::I32;
#define TMC_X(name, spelling, bits) \
  if (s == spelling) return ScalarKind::name;
  TMC_SCALAR_TYPES(TMC_X)
#undef TMC_X
  return std::nullopt;
}

// Significand bits (including the implicit one) of each float type.
static int Mantissa(ScalarKind k) {
  switch (k) {
    case ScalarKind::F16: return 11;
    case ScalarKind::BF16: return 8;
    case ScalarKind::F32: return 24;
    case ScalarKind::F64: return 53;
    default: return 0;
  }
}

bool IsLosslessConversion(ScalarKind from, ScalarKind to) {
  if (from == to) return true;
  if (from == ScalarKind::Bool || to == ScalarKind::Bool) return false;
  if (IsFloat(from)) {
    if (!IsFloat(to)) return false;
    // f16 and bf16 each hold values the other cannot; both widen to f32.
    return Mantissa(to) > Mantissa(from) && ScalarBits(to) > ScalarBits(from);
  }
  int from_value_bits = ScalarBits(from) - (IsSigned(from) ? 1 : 0);
  if (IsFloat(to)) return from_value_bits + (IsSigned(from) ? 1 : 0) <= Mantissa(to);
  if (IsSigned(from) && IsUnsigned(to)) return false;
  int to_value_bits = ScalarBits(to) - (IsSigned(to) ? 1 : 0);
  return to_value_bits >= from_value_bits;
}

int64_t IntegerMin(ScalarKind k) {
  if (!IsSigned(k)) return 0;
  return k == ScalarKind::I64 ? INT64_MIN : -(int64_t{1} << (ScalarBits(k) - 1));
}

uint64_t IntegerMax(ScalarKind k) {
  int bits = ScalarBits(k) - (IsSigned(k) ? 1 : 0);
  return bits >= 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
}

std::optional<ScalarKind> DecodeTypeValue(int64_t v) {
  constexpr int64_t kCount = 0
#define TMC_X(name, spelling, bits) +1
      TMC_SCALAR_TYPES(TMC_X)
#undef TMC_X
      ;
  if (v < kTypeValueBase || v >= kTypeValueBase + kCount) return std::nullopt;
  return static_cast<ScalarKind>(v - kTypeValueBase);
}

std::string CtValueString(int64_t v) {
  if (auto k = DecodeTypeValue(v)) return std::string(ScalarName(*k));
  return std::to_string(v);
}

}  // namespace tmc
