// Semantic types and compile-time values of the checker.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "support/scalar_type.h"
#include "support/task_mapping.h"

namespace tmc::sema {

/// One tensor dimension: a constant, or a symbolic extent (a shape symbol
/// such as `M`, or an expression over symbols, kept in canonical text).
struct Dim {
  bool is_const = true;
  int64_t value = 0;
  std::string symbol;

  static Dim Const(int64_t v) { return Dim{true, v, {}}; }
  static Dim Symbolic(std::string s) { return Dim{false, 0, std::move(s)}; }
  std::string ToString() const { return is_const ? std::to_string(value) : symbol; }
  friend bool operator==(const Dim&, const Dim&) = default;
};

enum class MemScope { Global, Shared, Register };

struct Layout {
  enum class Kind { RowMajor, ColMajor, Strided, Swizzle };
  Kind kind = Kind::RowMajor;
  std::vector<Dim> args;
  friend bool operator==(const Layout&, const Layout&) = default;
  /// As written: "row_major", "col_major", "strided(24, 2)", "swizzle(3, 3, 3)".
  std::string ToString() const;
  static const char* KindName(Kind k);  // "row_major", "col_major", "strided", "swizzle"
};

enum class TypeKind {
  Error,    // after a reported error: silences follow-on diagnostics
  Void,
  Scalar,
  Tensor,
  Mapping,  // a compile-time task mapping
  Range,    // range(...) / unroll(...), only as a for-loop iterable
  Dim3,     // threadIdx, blockIdx, blockDim, gridDim
};

class Type {
 public:
  TypeKind kind = TypeKind::Error;
  ScalarKind scalar = ScalarKind::I32;  // Scalar; element type of Tensor
  std::vector<Dim> dims;                // Tensor
  MemScope scope = MemScope::Global;    // Tensor
  Layout layout;                        // Tensor
  std::optional<TaskMapping> distributed_by;  // Tensor in registers, `by m`
  std::optional<TaskMapping> mapping;   // Mapping
  bool unroll = false;                  // Range
  bool mbarrier = false;                // Tensor: shared mbarriers (u64 words used only by the mbarrier built-ins)
  bool tma = false;                     // Tensor: a kernel parameter passed as a TMA tensor map (`by tma`)

  bool IsError() const { return kind == TypeKind::Error; }
  bool IsScalar() const { return kind == TypeKind::Scalar; }
  bool IsTensor() const { return kind == TypeKind::Tensor; }
  bool IsInteger() const { return IsScalar() && tmc::IsInteger(scalar); }
  bool IsFloat() const { return IsScalar() && tmc::IsFloat(scalar); }
  bool IsBool() const { return IsScalar() && scalar == ScalarKind::Bool; }
  bool IsNumeric() const { return IsInteger() || IsFloat(); }
  size_t Rank() const { return dims.size(); }

  /// User-facing spelling: "f32", "shared f32[64, 8]", "mapping<2, 32, (8, 16)>".
  std::string ToString() const;
};

/// Owns types; hands out stable pointers.
class TypeContext {
 public:
  TypeContext();
  const Type* Error() const { return error_; }
  const Type* Void() const { return void_; }
  const Type* Scalar(ScalarKind k) const { return scalars_[static_cast<size_t>(k)]; }
  const Type* Dim3() const { return dim3_; }
  const Type* Make(Type t);

 private:
  std::deque<Type> storage_;
  const Type* error_;
  const Type* void_;
  const Type* dim3_;
  std::vector<const Type*> scalars_;
};

/// A compile-time value.
struct ConstValue {
  enum class Kind { Int, Float, Bool, Mapping };
  Kind kind = Kind::Int;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::optional<TaskMapping> m;

  static ConstValue Int(int64_t v) { return ConstValue{Kind::Int, v, 0, false, {}}; }
  static ConstValue Float(double v) { return ConstValue{Kind::Float, 0, v, false, {}}; }
  static ConstValue Bool(bool v) { return ConstValue{Kind::Bool, 0, 0, v, {}}; }
  static ConstValue Mapping(TaskMapping v) { return ConstValue{Kind::Mapping, 0, 0, false, v}; }
  std::string ToString() const;
};

/// Integer constants are folded exactly in 128 bits and then checked against
/// their type. A ConstValue holds the 64 two's-complement bits; its type says
/// how to read them (a u64 constant reaches 2^64 - 1).
using ExactInt = __int128;
ExactInt ExactValue(const ConstValue& v, ScalarKind type);
/// The 64-bit representation of `v`, which must fit some 64-bit type.
ConstValue ExactConst(ExactInt v);
bool ExactFits(ExactInt v, ScalarKind k);
std::string ExactString(ExactInt v);

}  // namespace tmc::sema
