// Spelling of semantic types and values.
#include "frontend/check/types.h"

#include <fmt/format.h>

namespace tmc::sema {

std::string Type::ToString() const {
  switch (kind) {
    case TypeKind::Error: return "<error>";
    case TypeKind::Void: return "void";
    case TypeKind::Scalar: return std::string(ScalarName(scalar));
    case TypeKind::Mapping: return mapping ? mapping->TypeString() : "mapping";
    case TypeKind::Range: return unroll ? "unroll range" : "range";
    case TypeKind::Dim3: return "dim3";
    case TypeKind::Tensor: {
      std::string s;
      if (scope == MemScope::Shared) s = "shared ";
      if (scope == MemScope::Register) s = "register ";
      s += (mbarrier ? std::string("mbarrier") : std::string(ScalarName(scalar))) + "[";
      for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i].ToString();
      s += "]";
      if (distributed_by) s += " by " + distributed_by->ToString();
      if (tma) s += " by tma";
      return s;
    }
  }
  return "?";
}

const char* Layout::KindName(Kind k) {
  switch (k) {
    case Kind::RowMajor: return "row_major";
    case Kind::ColMajor: return "col_major";
    case Kind::Strided: return "strided";
    case Kind::Swizzle: return "swizzle";
  }
  return "?";
}

std::string Layout::ToString() const {
  std::string s = KindName(kind);
  if (args.empty()) return s;
  s += "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].ToString();
  return s + ")";
}

TypeContext::TypeContext() {
  Type e;
  error_ = Make(e);
  e.kind = TypeKind::Void;
  void_ = Make(e);
  e.kind = TypeKind::Dim3;
  dim3_ = Make(e);
  for (int k = 0; k <= static_cast<int>(ScalarKind::F64); ++k) {
    Type s;
    s.kind = TypeKind::Scalar;
    s.scalar = static_cast<ScalarKind>(k);
    scalars_.push_back(Make(s));
  }
}

const Type* TypeContext::Make(Type t) {
  storage_.push_back(std::move(t));
  return &storage_.back();
}

ExactInt ExactValue(const ConstValue& v, ScalarKind type) {
  if (v.kind == ConstValue::Kind::Bool) return v.b ? 1 : 0;
  if (type == ScalarKind::U64) return static_cast<ExactInt>(static_cast<uint64_t>(v.i));
  return v.i;
}

ConstValue ExactConst(ExactInt v) { return ConstValue::Int(static_cast<int64_t>(static_cast<uint64_t>(v))); }

bool ExactFits(ExactInt v, ScalarKind k) {
  if (!IsInteger(k)) return false;
  return v >= IntegerMin(k) && v <= static_cast<ExactInt>(IntegerMax(k));
}

std::string ExactString(ExactInt v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  for (; u > 0; u /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
  return negative ? "-" + s : s;
}

std::string ConstValue::ToString() const {
  switch (kind) {
    case Kind::Int: return std::to_string(i);
    case Kind::Float: return fmt::format("{}", f);
    case Kind::Bool: return b ? "true" : "false";
    case Kind::Mapping: return m ? m->ToString() : "mapping";
  }
  return "?";
}

}  // namespace tmc::sema
