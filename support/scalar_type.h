// Scalar element types shared by the frontend and the IR.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tmc {

#define TMC_SCALAR_TYPES(X) \
  X(Bool, "bool", 1)        \
  X(I8, "i8", 8)            \
  X(I16, "i16", 16)         \
  X(I32, "i32", 32)         \
  X(I64, "i64", 64)         \
  X(U8, "u8", 8)            \
  X(U16, "u16", 16)         \
  X(U32, "u32", 32)         \
  X(U64, "u64", 64)         \
  X(F16, "f16", 16)         \
  X(BF16, "bf16", 16)       \
  X(F32, "f32", 32)         \
  X(F64, "f64", 64)

enum class ScalarKind : uint8_t {
#define TMC_X(name, spelling, bits) name,
  TMC_SCALAR_TYPES(TMC_X)
#undef TMC_X
};

std::string_view ScalarName(ScalarKind k);
/// Parses a spelling such as "f32"; "int" is the alias of i32.
std::optional<ScalarKind> ParseScalar(std::string_view spelling);
int ScalarBits(ScalarKind k);
inline bool IsFloat(ScalarKind k) {
  return k == ScalarKind::F16 || k == ScalarKind::BF16 || k == ScalarKind::F32 ||
         k == ScalarKind::F64;
}
inline bool IsSigned(ScalarKind k) {
  return k == ScalarKind::I8 || k == ScalarKind::I16 || k == ScalarKind::I32 ||
         k == ScalarKind::I64;
}
inline bool IsUnsigned(ScalarKind k) {
  return k == ScalarKind::U8 || k == ScalarKind::U16 || k == ScalarKind::U32 ||
         k == ScalarKind::U64;
}
inline bool IsInteger(ScalarKind k) { return IsSigned(k) || IsUnsigned(k); }
/// Bytes of one element in memory (bool occupies a byte).
inline int ScalarBytes(ScalarKind k) { return k == ScalarKind::Bool ? 1 : ScalarBits(k) / 8; }

/// True when every value of `from` is exactly representable in `to`: the
/// rule for implicit conversions (docs/language.md, "Conversions").
bool IsLosslessConversion(ScalarKind from, ScalarKind to);

/// Inclusive value range of an integer type, as int128-free doubles are not
/// exact: returned as min (signed) and max (unsigned) 64-bit values.
int64_t IntegerMin(ScalarKind k);
uint64_t IntegerMax(ScalarKind k);

/// Values of compile-time parameters travel as int64 (-D, candidate lists,
/// kernel metadata); an element type (`T: type`) is encoded far outside the
/// range any integer parameter uses, so one value says which it is.
constexpr int64_t kTypeValueBase = INT64_MIN + 0x7000;
inline int64_t EncodeTypeValue(ScalarKind k) { return kTypeValueBase + static_cast<int64_t>(k); }
std::optional<ScalarKind> DecodeTypeValue(int64_t v);
/// "f16" for an encoded type, else the number.
std::string CtValueString(int64_t v);

}  // namespace tmc
